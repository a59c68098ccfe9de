// Pure filtering, category and paging logic of the commands database (no DOM, no React).
import type { Command, Permission } from './types';

export const PERMISSIONS: readonly Permission[] = ['OA', 'OR', 'UP', 'NE'];
export const MIN_RATINGS: readonly number[] = [1, 2, 3, 4];
export const COMMANDS_PAGE_SIZE = 12;
/** At most 3 examples are shown per command. */
export const MAX_EXAMPLES = 3;

export interface CommandFilter {
  /** Matched against name or description, case-insensitively; surrounding blanks ignored. */
  search?: string;
  /** Exact category, or null/'' for every category. */
  category?: string | null;
  /** One permission level, or null/'' for every level. */
  permission?: Permission | '' | null;
  /** Minimum average rating (0 or absent = any, unrated commands included). */
  minRating?: number;
}

export function filterCommands(commands: readonly Command[], filter: CommandFilter = {}): Command[] {
  const needle = (filter.search ?? '').trim().toLowerCase();
  const category = filter.category || null;
  const permission = filter.permission || null;
  const minRating = filter.minRating && filter.minRating > 0 ? filter.minRating : 0;
  return commands.filter((c) => {
    if (needle && !c.name.toLowerCase().includes(needle) && !c.description.toLowerCase().includes(needle)) {
      return false;
    }
    if (category && c.category !== category) return false;
    if (permission && c.permission !== permission) return false;
    if (minRating > 0 && !(c.ratingCount > 0 && c.avgRating >= minRating)) return false;
    return true;
  });
}

/** The distinct categories, sorted (locale-aware, case-insensitive). */
export function categoriesOf(commands: readonly Command[]): string[] {
  const set = new Set<string>();
  for (const c of commands) if (c.category) set.add(c.category);
  return [...set].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' }));
}

export interface Page<T> {
  items: T[];
  /** The page actually shown (clamped to 1..totalPages). */
  page: number;
  /** At least 1, even for an empty list. */
  totalPages: number;
  total: number;
}

/** 1-based paging; an out-of-range page is clamped into range. */
export function paginate<T>(list: readonly T[], page: number, pageSize: number): Page<T> {
  const size = Math.max(1, Math.floor(pageSize) || 1);
  const totalPages = Math.max(1, Math.ceil(list.length / size));
  const current = Math.min(totalPages, Math.max(1, Math.floor(page) || 1));
  const start = (current - 1) * size;
  return { items: list.slice(start, start + size), page: current, totalPages, total: list.length };
}

/** Hero claim: 110 -> 100, 57 -> 50, 7 -> 0 (below 10 the caller shows the exact count). */
export function roundedCount(n: number): number {
  if (!Number.isFinite(n) || n <= 0) return 0;
  if (n >= 100) return Math.floor(n / 100) * 100;
  return Math.floor(n / 10) * 10;
}

/** "100+" for 110, "50+" for 57, the exact number below 10 (never "0+"). */
export function commandClaim(n: number): string {
  const r = roundedCount(n);
  return r > 0 ? `${r}+` : String(Math.max(0, Math.floor(n) || 0));
}
