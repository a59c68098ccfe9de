// Roblox lookups as the server answers them: the badge monitor, the newgen check and
// the bot's analyze / quick check, plus the small formatting and image-fallback helpers the three pages share.
import { ApiError, apiRequest } from './api';
import { formatAge, formatDate, formatMoment as formatMomentOf } from './format';
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
/** `GET /api/badge-monitor/history`: each monitored badge's days over a range. */
export type BadgeHistoryAnswer = Schemas['BadgeHistoryAnswer'];
export type BadgeHistory = Schemas['BadgeHistory'];

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

/**
 * Why `name` cannot be a Roblox username (the server's rules, src/roblox/classify.rs `check_username`, with its
 * sentences), or null when it can: 3-20 characters, letters, digits and at most one underscore, not first or last.
 */
export function usernameProblem(name: string): string | null {
  if (name.length < 3 || name.length > 20) return 'Roblox usernames are 3 to 20 characters long.';
  if (!/^[A-Za-z0-9_]+$/.test(name)) return 'Roblox usernames use only letters, digits and one underscore.';
  if ((name.match(/_/g) ?? []).length > 1) return 'Roblox usernames have at most one underscore.';
  if (name.startsWith('_') || name.endsWith('_')) return 'A Roblox username cannot start or end with an underscore.';
  return null;
}

/** The detector's own address for a player: opening it runs the check (the page reads ?username=). */
export function detectorPath(username: string): string {
  return `/newgen-detector?username=${encodeURIComponent(username)}`;
}

/** Roblox's profile page of a user (Roblox's address, the same for every game). */
export function robloxProfileUrl(userId: number): string {
  return `https://www.roblox.com/users/${userId}/profile`;
}

/** Up to two capitals for an avatar that cannot load: "OldBuilder2009" -> "OB", "new_player" -> "NP", "zed" -> "Z". */
export function initialsOf(name: string): string {
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])/)
    .filter(Boolean);
  const letters = words.slice(0, 2).map((w) => w[0].toUpperCase());
  return letters.join('') || '?';
}

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

/** A Roblox date in the site's one style ("Jun 15, 2009"), read in UTC: Roblox's days are UTC days (the server's too). */
export function formatDay(iso: string | null | undefined): string {
  return formatDate(iso, { utc: true, fallback: 'Unknown' });
}

/** "Last updated" and stale marks: the time alone today, else the date with the time (lib/format.ts). */
export function formatMoment(iso: string | null | undefined, now: Date = new Date()): string {
  return formatMomentOf(iso, { now, fallback: 'never' });
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

/** Ranges longer than this are described in a sentence, not day by day. */
const DESCRIBED_DAY_BY_DAY = 31;

/** The chart's text alternative: each day's count in words (a long range: its measured days and best day). */
export function chartDescription(days: readonly ChartDay[]): string {
  if (days.length === 0) return 'No award history recorded yet';
  if (days.length > DESCRIBED_DAY_BY_DAY) {
    const measured = days.filter((d) => d.awarded !== null);
    const best = measured.reduce<ChartDay | null>((b, d) => (b === null || (d.awarded ?? 0) > (b.awarded ?? 0) ? d : b), null);
    const bestText = best ? `; the most on ${formatDay(best.date)}: ${(best.awarded ?? 0).toLocaleString('en-US')}` : '';
    return `Awards per day, last ${days.length} days from ${formatDay(days[0].date)} to ${formatDay(days[days.length - 1].date)}: ${measured.length} days measured${bestText}`;
  }
  const parts = days.map((p) => `${formatDay(p.date)}: ${p.awarded === null ? 'not measured' : p.awarded.toLocaleString('en-US')}`);
  return `Awards per day, last ${days.length} ${days.length === 1 ? 'day' : 'days'}: ${parts.join('; ')}`;
}

/** Whether Roblox refused the award dates (the page then says so instead of listing badges). */
export function awardDatesRefused(dates: AwardDates): boolean {
  return dates.available === false;
}

// ------------------------------------------------------------------------------------------------
// The verdict: one headline and one plain sentence, and the two facts it rests on (the join-date generation and the
// ELC badges), worded so they never contradict it. The words come from the answer and site.toml [classification].

export type ClassificationRules = Schemas['Classification'];

export interface ElcTerms {
  /** The badges in plain words ("early-player"), site.toml [classification] elc_words. */
  words: string;
  /** The same with the short name players use, once: "early-player (ELC) badges" (elc_name). */
  full: string;
  /** The plain words with a capital, for a heading ("Early-player"). */
  capitalised: string;
  /** `full` with a capital, for a label ("Early-player (ELC) badges"). */
  label: string;
}

/** What the early-player badges are called, from site.toml; plain words alone until the settings are known. */
export function elcTerms(rules?: Pick<ClassificationRules, 'elcName' | 'elcWords'>): ElcTerms {
  const words = rules?.elcWords?.trim() || 'early-player';
  const name = rules?.elcName?.trim();
  const full = name ? `${words} (${name}) badges` : `${words} badges`;
  const capitalised = words[0].toUpperCase() + words.slice(1);
  return { words, full, capitalised, label: capitalised + full.slice(words.length) };
}

export interface VerdictFact {
  /** The fact's label. */
  label: string;
  /** Its value, short ("Midgen", "4 of 6"). */
  value: string;
  /** One sentence that says what the value means and how it relates to the headline. */
  explanation: string;
}

export interface Verdict {
  /** The one word people read first: "Veteran", "Regular", "Newgen" (site.toml's words). */
  headline: string;
  /** "Veteran: this account joined Roblox on ..." */
  sentence: string;
  /** "OldBuilder2009 is a Veteran": the share title. */
  title: string;
  /** Whether the ELC badges decided it (rather than the join date). */
  byBadges: boolean;
  generation: VerdictFact;
  badges: VerdictFact;
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** The day before `day` (YYYY-MM-DD): an era's last day, its `joinedBefore` being exclusive. */
function dayBefore(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** "Accounts that joined from Jan 1, 2017 to Dec 31, 2020", from the eras of site.toml (null when unknown). */
function eraSpan(rules: ClassificationRules | undefined, code: Generation): string | null {
  const eras = rules?.generations ?? [];
  const i = eras.findIndex((g) => g.code === code);
  if (i < 0) return null;
  const from = i > 0 ? eras[i - 1].joinedBefore : null;
  const before = eras[i].joinedBefore;
  if (from && before) return `Accounts that joined from ${formatDay(from)} to ${formatDay(dayBefore(before))}`;
  if (before) return `Accounts that joined before ${formatDay(before)}`;
  if (from) return `Accounts that joined on or after ${formatDay(from)}`;
  return null;
}

/** The verdict of a newgen check, in words a young player understands. `now` dates the "N years ago". */
export function buildVerdict(result: NewgenCheck, rules?: ClassificationRules, now: Date = new Date()): Verdict {
  const elc = result.elcBadges;
  const readable = !awardDatesRefused(elc);
  const min = Math.max(1, rules?.elcVeteranMin ?? 1);
  const era = rules?.generations.find((g) => g.code === result.generation);
  const eraName = result.generationLabel || result.generation;
  const byBadges = result.isVeteran && readable && elc.count >= min;
  // A veteran by badges is the site's veteran word (its veteran eras' classification); the API's own
  // classification for it (e.g. "ELC Veteran") stays on the page beside its confidence.
  const veteranWord = rules?.generations.find((g) => g.veteran)?.classification ?? result.classification;
  const headline = byBadges ? veteranWord : result.classification;
  const eraWord = era?.classification ?? result.classification;

  const joined = `joined Roblox on ${formatDay(result.joinDate)} (${formatAge(result.joinDate, { utc: true, now })})`;
  const terms = elcTerms(rules);
  const elcFull = terms.full;
  const owns = (n: number) => (n === 0 ? `owns none of the ${elc.total} ${elcFull}` : `owns ${n} of the ${elc.total} ${elcFull}`);
  const enough = min === 1 ? 'owning even one makes a player' : `owning ${min} or more makes a player`;
  let sentence: string;
  if (byBadges && era && !era.veteran) {
    sentence = `${headline}: this account ${joined}, a ${eraName} account, but it ${owns(elc.count)}, and ${enough} ${article(headline)} ${headline.toLowerCase()}.`;
  } else if (byBadges) {
    sentence = `${headline}: this account ${joined} and ${owns(elc.count)}.`;
  } else if (!readable) {
    sentence = `${headline}: this account ${joined}, so it is ${article(eraName)} ${eraName} account. Roblox did not show its ${elcFull}, so the join date alone decides.`;
  } else if (elc.total === 0) {
    sentence = `${headline}: this account ${joined}, so it is ${article(eraName)} ${eraName} account.`;
  } else if (elc.count === 0) {
    sentence = `${headline}: this account ${joined}, so it is ${article(eraName)} ${eraName} account, and it ${owns(0)}.`;
  } else {
    sentence = `${headline}: this account ${joined}, so it is ${article(eraName)} ${eraName} account, and it ${owns(elc.count)}, fewer than the ${min} that make ${article(veteranWord)} ${veteranWord.toLowerCase()}.`;
  }

  const span = eraSpan(rules, result.generation);
  const spanText = span ? `${span} are ${eraName}. ` : '';
  const generation: VerdictFact = {
    label: 'Generation by join date',
    value: eraName,
    explanation:
      byBadges && eraWord !== headline
        ? `${spanText}By join date alone that counts as ${eraWord}; the ${terms.words} badges count for more.`
        : era?.veteran || !readable
          ? `${spanText}By join date, ${eraName} accounts count as ${eraWord}.`
          : `${spanText}Without ${min === 1 ? 'any' : `${min} or more`} ${terms.words} badges, ${eraName} accounts count as ${eraWord}.`,
  };
  const badges: VerdictFact = {
    label: terms.label,
    value: !readable ? 'Not shown by Roblox' : `${elc.count} of ${elc.total}`,
    explanation: !readable
      ? 'Roblox did not share them with this site, so they could not count.'
      : elc.total === 0
        ? 'This site has no such badges set up, so the join date decides.'
        : `Owning ${min === 1 ? 'at least one' : `${min} or more`} makes a player ${article(veteranWord)} ${veteranWord}, whatever the join date${byBadges ? '.' : `; this account owns ${elc.count === 0 ? 'none' : plural(elc.count, 'only one', `only ${elc.count}`)}.`}`,
  };
  return { headline, sentence, title: `${result.username} is ${article(headline)} ${headline}`, byBadges, generation, badges };
}
