import { TriangleAlert, SearchX } from 'lucide-react';

export function CommandsError() {
  return (
    <div role="alert" className="rounded-xl border border-red-500/40 bg-red-950/30 p-8 text-center" data-testid="commands-error">
      <TriangleAlert className="mx-auto h-8 w-8 text-red-400" aria-hidden="true" />
      <h3 className="mt-3 text-lg font-semibold text-red-300">Error Loading Commands</h3>
      <p className="mt-1 text-sm text-red-200/80">Failed to load commands. Please try again later.</p>
    </div>
  );
}

export function CommandsEmpty() {
  return (
    <div className="rounded-xl border border-slate-800 bg-slate-900 p-8 text-center" data-testid="commands-empty">
      <SearchX className="mx-auto h-8 w-8 text-slate-500" aria-hidden="true" />
      <h3 className="mt-3 text-lg font-semibold text-slate-200">No commands found</h3>
      <p className="mt-1 text-sm text-slate-400">Try adjusting your search or filter criteria</p>
    </div>
  );
}
