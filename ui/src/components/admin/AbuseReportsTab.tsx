import { useState } from 'react';
import { Flag } from 'lucide-react';
import { REPORT_STATES, reportsOfPages, useAbuseReports, useUpdateReport, type AbuseReport, type ReportState } from '../../lib/admin/reports';
import { formatDateTime } from '../../lib/format';
import { toast } from '../../lib/toast';
import { Badge, type BadgeVariant } from '../ui/Badge';
import { LoadMore, SectionCard, SkeletonList, failToast } from './shared';

const PRIORITY_VARIANT: Record<string, BadgeVariant> = { urgent: 'destructive', high: 'destructive', medium: 'warning', low: 'secondary' };
const STATE_VARIANT: Record<ReportState, BadgeVariant> = { open: 'warning', reviewing: 'secondary', resolved: 'success', dismissed: 'secondary' };
const STATE_LABEL: Record<ReportState, string> = { open: 'Open', reviewing: 'Reviewing', resolved: 'Resolved', dismissed: 'Dismissed' };

/** Abuse reports filed through POST /api/v1/report-abuse, newest first; every text is shown as plain text. */
export function AbuseReportsTab() {
  const [filter, setFilter] = useState<ReportState | ''>('');
  const query = useAbuseReports(filter);
  const { data, isLoading, isError } = query;
  const { reports, total, open } = reportsOfPages(data?.pages);
  const update = useUpdateReport();

  function move(report: AbuseReport, state: ReportState) {
    update.mutate(
      { id: report.id, state },
      {
        onSuccess: () => toast({ title: 'Report Updated', description: `Report #${report.id} is now ${STATE_LABEL[state].toLowerCase()}.` }),
        onError: (err) => failToast('Failed to update report', err),
      },
    );
  }

  return (
    <SectionCard
      icon={Flag}
      title="Abuse Reports"
      description={data && !filter ? `${open} open or under review, ${total} in total` : data ? `${open} open or under review, ${total} ${STATE_LABEL[filter as ReportState].toLowerCase()}` : undefined}
    >
      <div className="mb-3 flex items-center gap-2 text-sm">
        <label htmlFor="report-state-filter" className="text-slate-400">
          Show
        </label>
        <select
          id="report-state-filter"
          value={filter}
          className="rounded-md border border-slate-600 bg-slate-900 px-2 py-1 text-sm text-white"
          onChange={(e) => setFilter((e.currentTarget as HTMLSelectElement).value as ReportState | '')}
        >
          <option value="">Every report</option>
          {REPORT_STATES.map((s) => (
            <option key={s} value={s}>{STATE_LABEL[s]}</option>
          ))}
        </select>
      </div>
      {isLoading && <SkeletonList />}
      {isError && <p role="alert" className="text-sm text-red-200">Failed to load abuse reports</p>}
      {data && reports.length === 0 && <p className="text-sm text-slate-300">{filter ? `No ${STATE_LABEL[filter].toLowerCase()} reports.` : 'No abuse reports yet.'}</p>}
      <ul className="flex flex-col gap-3" data-testid="abuse-reports">
        {reports.map((r) => (
          <li key={r.id} data-report={r.id} className="rounded-lg border border-slate-700 p-3">
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <strong className="text-white">#{r.id}</strong>
              <span className="text-slate-200">
                {r.reporterUsername} reported <strong className="text-white">{r.targetUsername}</strong> for {r.reason}
              </span>
              {r.category && r.category.toLowerCase() !== r.reason.toLowerCase() && (
                <Badge variant="secondary" data-testid="report-category">{r.category}</Badge>
              )}
              <Badge variant={PRIORITY_VARIANT[r.priority] ?? 'secondary'}>{r.priority}</Badge>
              <Badge variant={STATE_VARIANT[r.state]} data-testid="report-state">{STATE_LABEL[r.state]}</Badge>
              <span className="text-xs text-slate-400">{formatDateTime(r.createdAt)}</span>
            </div>
            <p className="mt-2 whitespace-pre-wrap break-words text-sm text-slate-300" data-testid="report-description">{r.description}</p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <label className="text-xs text-slate-400" htmlFor={`report-state-${r.id}`}>State</label>
              <select
                id={`report-state-${r.id}`}
                value={r.state}
                disabled={update.isPending}
                className="rounded-md border border-slate-600 bg-slate-900 px-2 py-1 text-sm text-white"
                onChange={(e) => move(r, (e.currentTarget as HTMLSelectElement).value as ReportState)}
              >
                {REPORT_STATES.map((s) => (
                  <option key={s} value={s}>{STATE_LABEL[s]}</option>
                ))}
              </select>
            </div>
          </li>
        ))}
      </ul>
      {reports.length > 0 && (
        <LoadMore
          label="reports"
          shown={reports.length}
          total={total}
          hasMore={!!query.hasNextPage}
          loading={query.isFetchingNextPage}
          onMore={() => query.fetchNextPage()}
        />
      )}
    </SectionCard>
  );
}
