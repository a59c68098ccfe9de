import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Users } from 'lucide-react';
import type { components } from '../../lib/api/schema';
import { apiRequest, errorSentence } from '../../lib/api';
import { SectionCard } from '../admin/shared';
import { Button } from '../ui/Button';
import { Input, Label } from '../ui/Input';

/** A scan as /api/v1/scan-status answers it. */
export type ScanStatus = components['schemas']['ScanStatus'];

/** How often the progress is asked for while a scan is live (the server answers 304 while nothing changed). */
export const POLL_MS = 2000;

export function isLive(scan: ScanStatus | undefined): boolean {
  return scan?.state === 'queued' || scan?.state === 'running';
}

/** "about 3 min" from seconds; null when the server has no rate to go by. */
export function etaText(seconds: number | null): string | null {
  if (seconds === null) return null;
  if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min`;
  return `about ${(seconds / 3600).toFixed(1)} h`;
}

/** A group id: a whole number from 1 up, else the sentence to show. */
export function groupIdError(raw: string): string | null {
  return /^\s*[1-9]\d{0,15}\s*$/.test(raw) ? null : 'Enter a Roblox group id (a whole number)';
}

function headers(key: string) {
  return { 'X-API-Key': key.trim() };
}

/** Group Scanning tab: starts a scan with POST /api/v1/scan-group and follows it to the end. */
export function GroupScan({ apiKey }: { apiKey: string }) {
  const [groupId, setGroupId] = useState('');
  const [scannedBy, setScannedBy] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [scanId, setScanId] = useState<number | null>(null);
  const start = useMutation({
    mutationFn: () =>
      apiRequest<{ scanId: number }>('POST', '/api/v1/scan-group', { groupId: Number(groupId.trim()), scannedBy: scannedBy.trim() }, headers(apiKey)),
    onSuccess: (res) => setScanId(res.scanId),
  });
  const status = useQuery({
    queryKey: ['scan-status', scanId, apiKey],
    enabled: scanId !== null,
    queryFn: async () =>
      (await apiRequest<{ scan: ScanStatus }>('GET', `/api/v1/scan-status/${scanId}`, undefined, headers(apiKey))).scan,
    refetchInterval: (q) => (isLive(q.state.data as ScanStatus | undefined) ? POLL_MS : false),
  });

  function submit(e: Event) {
    e.preventDefault();
    const invalid = !apiKey.trim()
      ? 'Generate an API key on Getting Started first'
      : (groupIdError(groupId) ?? (scannedBy.trim() ? null : 'Enter your name or your community\u2019s (scannedBy)'));
    setProblem(invalid);
    if (!invalid) start.mutate();
  }

  const error = problem ?? (start.isError ? errorSentence(start.error, 'Failed to start the scan') : null);
  const scan = status.data;
  const pct = scan ? Math.round(scan.percent) : 0;

  return (
    <SectionCard icon={Users} title="Scan a group" description="Calls POST /api/v1/scan-group with the current key, then polls GET /api/v1/scan-status/{id}.">
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end" noValidate>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="scan-group-id">Group id</Label>
          <Input id="scan-group-id" inputMode="numeric" value={groupId} autoComplete="off"
            onInput={(e) => { setGroupId((e.currentTarget as HTMLInputElement).value); setProblem(null); }} />
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="scan-by">Scanned by</Label>
          <Input id="scan-by" value={scannedBy} maxLength={64} autoComplete="off"
            onInput={(e) => { setScannedBy((e.currentTarget as HTMLInputElement).value); setProblem(null); }} />
        </div>
        <Button type="submit" disabled={start.isPending || isLive(scan)}>
          {start.isPending ? 'Starting...' : 'Start scan'}
        </Button>
      </form>
      {error && (
        <p role="alert" className="mt-3 rounded-lg border border-red-500/40 bg-red-950/40 p-3 text-sm text-red-200">{error}</p>
      )}
      {scan && (
        <div className="mt-4 flex flex-col gap-2" data-testid="scan-progress">
          <p className="text-sm text-slate-200">
            Scan {scan.id} of <strong className="text-white">{scan.groupName || `group ${scan.groupId}`}</strong>:{' '}
            <span data-testid="scan-state">{scan.state}</span>
          </p>
          <div role="progressbar" aria-label="Scan progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}
            className="h-3 w-full overflow-hidden rounded-full bg-slate-700">
            <div className="h-full bg-violet-500 transition-all" style={{ width: `${pct}%` }} />
          </div>
          <p className="text-sm text-slate-300" data-testid="scan-figures">
            {scan.processed.toLocaleString('en-US')} of {scan.total.toLocaleString('en-US')} members ({pct}%) ·{' '}
            {scan.veterans.toLocaleString('en-US')} veterans · {scan.newgens.toLocaleString('en-US')} newgens
            {scan.failed > 0 && ` · ${scan.failed.toLocaleString('en-US')} not classified`}
            {scan.ratePerMinute != null && ` · ${scan.ratePerMinute} members/min`}
            {isLive(scan) && etaText(scan.etaSeconds ?? null) && ` · ${etaText(scan.etaSeconds ?? null)} left`}
          </p>
          {scan.notice && <p className="text-sm text-amber-200">{scan.notice}</p>}
          {scan.error && <p className="text-sm text-red-200">{scan.error}</p>}
        </div>
      )}
    </SectionCard>
  );
}
