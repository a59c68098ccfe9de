/** 999 -> "999", 1500 -> "1.5K", 1000 -> "1K" (whole thousands without a decimal), 1_000_000 -> "1.0M" (always one). */
export function abbreviateCount(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) {
    const k = n / 1_000;
    return `${Number.isInteger(k) ? k : k.toFixed(1)}K`;
  }
  return String(n);
}

// Dates and times: one style for the whole site, in words ("May 1, 2009"; with the time "May 1, 2009, 3:04 PM"),
// from these functions only, so no page shows 2009-05-01 beside 11/27/2026. Where an age matters, formatAge adds
// "17 years ago".

/** What the formatters take: an RFC 3339 string, a bare day (YYYY-MM-DD), epoch milliseconds or a Date. */
export type DateInput = string | number | Date | null | undefined;

export interface DateOptions {
  /** Read the calendar day in UTC (Roblox's dates: a join date has no meaningful local time). Bare days always are. */
  utc?: boolean;
  /** What to show for no date or one that cannot be read (default "Never"). */
  fallback?: string;
}

const BARE_DAY = /^\d{4}-\d{2}-\d{2}$/;
const LOCALE = 'en-US';
const DAY_OPTIONS: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric' };
const TIME_OPTIONS: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };

/** The instant of `value`, or null when there is none or it cannot be read. */
export function parseDate(value: DateInput): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const d = value instanceof Date ? new Date(value.getTime()) : new Date(typeof value === 'string' && BARE_DAY.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(d.getTime()) ? null : d;
}

function zone(value: DateInput, utc: boolean | undefined): string | undefined {
  return utc || (typeof value === 'string' && BARE_DAY.test(value)) ? 'UTC' : undefined;
}

/** "May 1, 2009". */
export function formatDate(value: DateInput, { utc, fallback = 'Never' }: DateOptions = {}): string {
  const d = parseDate(value);
  return d ? d.toLocaleDateString(LOCALE, { ...DAY_OPTIONS, timeZone: zone(value, utc) }) : fallback;
}

/** "May 1, 2009, 3:04 PM" (with `seconds`: "3:04:05 PM"). */
export function formatDateTime(value: DateInput, { utc, fallback = 'Never', seconds = false }: DateOptions & { seconds?: boolean } = {}): string {
  const d = parseDate(value);
  if (!d) return fallback;
  return `${formatDate(d, { utc })}, ${formatTime(d, { utc, seconds })}`;
}

/** "3:04 PM" (with `seconds`: "3:04:05 PM"). */
export function formatTime(value: DateInput, { utc, fallback = 'Never', seconds = false }: DateOptions & { seconds?: boolean } = {}): string {
  const d = parseDate(value);
  if (!d) return fallback;
  return d.toLocaleTimeString(LOCALE, { ...TIME_OPTIONS, ...(seconds ? { second: '2-digit' } : {}), timeZone: zone(value, utc) });
}

/** The time alone when `value` is today, else the date with the time: for "Last updated" marks. */
export function formatMoment(value: DateInput, { now = new Date(), fallback = 'Never', seconds = true }: { now?: Date; fallback?: string; seconds?: boolean } = {}): string {
  const d = parseDate(value);
  if (!d) return fallback;
  return d.toDateString() === now.toDateString() ? formatTime(d, { seconds }) : formatDateTime(d, { seconds });
}

/** Whole calendar units from `from` to `to`: years, else months, else days (negative when `from` is later). */
function calendarAge(from: Date, to: Date, utc: boolean): { unit: 'year' | 'month' | 'day'; count: number } {
  if (from.getTime() > to.getTime()) {
    const ahead = calendarAge(to, from, utc);
    return { unit: ahead.unit, count: -ahead.count };
  }
  const parts = (d: Date) => (utc ? [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()] : [d.getFullYear(), d.getMonth(), d.getDate()]);
  const [fy, fm, fd] = parts(from);
  const [ty, tm, td] = parts(to);
  const months = (ty - fy) * 12 + (tm - fm) - (td < fd ? 1 : 0);
  if (Math.abs(months) >= 12) return { unit: 'year', count: Math.trunc(months / 12) };
  if (months !== 0) return { unit: 'month', count: months };
  const days = Math.round((Date.UTC(ty, tm, td) - Date.UTC(fy, fm, fd)) / 86_400_000);
  return { unit: 'day', count: days };
}

/** "17 years ago", "3 months ago", "1 day ago", "today" (a future date: "in 2 days"); `fallback` (default "") when unreadable. */
export function formatAge(value: DateInput, { now = new Date(), utc, fallback = '' }: DateOptions & { now?: Date } = {}): string {
  const d = parseDate(value);
  if (!d) return fallback;
  const { unit, count } = calendarAge(d, now, zone(value, utc) === 'UTC');
  if (count === 0) return 'today';
  const n = Math.abs(count);
  const words = `${n.toLocaleString(LOCALE)} ${unit}${n === 1 ? '' : 's'}`;
  return count > 0 ? `${words} ago` : `in ${words}`;
}

/** "May 1, 2009 (17 years ago)": a date whose age matters. */
export function formatDateWithAge(value: DateInput, options: DateOptions & { now?: Date } = {}): string {
  const d = parseDate(value);
  if (!d) return options.fallback ?? 'Never';
  return `${formatDate(value, options)} (${formatAge(value, options)})`;
}

/** Server sentences carry bare days (YYYY-MM-DD): each becomes "May 1, 2009", so a sentence reads like the page. */
export function formatDaysInText(text: string): string {
  return text.replace(/\b(\d{4}-\d{2}-\d{2})\b/g, (day) => formatDate(day, { fallback: day }));
}

/** 1536 -> "1.5 KB" (binary multiples, as file managers on Linux show them). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
