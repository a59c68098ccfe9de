// Roblox lookups as the server answers them (spec section 3, CONTRACT 5): the badge monitor, the newgen check and
// the bot's analyze / quick check, plus the small formatting and image-fallback helpers the three pages share.
import { ApiError, apiRequest } from './api';

// ------------------------------------------------------------------------------------------------
// Shapes

export type Generation = 'VETERAN' | 'OLDGEN' | 'MIDGEN' | 'NEWGEN' | (string & {});
export type Rarity = 'impossible' | 'insane' | 'extremely hard' | 'hard' | 'medium' | 'easy' | (string & {});

/** One day of a badge's award history (the server's stored snapshots). */
export interface BadgeHistoryPoint {
  date: string;
  /** Awards that day, when the server could measure it. */
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
  awardedCount: number;
  dailyStats: { today: number; weekAverage: number };
  history?: BadgeHistoryPoint[];
}

/** globalStats.mostPopular / rarest: a badge's name, or a summary of the badge. */
export type BadgeRef = string | { name: string; badgeId?: number; awardedCount?: number } | null;

export interface BadgeMonitorResponse {
  badges: MonitoredBadge[];
  totalTracked: number;
  globalStats: { totalAwarded: number; mostPopular: BadgeRef; rarest: BadgeRef };
  /** When the figures were measured (null before the first successful poll). */
  lastUpdated: string | null;
  /** True when Roblox could not be reached and these are the last figures measured. */
  stale?: boolean;
  /** Why the figures are stale (the server's sentence). */
  staleReason?: string | null;
}

export interface ElcBadge {
  name: string;
  badgeId?: number;
  description?: string;
  /** Null when Roblox refused the award date. */
  awardedDate: string | null;
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
  isNewgen: boolean;
  isVeteran: boolean;
  classification: string;
  /** Why this classification (the server's sentence from site.toml's rules). */
  reason?: string;
  /** Percent. */
  confidence?: number;
  elcBadges: {
    count: number;
    total: number;
    badges: ElcBadge[];
    /** False when Roblox refused anonymous access to award dates; `reason` says why. */
    awardDatesAvailable?: boolean;
    reason?: string | null;
  };
  apiKey: { name: string; requests: number };
  checkedAt: string;
}

export interface BotStatus {
  classification: string;
  generation: Generation;
  confidence: number;
  reason: string;
}

export interface BotAnalysis {
  success: boolean;
  username: string;
  displayName: string;
  userId: number;
  avatarUrl: string | null;
  hasVerifiedBadge: boolean;
  accountAge: number;
  description: string;
  status: BotStatus;
  badges: {
    elcCount: number;
    total: number;
    elcBadges: ElcBadge[];
    awardDatesAvailable?: boolean;
    reason?: string | null;
  };
}

export interface BotQuickCheck {
  success: boolean;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  /** The classification text, or the same status object as the analysis. */
  status: string | BotStatus;
  elcBadgeCount: number;
  totalBadgeCount: number;
  accountAge: number;
  earliestBadge: { name: string; awardedDate: string | null } | null;
}

/** The error shape of the bot endpoints (and what the page shows when the network fails). */
export interface BotError {
  error: string;
  message?: string;
}

// ------------------------------------------------------------------------------------------------
// Calls

export const BADGE_MONITOR_QUERY = ['/api/badge-monitor'] as const;

/** Spec section 5: the username is trimmed and empty input is ignored. Returns null for "ignore". */
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

/** Spec section 8: a network failure reads 'Network error' / 'Failed to connect to API'. */
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

/** Spec section 9: the bot analysis shows the first 5 ELC badges, then a count of the rest. */
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

/** The last `days` points as bars in a width x height box (a missing value is a bar of height 0). */
export function chartBars(points: readonly BadgeHistoryPoint[], width: number, height: number, days = 7): ChartBar[] {
  const last = points.slice(-days);
  if (last.length === 0) return [];
  const max = Math.max(1, ...last.map((p) => p.awarded ?? 0));
  const slot = width / last.length;
  const gap = Math.min(4, slot * 0.2);
  return last.map((p, i) => {
    const value = p.awarded;
    const h = value === null ? 0 : Math.max(value > 0 ? 1 : 0, (value / max) * height);
    return { date: p.date, value, x: i * slot + gap / 2, y: height - h, width: slot - gap, height: h };
  });
}

/** The chart's text alternative: each day's count in words. */
export function chartDescription(points: readonly BadgeHistoryPoint[], days = 7): string {
  const last = points.slice(-days);
  if (last.length === 0) return 'No award history recorded yet';
  const parts = last.map((p) => `${formatDay(p.date)}: ${p.awarded === null ? 'not measured' : p.awarded.toLocaleString('en-US')}`);
  return `Awards per day, last ${last.length} ${last.length === 1 ? 'day' : 'days'}: ${parts.join('; ')}`;
}
