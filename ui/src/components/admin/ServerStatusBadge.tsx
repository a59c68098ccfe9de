import { serverState, useHealth, type ServerState } from '../../lib/health';

const LOOK: Record<ServerState, { label: string; badge: string; dot: string }> = {
  online: { label: 'System Online', badge: 'border-emerald-500/40 bg-emerald-500/10 text-emerald-300', dot: 'animate-pulse bg-emerald-400' },
  degraded: { label: 'System Degraded', badge: 'border-amber-500/40 bg-amber-500/10 text-amber-300', dot: 'bg-amber-400' },
  unreachable: { label: 'Server Unreachable', badge: 'border-red-500/40 bg-red-500/10 text-red-300', dot: 'bg-red-400' },
  checking: { label: 'Checking Server…', badge: 'border-slate-600 bg-slate-800/60 text-slate-300', dot: 'bg-slate-400' },
};

/** The server's state from the polled `/api/health`, in words (the colour only repeats them). */
export function ServerStatusBadge() {
  const { data, isError } = useHealth();
  const state = serverState(data, isError);
  const look = LOOK[state];
  return (
    <div
      role="status"
      data-testid="server-status"
      data-state={state}
      className={`inline-flex items-center gap-2 rounded-full border px-3 py-1 text-sm ${look.badge}`}
    >
      <span aria-hidden="true" className={`h-2 w-2 rounded-full ${look.dot}`} />
      {look.label}
    </div>
  );
}
