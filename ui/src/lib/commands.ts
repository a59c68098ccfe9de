// Pure filtering, category and paging logic of the commands database (no DOM, no React).
import type { Command, Permission } from './types';

export const PERMISSIONS: readonly Permission[] = ['OA', 'OR', 'UP', 'NE'];
export const MIN_RATINGS: readonly number[] = [1, 2, 3, 4];
/** Cards per page on phones and narrow screens (one, two or three columns). */
export const COMMANDS_PAGE_SIZE = 12;
/** Cards per page on wide screens (eight rows of three): more of the list without paging. */
export const COMMANDS_PAGE_SIZE_WIDE = 24;
/** Where COMMANDS_PAGE_SIZE_WIDE applies (Tailwind's xl; the list has three columns from lg). */
export const WIDE_SCREEN_MEDIA = '(min-width: 1280px)';
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

// ------------------------------------------------------------------------------------------------
// The page's state in the address: /commands?search=fly&category=Movement&permission=OA&rating=2&page=3
// and /commands?command=fly (one command, shown and highlighted). Every value comes from whoever wrote
// the link, so parsing never throws and falls back to the default of anything it does not recognise.

/** What the address says about the commands list. */
export interface CommandsQuery {
  search: string;
  /** A category name, or null for every category. */
  category: string | null;
  permission: Permission | '';
  /** Minimum average rating: 0 (any) or one of MIN_RATINGS. */
  minRating: number;
  /** 1-based; the list clamps it to its last page. */
  page: number;
  /**
   * The page size `page` counts in (written beside a page past the first): a link made on a wide
   * screen (24 a page) opened on a phone (12) shows the page that starts with the same command.
   */
  per?: number | null;
  /** The name of a linked command (?command=NAME), shown and highlighted; null for none. */
  command: string | null;
}

export const DEFAULT_COMMANDS_QUERY: CommandsQuery = {
  search: '',
  category: null,
  permission: '',
  minRating: 0,
  page: 1,
  per: null,
  command: null,
};

/** The parameter names in the address, in the order they are written. */
export const COMMANDS_PARAMS = {
  search: 'search',
  category: 'category',
  permission: 'permission',
  minRating: 'rating',
  page: 'page',
  per: 'per',
  command: 'command',
} as const;

/** Longer searches, categories and names are cut: no command is named like a paragraph. */
export const MAX_QUERY_TEXT = 100;
/** A page number above this is read as this (the list then shows its last page). */
export const MAX_PAGE = 10_000;

function text(value: string | null): string {
  return (value ?? '').slice(0, MAX_QUERY_TEXT);
}

/**
 * Reads the commands list's state from a query string ("?a=b" or "a=b"). Unknown or malformed values
 * give the default: page=-1, page=abc or page=2.5 is page 1; permission=XX is every permission; a
 * category not in `categories` (when given) is every category, one that differs only in case is that
 * category.
 */
export function parseCommandsQuery(query: string, { categories }: { categories?: readonly string[] } = {}): CommandsQuery {
  const params = new URLSearchParams(query);
  const q = { ...DEFAULT_COMMANDS_QUERY };

  q.search = text(params.get(COMMANDS_PARAMS.search));

  const category = text(params.get(COMMANDS_PARAMS.category)).trim();
  if (category) {
    if (!categories) q.category = category;
    else q.category = categories.find((c) => c === category) ?? categories.find((c) => c.toLowerCase() === category.toLowerCase()) ?? null;
  }

  const permission = (params.get(COMMANDS_PARAMS.permission) ?? '').trim().toUpperCase();
  q.permission = (PERMISSIONS as readonly string[]).includes(permission) ? (permission as Permission) : '';

  const rating = Number((params.get(COMMANDS_PARAMS.minRating) ?? '').trim());
  q.minRating = MIN_RATINGS.includes(rating) ? rating : 0;

  const page = (params.get(COMMANDS_PARAMS.page) ?? '').trim();
  if (/^\d+$/.test(page)) q.page = Math.min(MAX_PAGE, Math.max(1, Number(page)));

  const per = Number((params.get(COMMANDS_PARAMS.per) ?? '').trim());
  q.per = per === COMMANDS_PAGE_SIZE || per === COMMANDS_PAGE_SIZE_WIDE ? per : null;

  const command = text(params.get(COMMANDS_PARAMS.command)).trim();
  q.command = command || null;
  return q;
}

/** The query string (without "?") of a state; defaults are left out, so the plain list is "". */
export function commandsQueryString(q: Partial<CommandsQuery>): string {
  const params = new URLSearchParams();
  if (q.search) params.set(COMMANDS_PARAMS.search, q.search);
  if (q.category) params.set(COMMANDS_PARAMS.category, q.category);
  if (q.permission) params.set(COMMANDS_PARAMS.permission, q.permission);
  if (q.minRating && q.minRating > 0) params.set(COMMANDS_PARAMS.minRating, String(q.minRating));
  if (q.page && q.page > 1) {
    params.set(COMMANDS_PARAMS.page, String(Math.floor(q.page)));
    if (q.per) params.set(COMMANDS_PARAMS.per, String(q.per));
  }
  if (q.command) params.set(COMMANDS_PARAMS.command, q.command);
  return params.toString();
}

/** The address that shows one command, highlighted (what its Share button shares). */
export function commandLink(name: string): string {
  return `/commands?${COMMANDS_PARAMS.command}=${encodeURIComponent(name)}`;
}

/** The command a link names: the exact name, else the name in another case; undefined when none. */
export function findCommandByName(commands: readonly Command[], name: string): Command | undefined {
  const wanted = name.trim();
  if (!wanted) return undefined;
  return commands.find((c) => c.name === wanted) ?? commands.find((c) => c.name.toLowerCase() === wanted.toLowerCase());
}

/** The page (1-based) of the item at `index` (0-based). */
export function pageOfIndex(index: number, pageSize: number): number {
  return Math.floor(Math.max(0, index) / Math.max(1, pageSize)) + 1;
}

/** After the page size changes, the page that still shows the first item the old page showed. */
export function pageAfterResize(page: number, oldSize: number, newSize: number): number {
  return pageOfIndex((Math.max(1, Math.floor(page) || 1) - 1) * Math.max(1, oldSize), newSize);
}

/** What the commands page shows for an address. */
export interface CommandsView {
  /** The filters in effect (a linked command hidden by the address's filters clears them). */
  filter: Pick<CommandsQuery, 'search' | 'category' | 'permission' | 'minRating'>;
  /** Every command the filters let through. */
  filtered: Command[];
  /** The page shown. */
  current: Page<Command>;
  /** The linked command, on `current`. */
  highlight: Command | null;
  /** The linked name no command has (the page says so, politely). */
  missing: string | null;
  /** The address named a command its filters hid, so the filters were cleared. */
  filtersCleared: boolean;
  /** The address of this view (query string without "?"): what the page writes back when it differs. */
  canonical: string;
}

/**
 * Resolves an address into what the page shows. A linked command is always shown: on the page it falls on
 * under the address's filters, or, when those filters hide it, on its page of the whole list.
 */
export function resolveCommandsView(commands: readonly Command[], query: CommandsQuery, pageSize: number): CommandsView {
  let filter: CommandsView['filter'] = {
    search: query.search,
    category: query.category,
    permission: query.permission,
    minRating: query.minRating,
  };
  let filtered = filterCommands(commands, filter);
  const target = query.command ? findCommandByName(commands, query.command) : undefined;
  if (target) {
    let index = filtered.indexOf(target);
    const filtersCleared = index < 0;
    if (filtersCleared) {
      filter = { search: '', category: null, permission: '', minRating: 0 };
      filtered = [...commands];
      index = filtered.indexOf(target);
    }
    const current = paginate(filtered, pageOfIndex(index, pageSize), pageSize);
    // The command decides the page, so the address names the command and not the page.
    const canonical = commandsQueryString({ ...filter, command: target.name });
    return { filter, filtered, current, highlight: target, missing: null, filtersCleared, canonical };
  }
  // A page counted in another page size (a link from another screen) starts with the same command here.
  const page = query.per && query.per !== pageSize ? pageAfterResize(query.page, query.per, pageSize) : query.page;
  const current = paginate(filtered, page, pageSize);
  const missing = query.command;
  const canonical = commandsQueryString({ ...filter, page: current.page, per: pageSize, command: missing });
  return { filter, filtered, current, highlight: null, missing, filtersCleared: false, canonical };
}
