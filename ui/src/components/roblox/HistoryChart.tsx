import { recordedDays } from '../../lib/badgeHistory';
import { chartBars, chartDays, chartDescription, formatDay, type BadgeHistoryPoint } from '../../lib/roblox';

const WIDTH = 168;
const HEIGHT = 40;

/**
 * A 7-day bar chart of a badge's awards per day, drawn inline (no chart library). It starts at
 * the first recorded day, and with a single day says since when it records instead of drawing
 * one bar on an empty axis.
 */
export function HistoryChart({ points, label }: { points: readonly BadgeHistoryPoint[]; label: string }) {
  const days = recordedDays(chartDays(points));
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
  const partial = days.length < 7;
  return (
    <figure className="m-0" data-testid="history-chart">
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
        {bars.map((b) => (
          <rect key={b.date} x={b.x} y={b.y} width={b.width} height={b.height} rx="1.5" className="fill-violet-500" data-value={b.value ?? ''}>
            <title>{`${formatDay(b.date)}: ${b.value === null ? 'not measured' : b.value.toLocaleString('en-US')}`}</title>
          </rect>
        ))}
      </svg>
      <figcaption className="mt-1 flex justify-between text-[11px] text-slate-400" aria-hidden="true">
        <span>{partial ? `Since ${formatDay(bars[0].date)}` : formatDay(bars[0].date)}</span>
        <span>{formatDay(bars[bars.length - 1].date)}</span>
      </figcaption>
    </figure>
  );
}
