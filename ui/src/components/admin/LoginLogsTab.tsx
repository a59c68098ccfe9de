import { useEffect, useState } from 'react';
import { LOGIN_LOGS_PAGE_SIZE, LOGIN_STATUS_LABELS, loginLogsOfPages, useLoginLogs, type LoginStatus } from '../../lib/admin/logs';
import { formatDateTime } from '../../lib/format';
import { toast } from '../../lib/toast';
import { Badge } from '../ui/Badge';
import { INPUT_CLASS } from '../ui/Input';
import { cn } from '../ui/cn';
import { LoadMore, SectionCard, SkeletonTableRows, TD, TH, TableScroll } from './shared';

export function LoginLogsTab() {
  const [status, setStatus] = useState<LoginStatus | ''>('');
  const query = useLoginLogs(status, LOGIN_LOGS_PAGE_SIZE);
  const { data, isLoading, isError, error, isFetching } = query;

  useEffect(() => {
    if (isError) toast({ title: 'Failed to fetch login logs', variant: 'destructive' });
  }, [isError, error]);

  const logs = loginLogsOfPages(data?.pages);
  const total = data?.pages[0]?.total ?? 0;

  return (
    <SectionCard
      title="Login Logs"
      description={data ? `${total.toLocaleString()} ${status ? `${LOGIN_STATUS_LABELS[status].toLowerCase()} ` : ''}login attempts recorded` : undefined}
    >
      <div className="mb-3 flex items-center gap-2 text-sm">
        <label htmlFor="login-status-filter" className="text-slate-400">
          Show
        </label>
        <select
          id="login-status-filter"
          value={status}
          onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as LoginStatus | '')}
          className={cn(INPUT_CLASS, 'h-9 max-w-52')}
        >
          <option value="">Every attempt</option>
          {(Object.keys(LOGIN_STATUS_LABELS) as LoginStatus[]).map((s) => (
            <option key={s} value={s}>
              {LOGIN_STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      {isError && !data ? (
        <p className="text-sm text-red-400">Failed to fetch login logs</p>
      ) : !isLoading && logs.length === 0 ? (
        <p className="py-8 text-center text-slate-400">{status ? 'No login attempts of this kind' : 'No login logs available'}</p>
      ) : (
        <>
          <TableScroll label="Login logs">
            <table className={cn('w-full min-w-[720px] border-collapse', isFetching && !isLoading && !query.isFetchingNextPage && 'opacity-70')}>
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
          <LoadMore
            label="attempts"
            shown={logs.length}
            total={data ? total : undefined}
            hasMore={!!query.hasNextPage}
            loading={query.isFetchingNextPage}
            onMore={() => query.fetchNextPage()}
          />
        </>
      )}
    </SectionCard>
  );
}
