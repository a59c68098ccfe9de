// Following players and Discord alerts: the account page's calls (the follows, the webhook) and the newgen
// result's (Follow, the player's history), with the words the pages show for a player's changes.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiRequest, getQueryFn } from './api';
import type { components } from './api/schema';
import { formatDate, formatDateTime, formatTime, parseDate } from './format';

type Schemas = components['schemas'];
export type PlayerEvent = Schemas['PlayerEvent'];
export type PlayerEventKind = PlayerEvent['kind'];
export type PlayerSummary = Schemas['PlayerSummary'];
export type Followed = Schemas['Followed'];
export type FollowList = Schemas['FollowList'];
export type FollowAnswer = Schemas['FollowAnswer'];
export type PlayerHistory = Schemas['PlayerHistory'];
export type AlertSettings = Schemas['AlertSettings'];
export type AlertWebhook = Schemas['AlertWebhook'];

export const FOLLOWS_KEY = ['/api/account/follows'] as const;
export const ALERTS_KEY = ['/api/account/alerts'] as const;

/** The history's query key: the check's time is in it, so a new check of the same player asks again. */
export function historyKey(userId: number, checkedAt?: string) {
  return ['player-history', userId, checkedAt ?? ''] as const;
}

/** A player's result on the Newgen Detector (as lib/roblox.ts detectorPath, without loading that module here). */
export function resultPath(username: string): string {
  return `/newgen-detector?username=${encodeURIComponent(username)}`;
}

export function historyPath(userId: number): string {
  return `/api/players/${userId}/history`;
}

// ------------------------------------------------------------------------------------------------
// Words

/** Roblox's award day, as the result's badge list shows it (read in UTC). */
function awardDay(iso: string): string {
  return formatDate(iso, { utc: true, fallback: 'an unknown day' });
}

/** The day the site noticed something (the reader's own calendar). */
function noticedDay(iso: string): string {
  return formatDate(iso, { fallback: 'an unknown day' });
}

/** One change of a player in words ("Earned Early Builder on May 1, 2009"). */
export function describeEvent(event: PlayerEvent): string {
  const before = event.before ?? 'unknown';
  const after = event.after ?? 'unknown';
  switch (event.kind) {
    case 'first_seen':
      return `First seen here on ${noticedDay(event.noticedAt)}`;
    case 'elc_badge': {
      const badge = event.after ?? 'a badge';
      // A badge owned before the site read its award date is still earned on that date.
      return event.awardedAt ? `Earned ${badge} on ${awardDay(event.awardedAt)}` : `Earned ${badge} (noticed ${noticedDay(event.noticedAt)})`;
    }
    case 'classification':
      return `Was ${before} until ${noticedDay(event.noticedAt)}, now ${after}`;
    case 'username':
      return `Renamed from ${before} to ${after} (noticed ${noticedDay(event.noticedAt)})`;
    case 'display_name':
      return `Display name ${before} → ${after}`;
    default:
      return `Changed on ${noticedDay((event as PlayerEvent).noticedAt)}`;
  }
}

/** A recent moment: "today at 5:18 AM", else the date with the time ("Nov 20, 2026, 5:18 AM"). */
export function momentText(iso: string | null | undefined, fallback: string, now: Date = new Date()): string {
  const d = parseDate(iso);
  if (!d) return fallback;
  return d.toDateString() === now.toDateString() ? `today at ${formatTime(d)}` : formatDateTime(d);
}

/** The alert kinds' labels; a kind the page does not know shows as the server names it. */
export const ALERT_KIND_LABELS: Record<string, string> = {
  elc_badge: 'New ELC badge',
  classification: 'Classification change',
  name: 'Name change',
};

export function kindLabel(kind: string): string {
  return ALERT_KIND_LABELS[kind] ?? kind;
}

/** `kinds` in the server's order, without duplicates or kinds it does not offer. */
export function orderedKinds(chosen: readonly string[], offered: readonly string[]): string[] {
  return offered.filter((k) => chosen.includes(k));
}

/** `chosen` with `kind` added or taken out, in the server's order. */
export function toggleKind(chosen: readonly string[], kind: string, on: boolean, offered: readonly string[]): string[] {
  const next = on ? [...chosen, kind] : chosen.filter((k) => k !== kind);
  return orderedKinds(next, offered);
}

/** "Checked again about every 6 hours", from the server's `recheckHours`. */
export function recheckText(hours: number): string {
  if (!Number.isFinite(hours) || hours <= 0) return 'Checked again now and then.';
  if (hours >= 1) {
    const shown = Number.isInteger(hours) ? String(hours) : hours.toFixed(1).replace(/\.0$/, '');
    return `Checked again about every ${shown} ${shown === '1' ? 'hour' : 'hours'}.`;
  }
  const minutes = Math.round(hours * 60);
  if (minutes >= 1) return `Checked again about every ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
  return 'Checked again every few seconds.';
}

/**
 * The changes to highlight as new: those of the list first shown (kept after the page marked them seen) and any
 * that arrived since, newest first.
 */
export function mergeNewEvents(shown: readonly PlayerEvent[] | undefined, current: readonly PlayerEvent[]): PlayerEvent[] {
  const byId = new Map<number, PlayerEvent>();
  for (const e of shown ?? []) byId.set(e.id, e);
  for (const e of current) byId.set(e.id, e);
  return [...byId.values()].sort((a, b) => b.id - a.id);
}

/** What a refused Follow says: the server's sentence and its detail (the limit's "An account may follow 50..."). */
export function followErrorText(err: unknown): string {
  if (err instanceof ApiError) {
    const parts = [err.serverError, err.serverMessage].filter((s): s is string => !!s);
    if (parts.length) return parts.join(' ');
    if (err.status === 401) return 'Your sign-in has ended: sign in again to follow players.';
  }
  return 'The player could not be followed. Try again.';
}

/** The sentence of a failed call: the server's `error` with its `message` when it sent one. */
export function errorWithDetail(err: unknown, fallback: string): string {
  if (err instanceof ApiError && err.serverError) return err.serverMessage ? `${err.serverError} ${err.serverMessage}` : err.serverError;
  return fallback;
}

/** The alerts form's field errors (400 `fields`): the URL's and the kinds'. */
export function alertFieldErrors(err: unknown): { url?: string; kinds?: string } {
  if (!(err instanceof ApiError) || !err.fields) return {};
  const out: { url?: string; kinds?: string } = {};
  if (typeof err.fields.url === 'string' && err.fields.url) out.url = err.fields.url;
  if (typeof err.fields.kinds === 'string' && err.fields.kinds) out.kinds = err.fields.kinds;
  return out;
}

// ------------------------------------------------------------------------------------------------
// Calls

/**
 * The signed-in fan's follows (null when signed out), asked again each time a page that shows them opens (another
 * page, or another tab, may have changed them).
 */
export function useFollows(enabled = true) {
  return useQuery<FollowList | null>({
    queryKey: FOLLOWS_KEY,
    queryFn: getQueryFn<FollowList>({ on401: 'returnNull' }),
    enabled,
    staleTime: 0,
    refetchOnMount: 'always',
  });
}

/** A player's history as the site noticed it, asked again for each new check of the player. */
export function usePlayerHistory(userId: number, checkedAt?: string) {
  return useQuery<PlayerHistory>({
    queryKey: historyKey(userId, checkedAt),
    queryFn: () => apiRequest<PlayerHistory>('GET', historyPath(userId)),
  });
}

export function useFollow() {
  const qc = useQueryClient();
  return useMutation<FollowAnswer, unknown, number>({
    mutationFn: (userId) => apiRequest<FollowAnswer>('POST', '/api/account/follows', { userId }),
    onSuccess: () => qc.invalidateQueries({ queryKey: FOLLOWS_KEY }),
  });
}

export function useUnfollow() {
  const qc = useQueryClient();
  return useMutation<void, unknown, number>({
    mutationFn: (userId) => apiRequest<void>('DELETE', `/api/account/follows/${userId}`),
    onSuccess: (_, userId) => {
      qc.setQueryData<FollowList | null>(FOLLOWS_KEY, (list) => (list ? { ...list, follows: list.follows.filter((f) => f.player.userId !== userId) } : list));
      return qc.invalidateQueries({ queryKey: FOLLOWS_KEY });
    },
  });
}

/** The newest change of a list (what marking it seen covers); 0 when it has none. */
export function newestEventId(list: FollowList): number {
  return list.follows.reduce((newest, f) => f.newEvents.reduce((n, e) => Math.max(n, e.id), newest), 0);
}

/**
 * Marks the changes shown as seen, up to the newest of them (one noticed after the list was read stays new; the list
 * on screen keeps its highlights: the cache is left alone).
 */
export function useMarkSeen() {
  return useMutation<void, unknown, number>({
    mutationFn: (upTo) => apiRequest<void>('POST', '/api/account/follows/seen', { upTo }),
  });
}

export function useAlerts(enabled = true) {
  return useQuery<AlertSettings | null>({
    queryKey: ALERTS_KEY,
    queryFn: getQueryFn<AlertSettings>({ on401: 'returnNull' }),
    enabled,
  });
}

function useSetAlerts() {
  const qc = useQueryClient();
  return (settings: AlertSettings | undefined) => {
    if (settings) qc.setQueryData(ALERTS_KEY, settings);
    return qc.invalidateQueries({ queryKey: ALERTS_KEY });
  };
}

/** Saves a webhook: the server sends a test message and keeps it only when Discord took it. */
export function useSaveAlerts() {
  const set = useSetAlerts();
  return useMutation<AlertSettings, unknown, { url: string; kinds: string[] }>({
    mutationFn: (body) => apiRequest<AlertSettings>('PUT', '/api/account/alerts', body),
    onSuccess: set,
  });
}

export function useChooseAlerts() {
  const set = useSetAlerts();
  return useMutation<AlertSettings, unknown, string[]>({
    mutationFn: (kinds) => apiRequest<AlertSettings>('PATCH', '/api/account/alerts', { kinds }),
    onSuccess: set,
  });
}

export function useRemoveAlerts() {
  const qc = useQueryClient();
  return useMutation<void, unknown, void>({
    mutationFn: () => apiRequest<void>('DELETE', '/api/account/alerts'),
    onSuccess: () => {
      qc.setQueryData<AlertSettings | null>(ALERTS_KEY, (s) => (s ? { ...s, webhook: null } : s));
      return qc.invalidateQueries({ queryKey: ALERTS_KEY });
    },
  });
}
