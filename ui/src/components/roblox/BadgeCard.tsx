import { Award } from 'lucide-react';
import { weekAverageKnown, WEEK_AVERAGE_MIN_DAYS } from '../../lib/badgeHistory';
import { abbreviateCount } from '../../lib/format';
import { formatMoment, type BadgeHistory, type MonitoredBadge } from '../../lib/roblox';
import { FallbackImage } from './FallbackImage';
import { HistoryChart } from './HistoryChart';
import { RarityBadge } from './labels';

/** A figure; `value` null: not known yet, `unknownNote` says why. */
function Figure({ label, value, exact, unknownNote }: { label: string; value: number | null; exact: number; unknownNote?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-400">{label}</dt>
      {value === null ? (
        <dd className="text-sm font-semibold text-slate-300" title={unknownNote} data-testid={`figure-${label}`} data-known="false">
          Not yet<span className="sr-only">: {unknownNote}</span>
        </dd>
      ) : (
        <dd className="text-lg font-bold tabular-nums text-white" title={exact.toLocaleString('en-US')} data-testid={`figure-${label}`}>
          {abbreviateCount(value)}
        </dd>
      )}
    </div>
  );
}

/** The chart's range: 7 days from the monitor's own answer, longer ones from the history (null while it loads or failed). */
export interface ChartRange {
  days: number;
  history?: BadgeHistory | null;
  /** Why the longer range is not drawn (loading, or the server's error). */
  unavailable?: string;
}

/** One tracked badge: image, name, ID, rarity, description, total / today / weekly average and the chart of its range. */
export function BadgeCard({ badge, staleAt, range = { days: 7 } }: { badge: MonitoredBadge; staleAt: string | null; range?: ChartRange }) {
  const headingId = `badge-${badge.badgeId}-name`;
  return (
    <article
      aria-labelledby={headingId}
      className="flex min-w-0 flex-col gap-4 rounded-xl border border-slate-800 bg-slate-900 p-5 text-slate-100"
      data-testid="badge-card"
      data-badge-id={badge.badgeId}
    >
        <div className="flex items-start gap-4">
          <FallbackImage
            src={badge.imageUrl}
            fallbacks={badge.imageFallbacks}
            alt={`${badge.name} badge image`}
            placeholder={Award}
            className="h-16 w-16 shrink-0 rounded-lg"
            testId="badge-image"
          />
          <div className="min-w-0 flex-1">
            <h3 id={headingId} className="break-words text-lg font-semibold text-white">
              {badge.name}
            </h3>
            <p className="text-xs text-slate-400">ID: {badge.badgeId}</p>
            <div className="mt-1.5">
              <RarityBadge rarity={badge.rarity} difficulty={badge.difficulty} />
            </div>
          </div>
        </div>
        {badge.description && <p className="break-words text-sm text-slate-300">{badge.description}</p>}
        <dl className="grid grid-cols-3 gap-2">
          <Figure label="Total awarded" value={badge.awardedCount} exact={badge.awardedCount} />
          <Figure label="Today" value={badge.dailyStats.today} exact={badge.dailyStats.today} />
          <Figure
            label="Weekly avg"
            value={weekAverageKnown(badge.history) ? Math.round(badge.dailyStats.weekAverage) : null}
            exact={badge.dailyStats.weekAverage}
            unknownNote={`known after ${WEEK_AVERAGE_MIN_DAYS} days of recorded history`}
          />
        </dl>
        {staleAt && (
          <p className="text-xs text-amber-300" data-testid="badge-stale">
            Figures as of {formatMoment(staleAt)}
          </p>
        )}
        {range.days === 7 ? (
          badge.history && <HistoryChart points={badge.history} label={`${badge.name}: awards in the last 7 days`} />
        ) : range.history ? (
          <HistoryChart
            points={range.history.days}
            days={range.days}
            since={range.history.since}
            best={range.history.bestDay}
            label={`${badge.name}: awards in the last ${range.days} days`}
          />
        ) : (
          <p className="text-xs text-slate-400" data-testid="history-unavailable">
            {range.unavailable ?? 'No history recorded for this badge yet.'}
          </p>
        )}
    </article>
  );
}
