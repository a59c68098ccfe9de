const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const UNITS: [number, string][] = [
  [DAY, 'day'],
  [HOUR, 'hour'],
  [MINUTE, 'minute'],
  [SECOND, 'second'],
];

/**
 * 'Expired' when nothing is left, otherwise the largest whole unit remaining:
 * "1 day remaining", "2 days remaining", "3 hours remaining", "1 minute remaining", "45 seconds remaining".
 * Less than one second left (but more than zero) reads "1 second remaining".
 */
export function formatRemaining(msRemaining: number): string {
  if (!Number.isFinite(msRemaining) || msRemaining <= 0) return 'Expired';
  for (const [size, unit] of UNITS) {
    if (msRemaining >= size) {
      const n = Math.floor(msRemaining / size);
      return `${n} ${unit}${n === 1 ? '' : 's'} remaining`;
    }
  }
  return '1 second remaining';
}

/** Milliseconds from `now` until the RFC3339 time `until` (negative when past; NaN input reads as past). */
export function msUntil(until: string | null | undefined, now: number = Date.now()): number {
  if (!until) return 0;
  const t = new Date(until).getTime();
  return Number.isNaN(t) ? 0 : t - now;
}
