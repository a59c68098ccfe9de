// The Dashboard tab: the server's measured figures and its uptime.
import { useQuery } from '@tanstack/react-query';
import { ADMIN_KEYS, adminQuery, type Schemas } from './queries';

export type AdminStats = Schemas['AdminStats'];

export function useAdminStats(enabled = true) {
  return useQuery<AdminStats>(adminQuery(ADMIN_KEYS.stats, enabled));
}

/** "3d 4h 5m 6s" (leading zero units dropped; seconds always shown). */
export function formatUptime(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(totalSeconds) ? totalSeconds : 0));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  const sec = s % 60;
  const parts: string[] = [];
  if (d) parts.push(`${d}d`);
  if (d || h) parts.push(`${h}h`);
  if (d || h || m) parts.push(`${m}m`);
  parts.push(`${sec}s`);
  return parts.join(' ');
}

/** Seconds since `startedAt` at `now`; falls back to the server's figure when the date is unreadable. */
export function uptimeSecondsAt(startedAt: string | null | undefined, now: number, fallback = 0): number {
  const t = startedAt ? new Date(startedAt).getTime() : NaN;
  return Number.isNaN(t) ? fallback : Math.max(0, (now - t) / 1000);
}
