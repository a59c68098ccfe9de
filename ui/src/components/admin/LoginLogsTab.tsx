import { useEffect, useState } from 'react';
import { ChevronLeft, ChevronRight } from 'lucide-react';
import { LOGIN_LOGS_PAGE_SIZE, newestFirst, useLoginLogs } from '../../lib/admin/logs';
import { pageCount } from '../../lib/admin/queries';
import { formatDateTime } from '../../lib/format';
import { toast } from '../../lib/toast';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { cn } from '../ui/cn';
import { SectionCard, SkeletonTableRows, TD, TH, TableScroll } from './shared';

export function LoginLogsTab() {
  const [page, setPage] = useState(1);
  const { data, isLoading, isError, error, isFetching } = useLoginLogs(page, LOGIN_LOGS_PAGE_SIZE);

  useEffect(() => {
    if (isError) toast({ title: 'Failed to fetch login logs', variant: 'destructive' });
  }, [isError, error]);

  const logs = newestFirst(data?.logs ?? []);
  const total = data?.total ?? 0;
  const pages = pageCount(total, data?.limit ?? LOGIN_LOGS_PAGE_SIZE);

  return (
    <SectionCard title="Login Logs" description={data ? `${total.toLocaleString()} login attempts recorded` : undefined}>
      {isError && !data ? (
        <p className="text-sm text-red-400">Failed to fetch login logs</p>
      ) : !isLoading && logs.length === 0 ? (
        <p className="py-8 text-center text-slate-400">No login logs available</p>
      ) : (
        <>
          <TableScroll label="Login logs">
            <table className={cn('w-full min-w-[720px] border-collapse', isFetching && !isLoading && 'opacity-70')}>
              <thead className="border-b border-slate-800">
                <tr>
                  <th scope="col" className={TH}>Username</th>
                  <th scope="col" className={TH}>IP Address</th>
                  <th scope="col" className={TH}>User Agent</th>
                  <th scope="col" className={TH}>Timestamp</th>
                  <th scope="col" className={TH}>Status</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-800">
                {isLoading ? (
                  <SkeletonTableRows columns={5} />
                ) : (
                  logs.map((log) => (
                    <tr key={log.id} data-testid="login-log-row">
                      <td className={cn(TD, 'font-medium text-white')}>{log.username}</td>
                      <td className={cn(TD, 'whitespace-nowrap font-mono text-xs text-slate-300')}>{log.ipAddress}</td>
                      <td className={cn(TD, 'max-w-xs truncate text-xs text-slate-400')} title={log.userAgent}>
                        {log.userAgent}
                      </td>
                      <td className={cn(TD, 'whitespace-nowrap text-slate-300')}>{formatDateTime(log.timestamp)}</td>
                      <td className={TD}>
                        <Badge variant={log.loginStatus === 'success' ? 'success' : 'destructive'}>{log.loginStatus}</Badge>
                      </td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </TableScroll>
          <nav aria-label="Login logs pages" className="mt-4 flex items-center justify-between gap-2">
            <Button size="sm" variant="outline" disabled={page <= 1 || isLoading} onClick={() => setPage((p) => Math.max(1, p - 1))}>
              <ChevronLeft size={16} aria-hidden="true" /> Previous
            </Button>
            <span className="text-sm text-slate-400" aria-live="polite">
              Page {Math.min(page, pages)} of {pages}
            </span>
            <Button size="sm" variant="outline" disabled={page >= pages || isLoading} onClick={() => setPage((p) => Math.min(pages, p + 1))}>
              Next <ChevronRight size={16} aria-hidden="true" />
            </Button>
          </nav>
        </>
      )}
    </SectionCard>
  );
}
