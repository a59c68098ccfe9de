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
