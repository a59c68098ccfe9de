/** Joins class names, skipping falsy values. Accepts Preact's class/className prop values. */
export function cn(...parts: unknown[]): string {
  return parts.filter((p) => typeof p === 'string' && p).join(' ');
}
