// What a badge's recorded history is enough to show: the site records one snapshot per badge per
// day itself (Roblox gives running totals, not a series), so a freshly started site has a day or
// two of history, and the 7-day chart and the weekly average must say so rather than pretend.
import type { BadgeHistoryPoint, ChartDay } from './roblox';

/** Days of history the weekly average needs before it differs from the day's own figure. */
export const WEEK_AVERAGE_MIN_DAYS = 2;

/** The chart's days from the first one recorded (the days before it were never measured). */
export function recordedDays(days: readonly ChartDay[]): ChartDay[] {
  const first = days.findIndex((d) => d.awarded !== null);
  return first < 0 ? [] : days.slice(first);
}

/** How many distinct days the history holds. */
export function historyDayCount(points: readonly BadgeHistoryPoint[]): number {
  return new Set(points.filter((p) => /^\d{4}-\d{2}-\d{2}$/.test(p.date)).map((p) => p.date)).size;
}

/**
 * Whether the weekly average means anything yet: with one day recorded the server's figure is
 * that day's own count. Unknown history (`undefined`: the answer carried none) trusts the server.
 */
export function weekAverageKnown(points: readonly BadgeHistoryPoint[] | null | undefined): boolean {
  return points == null || historyDayCount(points) >= WEEK_AVERAGE_MIN_DAYS;
}

/** The chart's ranges, in days, and how the page names them. */
export const HISTORY_RANGES = [
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: '1 year' },
] as const;

export type HistoryRange = (typeof HISTORY_RANGES)[number]['days'];

/** The monitored badges' days over `days` days, as JSON or (for a download) CSV. */
export function historyUrl(days: number, format: 'json' | 'csv' = 'json'): string {
  return `/api/badge-monitor/history?days=${days}${format === 'csv' ? '&format=csv' : ''}`;
}

/** The day with the most awards (the first of equals), or null without a measured day. */
export function bestDay<T extends { date: string; pastDay: number }>(points: readonly T[]): T | null {
  let best: T | null = null;
  for (const p of points) if (best === null || p.pastDay > best.pastDay) best = p;
  return best;
}

/** Bars of a long range as one SVG path (hundreds of bars as one element, not one each). */
export function barsPath(bars: readonly { x: number; y: number; width: number; height: number }[]): string {
  return bars
    .filter((b) => b.height > 0)
    .map((b) => `M${round(b.x)} ${round(b.y)}h${round(b.width)}v${round(b.height)}h${round(-b.width)}z`)
    .join('');
}

const round = (n: number) => Math.round(n * 100) / 100;
