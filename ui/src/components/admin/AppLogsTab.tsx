import { AlertTriangle, CheckCircle2, Info, RefreshCw, XCircle } from 'lucide-react';
import { useAppLogs, useExceptions } from '../../lib/admin/logs';
import { formatDateTime } from '../../lib/format';
import { Badge, type BadgeVariant } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Skeleton } from '../ui/Skeleton';
import { cn } from '../ui/cn';
import { SectionCard, SkeletonTableRows, StatCard, TD, TH, TableScroll } from './shared';

export function levelVariant(level: string): BadgeVariant {
  if (level === 'ERROR') return 'destructive';
  if (level === 'WARN') return 'warning';
  return 'secondary';
}

/** The server's recent log records (GET /api/admin/app-logs). */
export function AppLogsTab() {
  const { data, isLoading, isError, isFetching, refetch } = useAppLogs();
  const logs = data?.logs ?? [];
  return (
    <SectionCard
      title="Application Logs"
      description="Recent log records of the server, newest first."
      actions={
        <Button size="sm" variant="outline" onClick={() => refetch()} disabled={isFetching} aria-label="Refresh application logs">
          <RefreshCw size={16} aria-hidden="true" className={cn(isFetching && 'animate-spin')} /> Refresh
        </Button>
      }
    >
      {isError ? (
        <p className="text-sm text-red-400">Failed to load application logs.</p>
      ) : !isLoading && logs.length === 0 ? (
        <p className="py-8 text-center text-slate-400">No log records yet</p>
      ) : (
        <TableScroll label="Application logs">
          <table className="w-full min-w-[720px] border-collapse">
            <thead className="border-b border-slate-800">
              <tr>
                <th scope="col" className={TH}>Time</th>
                <th scope="col" className={TH}>Level</th>
                <th scope="col" className={TH}>Target</th>
                <th scope="col" className={TH}>Message</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-800">
              {isLoading ? (
                <SkeletonTableRows columns={4} />
              ) : (
                logs.map((r) => (
                  <tr key={r.id} data-testid="app-log-row">
                    <td className={cn(TD, 'whitespace-nowrap text-slate-300')}>{formatDateTime(r.timestamp)}</td>
                    <td className={TD}>
                      <Badge variant={levelVariant(r.level)}>{r.level}</Badge>
                    </td>
                    <td className={cn(TD, 'whitespace-nowrap font-mono text-xs text-slate-400')}>{r.target}</td>
                    <td className={cn(TD, 'break-words text-slate-200')}>{r.message}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </TableScroll>
      )}
    </SectionCard>
  );
}

/** Real error / warning / info counts; 'All Systems Healthy' only when there are no errors. */
export function ExceptionsTab() {
  const { data, isLoading, isError } = useExceptions();
  if (isLoading) {
    return (
      <div role="status" aria-label="Loading exceptions" className="grid gap-4 sm:grid-cols-3">
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} className="h-24 rounded-xl" />
        ))}
      </div>
    );
  }
  if (isError || !data) return <p className="text-sm text-red-400">Failed to load the exception summary.</p>;
  return (
    <div className="flex flex-col gap-4">
      <div className="grid gap-4 sm:grid-cols-3">
        <StatCard testId="exc-errors" label="Critical Errors" value={data.errors.toLocaleString()} icon={<XCircle size={18} aria-hidden="true" className="text-red-400" />} />
        <StatCard testId="exc-warnings" label="Warnings" value={data.warnings.toLocaleString()} icon={<AlertTriangle size={18} aria-hidden="true" className="text-amber-300" />} />
        <StatCard testId="exc-info" label="Info Messages" value={data.info.toLocaleString()} icon={<Info size={18} aria-hidden="true" />} />
      </div>
      {data.errors === 0 ? (
        <div className="flex items-center gap-3 rounded-xl border border-emerald-500/40 bg-emerald-500/10 p-4 text-emerald-200" data-testid="all-healthy">
          <CheckCircle2 size={22} aria-hidden="true" />
          <span className="font-semibold">All Systems Healthy</span>
        </div>
      ) : (
        <div className="flex items-center gap-3 rounded-xl border border-red-500/40 bg-red-500/10 p-4 text-red-200" role="alert">
          <XCircle size={22} aria-hidden="true" />
          <span className="font-semibold">
            {data.errors.toLocaleString()} {data.errors === 1 ? 'error' : 'errors'} recorded since the server started
          </span>
        </div>
      )}
      {data.recent.length > 0 && (
        <SectionCard title="Recent errors and warnings">
          <ul className="flex flex-col divide-y divide-slate-800" data-testid="recent-exceptions">
            {data.recent.map((r, i) => (
              <li key={i} className="flex flex-col gap-1 py-3 sm:flex-row sm:items-start sm:gap-3">
                <Badge variant={levelVariant(r.level)} className="self-start">
                  {r.level}
                </Badge>
                <div className="min-w-0 flex-1">
                  <p className="break-words text-sm text-slate-200">{r.message}</p>
                  <p className="text-xs text-slate-400">
                    <span className="font-mono">{r.target}</span> · {formatDateTime(r.timestamp)}
                  </p>
                </div>
              </li>
            ))}
          </ul>
        </SectionCard>
      )}
    </div>
  );
}
