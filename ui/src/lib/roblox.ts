// Roblox lookups as the server answers them: the badge monitor, the newgen check and
// the bot's analyze / quick check, plus the small formatting and image-fallback helpers the three pages share.
import { ApiError, apiRequest } from './api';
import type { components } from './api/schema';

// ------------------------------------------------------------------------------------------------
// Shapes: the answers' types are generated from the server's OpenAPI document (src/lib/api/openapi.json, refreshed
// by scripts/openapi-types), so a changed answer breaks the type check instead of the page.

type Schemas = components['schemas'];

/** The generation code the API answers; people see its era's name from site.toml (`generationLabel`). */
export type Generation = Schemas['GenerationCode'];
/** The site's rarity levels; Roblox's own word for the same win rate comes as `difficulty`. */
export type Rarity = Schemas['Rarity'];
/** One day of a badge's award history (the server's stored snapshots; days without a snapshot are absent). */
export type BadgeHistoryPoint = Schemas['HistoryPoint'];

/** A day of the chart: its awards, or null when no snapshot was stored that day. */
export interface ChartDay {
  date: string;
  awarded: number | null;
}

export type MonitoredBadge = Schemas['MonitoredBadge'];
export type BadgeMonitorResponse = Schemas['BadgeMonitorAnswer'];
export type ElcBadge = Schemas['ElcBadge'];
/** One fact a classification rests on (the join date, an ELC badge, no ELC badges, award dates unavailable). */
export type Evidence = Schemas['Evidence'];
/** Whether Roblox gave the award dates (the newgen check's `elcBadges`, the analysis's `badges`); when not, the server's sentence says why. */
export type AwardDates = Pick<Schemas['ElcBadges'] | Schemas['BotBadges'], 'available' | 'unavailableReason'>;
export type NewgenCheck = Schemas['NewgenCheck'];
export type RobloxSource = Schemas['Source'];
/** Where Roblox's data was read; null when not recorded (or, for award dates, not read). */
export type RobloxSources = Schemas['Sources'];

const SOURCE_NAMES: Record<RobloxSource, string> = {
  openCloud: 'Roblox Open Cloud',
  cookie: "Roblox, with the site's sign-in",
  anonymous: 'Roblox, without sign-in',
};

/** "Join date: Roblox Open Cloud; award dates: ..." for the parts whose source is known. */
export function describeSources(sources: RobloxSources | undefined): string | null {
  if (!sources) return null;
  const parts: string[] = [];
  if (sources.profile) parts.push(`join date from ${SOURCE_NAMES[sources.profile] ?? sources.profile}`);
  if (sources.awardDates) parts.push(`award dates from ${SOURCE_NAMES[sources.awardDates] ?? sources.awardDates}`);
  if (!parts.length) return null;
  const text = parts.join('; ');
  return text[0].toUpperCase() + text.slice(1);
}

export type BotStatus = Schemas['BotStatus'];
export type BotAnalysis = Schemas['BotAnalysis'];
export type BotQuickCheck = Schemas['QuickCheck'];

/** The error shape of the bot endpoints (and what the page shows when the network fails). */
export type BotError = Pick<Schemas['ErrorBody'], 'error' | 'message'>;

// ------------------------------------------------------------------------------------------------
// Calls

export const BADGE_MONITOR_QUERY = ['/api/badge-monitor'] as const;

/** The username is trimmed and empty input is ignored. Returns null for "ignore". */
export function cleanUsername(input: string): string | null {
  const name = input.trim();
  return name ? name : null;
}

export function newgenPath(username: string): string {
  return `/api/newgen-check/${encodeURIComponent(username)}`;
}

export function fetchNewgenCheck(username: string, apiKey: string): Promise<NewgenCheck> {
  return apiRequest<NewgenCheck>('GET', newgenPath(username), undefined, { 'X-API-Key': apiKey });
}

export type BotCall = 'analyze' | 'check';

export function botPath(call: BotCall, username: string): string {
  return `/api/discord-bot/${call}/${encodeURIComponent(username)}`;
}

/** A network failure reads 'Network error' / 'Failed to connect to API'. */
export const NETWORK_ERROR: BotError = { error: 'Network error', message: 'Failed to connect to API' };

/** The bot endpoints' answer as the page shows it: the result, or the error shape (never throws). */
export async function callBot<T>(call: BotCall, username: string): Promise<{ ok: true; data: T } | { ok: false; error: BotError }> {
  try {
    return { ok: true, data: await apiRequest<T>('GET', botPath(call, username)) };
  } catch (err) {
    return { ok: false, error: botError(err) };
  }
}

export function botError(err: unknown): BotError {
  if (err instanceof ApiError) {
    if (err.serverError) return { error: err.serverError, message: err.serverMessage };
    return { error: `Request failed (${err.status})`, message: err.message };
  }
  return NETWORK_ERROR;
}

// ------------------------------------------------------------------------------------------------
// Formatting

/** 1 -> "1 day", 1234 -> "1,234 days". */
export function formatDays(days: number): string {
  return `${days.toLocaleString('en-US')} ${days === 1 ? 'day' : 'days'}`;
}

/** Account age in days with the years for a quick read: 800 -> "800 days (2.2 years)". */
export function formatAccountAge(days: number): string {
  if (days < 365) return formatDays(days);
  return `${formatDays(days)} (${(days / 365.25).toFixed(1)} years)`;
}

/** A date in words, UTC (Roblox dates are UTC; a join date has no meaningful local time). */
export function formatDay(iso: string | null | undefined): string {
  if (!iso) return 'Unknown';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return 'Unknown';
  return d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** A time of day with the date when it is not today: for 'Last updated' and stale marks. */
export function formatMoment(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return 'never';
  const time = d.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return d.toDateString() === now.toDateString() ? time : `${d.toLocaleDateString('en-US', { month: 'short', day: 'numeric' })}, ${time}`;
}

/** The name of a global-stats badge (`mostPopular`, `rarest`; null before any figures). */
export function badgeRefName(name: string | null | undefined): string {
  return name || 'None yet';
}

/** Case-insensitive search over name and description. */
export function filterBadges(badges: MonitoredBadge[], query: string): MonitoredBadge[] {
  const q = query.trim().toLowerCase();
  if (!q) return badges;
  return badges.filter((b) => b.name.toLowerCase().includes(q) || b.description.toLowerCase().includes(q));
}

/** The bot analysis shows the first 5 ELC badges, then a count of the rest. */
export const BOT_ELC_SHOWN = 5;

export function splitShown<T>(items: T[], shown = BOT_ELC_SHOWN): { shown: T[]; rest: number } {
  return { shown: items.slice(0, shown), rest: Math.max(0, items.length - shown) };
}

// ------------------------------------------------------------------------------------------------
// Image fallback chain: the image, the alternative thumbnail sources, then the placeholder (null).

/** The distinct, non-empty sources to try, in order. */
export function imageSources(primary: string | null | undefined, fallbacks: readonly (string | null | undefined)[] = []): string[] {
  const out: string[] = [];
  for (const src of [primary, ...fallbacks]) {
    if (src && !out.includes(src)) out.push(src);
  }
  return out;
}

/** The source to show after `failures` load errors, or null for the placeholder icon. */
export function sourceAfterFailures(sources: readonly string[], failures: number): string | null {
  return failures < sources.length ? sources[failures] : null;
}

// ------------------------------------------------------------------------------------------------
// 7-day history chart geometry (an inline SVG; no chart library)

export interface ChartBar {
  date: string;
  value: number | null;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** YYYY-MM-DD of `iso` moved by `delta` days (UTC). */
function shiftDay(day: string, delta: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + delta);
  return d.toISOString().slice(0, 10);
}

/** The `days` days ending at the newest point, each with its awards or null when no snapshot was stored. */
export function chartDays(points: readonly BadgeHistoryPoint[], days = 7): ChartDay[] {
  const valid = points.filter((p) => /^\d{4}-\d{2}-\d{2}$/.test(p.date));
  if (valid.length === 0) return [];
  const last = valid.reduce((a, p) => (p.date > a ? p.date : a), valid[0].date);
  const byDay = new Map(valid.map((p) => [p.date, p.pastDay]));
  return Array.from({ length: days }, (_, i) => {
    const date = shiftDay(last, i - (days - 1));
    return { date, awarded: byDay.get(date) ?? null };
  });
}

/** The days as bars in a width x height box (a day without a value is a bar of height 0). */
export function chartBars(days: readonly ChartDay[], width: number, height: number): ChartBar[] {
  if (days.length === 0) return [];
  const max = Math.max(1, ...days.map((p) => p.awarded ?? 0));
  const slot = width / days.length;
  const gap = Math.min(4, slot * 0.2);
  return days.map((p, i) => {
    const value = p.awarded;
    const h = value === null ? 0 : Math.max(value > 0 ? 1 : 0, (value / max) * height);
    return { date: p.date, value, x: i * slot + gap / 2, y: height - h, width: slot - gap, height: h };
  });
}

/** The chart's text alternative: each day's count in words. */
export function chartDescription(days: readonly ChartDay[]): string {
  if (days.length === 0) return 'No award history recorded yet';
  const parts = days.map((p) => `${formatDay(p.date)}: ${p.awarded === null ? 'not measured' : p.awarded.toLocaleString('en-US')}`);
  return `Awards per day, last ${days.length} ${days.length === 1 ? 'day' : 'days'}: ${parts.join('; ')}`;
}

/** Whether Roblox refused the award dates (the page then says so instead of listing badges). */
export function awardDatesRefused(dates: AwardDates): boolean {
  return dates.available === false;
}
