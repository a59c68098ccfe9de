import { barsPath, bestDay, recordedDays } from '../../lib/badgeHistory';
import { chartBars, chartDays, chartDescription, formatDay, type BadgeHistoryPoint } from '../../lib/roblox';

const WIDTH = 168;
const HEIGHT = 40;
/** Up to a month, each bar is its own element with its day in a tooltip; longer ranges are one path. */
const BARS_WITH_TITLES = 31;

/**
 * A bar chart of a badge's awards per day over `days` days, drawn inline (no chart library). It
 * starts at the first recorded day, and with a single day says since when it records instead of
 * drawing one bar on an empty axis. Below it: since when the site has figures (`since`, from the
 * server, may be before the range) and the range's best day.
 */
export function HistoryChart({
  points,
  label,
  days: range = 7,
  since,
  best: bestFromServer,
}: {
  points: readonly BadgeHistoryPoint[];
  label: string;
  days?: number;
  since?: string | null;
  /** The range's best day as the server found it; without it (the 7 days of the monitor) it is found here. */
  best?: BadgeHistoryPoint | null;
}) {
  const days = recordedDays(chartDays(points, range));
  const bars = chartBars(days, WIDTH, HEIGHT);
  const text = chartDescription(days);
  if (bars.length === 0) {
    return <p className="text-xs text-slate-400" data-testid="history-empty">{text}</p>;
  }
  if (days.length === 1) {
    const [day] = days;
    return (
      <p className="text-xs text-slate-400" data-testid="history-since">
        Recording since {formatDay(day.date)}: {(day.awarded ?? 0).toLocaleString('en-US')} awarded in the day before. The chart
        fills in as days are recorded.
      </p>
    );
  }
  const partial = days.length < range;
  const best = bestFromServer !== undefined ? bestFromServer : bestDay(points.filter((p) => p.date >= days[0].date));
  return (
    <figure className="m-0" data-testid="history-chart" data-days={range}>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        height={HEIGHT}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${label}. ${text}`}
        className="block"
      >
        <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className="stroke-slate-700" strokeWidth="1" />
        {range <= BARS_WITH_TITLES ? (
          bars.map((b) => (
            <rect key={b.date} x={b.x} y={b.y} width={b.width} height={b.height} rx="1.5" className="fill-violet-500" data-value={b.value ?? ''}>
              <title>{`${formatDay(b.date)}: ${b.value === null ? 'not measured' : b.value.toLocaleString('en-US')}`}</title>
            </rect>
          ))
        ) : (
          <path d={barsPath(bars)} className="fill-violet-500" data-testid="history-bars" />
        )}
      </svg>
      <figcaption className="mt-1 text-[11px] text-slate-400">
        <span className="flex justify-between" aria-hidden="true">
          <span>{partial ? `Since ${formatDay(bars[0].date)}` : formatDay(bars[0].date)}</span>
          <span>{formatDay(bars[bars.length - 1].date)}</span>
        </span>
        {(best || since) && (
          <span className="mt-1 flex flex-wrap justify-between gap-x-3">
            {best && (
              <span data-testid="best-day">
                Best day: {formatDay(best.date)}, {best.pastDay.toLocaleString('en-US')} awarded
              </span>
            )}
            {since && <span data-testid="recorded-since">Recorded since {formatDay(since)}</span>}
          </span>
        )}
      </figcaption>
    </figure>
  );
}
