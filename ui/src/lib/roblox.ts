// Roblox lookups as the server answers them: the badge monitor, the newgen check and
// the bot's analyze / quick check, plus the small formatting and image-fallback helpers the three pages share.
import { ApiError, apiRequest } from './api';

// ------------------------------------------------------------------------------------------------
// Shapes

/** The generation code the API answers; people see its era's name from site.toml (`generationLabel`). */
export type Generation = 'VETERAN' | 'OLDGEN' | 'MIDGEN' | 'NEWGEN' | (string & {});
/** The site's rarity levels; Roblox's own word for the same win rate comes as `difficulty`. */
export type Rarity = 'impossible' | 'insane' | 'extremely hard' | 'hard' | 'medium' | 'easy' | (string & {});

/** One day of a badge's award history (the server's stored snapshots; days without a snapshot are absent). */
export interface BadgeHistoryPoint {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  /** Total awarded at that day's last snapshot. */
  awardedCount: number;
  /** Awarded in the 24 hours before that snapshot. */
  pastDay: number;
}

/** A day of the chart: its awards, or null when no snapshot was stored that day. */
export interface ChartDay {
  date: string;
  awarded: number | null;
}

export interface MonitoredBadge {
  badgeId: number;
  name: string;
  description: string;
  imageUrl: string | null;
  /** Alternative thumbnail sources, tried in order when imageUrl fails to load. */
  imageFallbacks?: string[];
  rarity: Rarity;
  /** Roblox's difficulty word (Impossible ... Freebie). */
  difficulty?: string;
  winRatePercentage?: number;
  awardedCount: number;
  dailyStats: { today: number; weekAverage: number };
  history?: BadgeHistoryPoint[];
  updatedAt?: string;
}

/** globalStats.mostPopular / rarest: the badge's name (null before any figures). */
export type BadgeRef = string | { name: string; badgeId?: number } | null;

export interface BadgeMonitorResponse {
  badges: MonitoredBadge[];
  totalTracked: number;
  globalStats: { totalAwarded: number; mostPopular: BadgeRef; rarest: BadgeRef };
  /** When the figures were measured (null before the first successful poll). */
  lastUpdated: string | null;
  /** True when Roblox could not be reached and these are the last figures measured. */
  stale?: boolean;
  /** Why the last poll failed, while stale (the server's sentence). */
  error?: string | null;
  pollIntervalSecs?: number;
}

export interface ElcBadge {
  name: string;
  badgeId?: number;
  description?: string;
  awardedDate: string | null;
}

/** One fact a classification rests on (the join date, an ELC badge, no ELC badges, award dates unavailable). */
export interface Evidence {
  kind: 'joinDate' | 'elcBadge' | 'noElcBadges' | 'awardDatesUnavailable' | (string & {});
  detail: string;
  date?: string;
  badgeId?: number;
}

/** Whether Roblox gave the award dates; when not, the server's sentence says why. */
export interface AwardDates {
  available?: boolean;
  unavailableReason?: string | null;
  /** needsCookie, cookieRejected, hidden, private, nothingVisible or temporary. */
  unavailableCode?: string | null;
}

export interface NewgenCheck {
  success: boolean;
  username: string;
  displayName: string;
  userId: number;
  avatarUrl: string | null;
  hasVerifiedBadge: boolean;
  joinDate: string;
  accountAge: number;
  generation: Generation;
  /** The era's name shown to people. */
  generationLabel?: string;
  isNewgen: boolean;
  isVeteran: boolean;
  classification: string;
  /** Why this classification (the server's sentence from site.toml's rules). */
  reason?: string;
  /** Percent. */
  confidence?: number;
  evidence?: Evidence[];
  isBanned?: boolean;
  elcBadges: AwardDates & { count: number; total: number; badges: ElcBadge[] };
  /** Where Roblox's data was read; null when not recorded (or, for award dates, not read). */
  robloxSources?: RobloxSources;
  apiKey: { name: string; requests: number };
  checkedAt: string;
}

export type RobloxSource = 'openCloud' | 'cookie' | 'anonymous';

export interface RobloxSources {
  profile: RobloxSource | null;
  awardDates: RobloxSource | null;
}

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

export interface BotStatus {
  classification: string;
  generation: Generation;
  /** The era's name shown to people. */
  generationLabel?: string;
  confidence: number;
  reason: string;
  isVeteran?: boolean;
  isNewgen?: boolean;
  evidence?: Evidence[];
}

export interface BotAnalysis {
  success: boolean;
  username: string;
  displayName: string;
  userId: number;
  avatarUrl: string | null;
  hasVerifiedBadge: boolean;
  accountAge: number;
  joinDate?: string;
  isBanned?: boolean;
  description: string;
  status: BotStatus;
  badges: AwardDates & { elcCount: number; total: number; elcBadges: ElcBadge[] };
  robloxSources?: RobloxSources;
}

export interface BotQuickCheck {
  success: boolean;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  /** The classification text, or the same status object as the analysis. */
  status: string | BotStatus;
  generation?: Generation;
  generationLabel?: string;
  confidence?: number;
  /** False when Roblox refused the award dates (the ELC count is then unknown). */
  elcAvailable?: boolean;
  elcBadgeCount: number;
  totalBadgeCount: number;
  accountAge: number;
  earliestBadge: { name: string; awardedDate: string | null } | null;
  robloxSources?: RobloxSources;
}

/** The error shape of the bot endpoints (and what the page shows when the network fails). */
export interface BotError {
  error: string;
  message?: string;
}

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

/** The name of a global-stats badge reference, whichever shape the server sent. */
export function badgeRefName(ref: BadgeRef): string {
  if (!ref) return 'None yet';
  return typeof ref === 'string' ? ref : ref.name;
}

/** The quick check's status as text. */
export function statusText(status: string | BotStatus): string {
  return typeof status === 'string' ? status : status.classification;
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
