import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { AlertTriangle, Award, Download, RefreshCw, Search, TrendingUp } from 'lucide-react';
import { BadgeCard, type ChartRange } from '../components/roblox/BadgeCard';
import { Card } from '../components/ui/Card';
import { Input, Label } from '../components/ui/Input';
import { Switch } from '../components/ui/Switch';
import { Button } from '../components/ui/Button';
import { StatePanel } from '../components/ui/StatePanel';
import { errorSentence } from '../lib/api';
import { HISTORY_RANGES, historyUrl, type HistoryRange } from '../lib/badgeHistory';
import { abbreviateCount } from '../lib/format';
import { POLL } from '../lib/queryClient';
import {
  BADGE_MONITOR_QUERY,
  badgeRefName,
  filterBadges,
  formatMoment,
  type BadgeHistoryAnswer,
  type BadgeMonitorResponse,
  type MonitoredBadge,
} from '../lib/roblox';

function Summary({ label, value, title, testId }: { label: string; value: string; title?: string; testId: string }) {
  return (
    <Card className="min-w-0 p-4">
      <p className="text-sm text-slate-400">{label}</p>
      <p className="mt-1 break-words text-xl font-bold text-white sm:text-2xl" title={title} data-testid={testId}>
        {value}
      </p>
    </Card>
  );
}

/** The chart range picker and the download of the range's figures. */
function RangeControls({ range, onChange }: { range: HistoryRange; onChange: (days: HistoryRange) => void }) {
  return (
    <div className="flex flex-wrap items-end gap-3">
      <div>
        <p id="chart-range-label" className="text-sm font-medium text-slate-200">
          Chart
        </p>
        <div role="group" aria-labelledby="chart-range-label" className="mt-1.5 inline-flex rounded-lg border border-slate-700 p-0.5" data-testid="chart-range">
          {HISTORY_RANGES.map((r) => (
            <button
              key={r.days}
              type="button"
              aria-pressed={range === r.days}
              onClick={() => onChange(r.days)}
              className={`min-h-9 rounded-md px-3 text-sm font-medium transition-colors focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-400 ${
                range === r.days ? 'bg-violet-600 text-white' : 'text-slate-300 hover:bg-slate-800 hover:text-white'
              }`}
            >
              {r.label}
            </button>
          ))}
        </div>
      </div>
      <a
        href={historyUrl(range, 'csv')}
        download
        className="inline-flex min-h-10 items-center gap-2 rounded-lg border border-slate-700 px-3 text-sm font-medium text-slate-200 hover:bg-slate-800 hover:text-white focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-400"
        data-testid="download-history"
      >
        <Download className="h-4 w-4" aria-hidden="true" />
        Download CSV<span className="sr-only"> of the last {range} days</span>
      </a>
    </div>
  );
}

export default function BadgeMonitor() {
  const [autoRefresh, setAutoRefresh] = useState(true);
  const [search, setSearch] = useState('');
  const [range, setRange] = useState<HistoryRange>(7);
  // 7 days come with the monitor's own answer; a longer range is asked for when chosen.
  const history = useQuery<BadgeHistoryAnswer>({
    queryKey: [historyUrl(range)],
    enabled: range !== 7,
    staleTime: POLL.badgeMonitor,
  });
  const monitor = useQuery<BadgeMonitorResponse>({
    queryKey: BADGE_MONITOR_QUERY,
    // Polled every 30 s while Auto Refresh is on (the server answers from memory, 304 when unchanged).
    refetchInterval: autoRefresh ? POLL.badgeMonitor : false,
    staleTime: POLL.badgeMonitor,
  });
  const data = monitor.data;
  const badges = data ? filterBadges(data.badges, search) : [];
  const staleAt = data?.stale ? (data.lastUpdated ?? null) : null;
  const chartRange = (badge: MonitoredBadge): ChartRange => {
    if (range === 7) return { days: 7 };
    if (history.data) return { days: range, history: history.data.badges.find((h) => h.badgeId === badge.badgeId) ?? null };
    if (history.isError) return { days: range, unavailable: `The ${range}-day history could not be loaded (${errorSentence(history.error, 'no answer')}).` };
    return { days: range, unavailable: `Loading ${range} days...` };
  };

  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-8 sm:px-6 sm:py-10">
      <header className="mb-6 flex flex-col gap-4 lg:flex-row lg:items-end lg:justify-between">
        <div>
          <h1 className="flex items-center gap-3 text-3xl font-extrabold tracking-tight text-white sm:text-4xl">
            <Award className="h-8 w-8 shrink-0 text-violet-400" aria-hidden="true" />
            Badge Monitor
          </h1>
          <p className="mt-2 text-slate-300">How many players earn each of the game&apos;s badges, measured from Roblox.</p>
        </div>
        <div className="flex flex-wrap items-center gap-4">
          <Button
            variant="outline"
            onClick={() => monitor.refetch()}
            disabled={monitor.isFetching}
            aria-busy={monitor.isFetching || undefined}
            data-testid="refresh"
          >
            <RefreshCw className={monitor.isFetching ? 'h-4 w-4 animate-spin motion-reduce:animate-none' : 'h-4 w-4'} aria-hidden="true" />
            Refresh
          </Button>
          <div className="flex items-center gap-2">
            <Switch checked={autoRefresh} onCheckedChange={setAutoRefresh} aria-labelledby="auto-refresh-label" />
            <span id="auto-refresh-label" className="text-sm text-slate-200">
              Auto Refresh <span data-testid="auto-refresh-state" className="font-semibold">{autoRefresh ? 'ON' : 'OFF'}</span>
            </span>
          </div>
        </div>
      </header>

      <div aria-live="polite" className="mb-4 min-h-5 text-sm text-slate-400">
        {data ? (
          <p data-testid="last-updated">
            Last updated: <time dateTime={data.lastUpdated ?? undefined}>{formatMoment(data.lastUpdated)}</time>
            {data.stale && <span className="ml-2 rounded bg-amber-500/20 px-1.5 py-0.5 text-xs font-semibold text-amber-300">Stale</span>}
          </p>
        ) : null}
      </div>

      {data?.stale && (
        <p className="mb-6 flex items-start gap-2 rounded-xl border border-amber-500/40 bg-amber-950/30 p-4 text-sm text-amber-100" data-testid="stale-notice">
          <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0 text-amber-300" aria-hidden="true" />
          <span>
            Roblox cannot be reached right now{data.error ? ` (${data.error})` : ''}.{' '}
            {data.lastUpdated ? `These are the last figures measured, at ${formatMoment(data.lastUpdated)}.` : 'No figures have been measured yet.'}
          </span>
        </p>
      )}
      {data && monitor.isRefetchError && (
        <p role="alert" className="mb-6 rounded-xl border border-red-500/40 bg-red-950/30 p-4 text-sm text-red-200" data-testid="refresh-error">
          Refreshing failed ({errorSentence(monitor.error, 'the server did not answer')}). The figures below are from {formatMoment(data.lastUpdated)}.
        </p>
      )}

      {data && (
        <section aria-label="Summary" className="mb-8 grid grid-cols-2 gap-4 lg:grid-cols-4">
          <Summary label="Total badges tracked" value={String(data.totalTracked)} testId="total-tracked" />
          <Summary
            label="Total awarded"
            value={abbreviateCount(data.globalStats.totalAwarded)}
            title={data.globalStats.totalAwarded.toLocaleString('en-US')}
            testId="total-awarded"
          />
          <Summary label="Most popular" value={badgeRefName(data.globalStats.mostPopular)} testId="most-popular" />
          <Summary label="Rarest" value={badgeRefName(data.globalStats.rarest)} testId="rarest" />
        </section>
      )}

      <section aria-labelledby="tracked-badges-heading">
        <h2 id="tracked-badges-heading" className="mb-4 text-2xl font-bold tracking-tight text-white">
          Tracked badges
        </h2>
        {monitor.isLoading ? (
          <p className="flex items-center justify-center gap-2 rounded-xl border border-slate-800 bg-slate-900 p-10 text-slate-300" role="status">
            <RefreshCw className="h-5 w-5 animate-spin motion-reduce:animate-none" aria-hidden="true" />
            Loading badge data...
          </p>
        ) : !data ? (
          <StatePanel
            icon={AlertTriangle}
            tone="error"
            title="Badge data unavailable"
            text={errorSentence(monitor.error, 'The badge monitor did not answer. Please try again later.')}
            testId="monitor-error"
          />
        ) : (
          <>
            <div className="mb-6 flex flex-col gap-4 md:flex-row md:items-end md:justify-between">
            <div className="w-full max-w-md">
              <Label htmlFor="badge-search">Search badges</Label>
              <div className="relative mt-1.5">
                <Search className="pointer-events-none absolute left-3 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-400" aria-hidden="true" />
                <Input
                  id="badge-search"
                  type="search"
                  placeholder="Search by name or description..."
                  value={search}
                  onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)}
                  className="pl-9"
                  data-search-input
                />
              </div>
            </div>
            <RangeControls range={range} onChange={setRange} />
            </div>

            {data.badges.length === 0 ? (
              <StatePanel icon={TrendingUp} tone="empty" title="No badges tracked" text="This site tracks no badges yet." />
            ) : badges.length === 0 ? (
              <StatePanel icon={Search} tone="empty" title="No badges found" text="No badge matches your search." testId="no-match" />
            ) : (
              <div className="grid items-start gap-4 md:grid-cols-2 lg:grid-cols-3">
                {badges.map((b) => (
                  <BadgeCard key={b.badgeId} badge={b} staleAt={staleAt} range={chartRange(b)} />
                ))}
              </div>
            )}
          </>
        )}
      </section>
    </div>
  );
}
