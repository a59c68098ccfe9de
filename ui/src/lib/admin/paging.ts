// The admin lists paged by key (users, advertisements, login logs, abuse reports): the server answers one
// page and a `nextCursor`; "Load more" asks for the page after it. Search and filters go to the server
// (the search text after a pause in typing), and a change of them starts again from the first page.
import { useEffect, useState } from 'react';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { throwIfNotOk } from '../api';
import { ADMIN_STALE_TIME } from '../queryClient';

/** The filters of a list as query parameters; empty ones are left out. */
export type ListParams = Record<string, string | number | null | undefined>;

/** How long the search box waits after the last keystroke before asking the server. */
export const SEARCH_DEBOUNCE_MS = 300;

/** `path?…` with the non-empty filters (trimmed) and the cursor, in a stable order; the bare path when none. */
export function adminListUrl(path: string, params: ListParams, cursor?: string | null): string {
  const query = new URLSearchParams();
  for (const [name, raw] of Object.entries(params)) {
    const value = raw === null || raw === undefined ? '' : String(raw).trim();
    if (value) query.set(name, value);
  }
  if (cursor) query.set('cursor', cursor);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** The items of every page loaded, in order, each once (a row may move to a later page between two loads). */
export function itemsOfPages<P, T extends { id: number }>(pages: readonly P[] | undefined, items: (page: P) => readonly T[]): T[] {
  const seen = new Set<number>();
  const all: T[] = [];
  for (const page of pages ?? []) {
    for (const item of items(page)) {
      if (!seen.has(item.id)) {
        seen.add(item.id);
        all.push(item);
      }
    }
  }
  return all;
}

/** One admin list paged by key: the pages loaded so far, `fetchNextPage` for "Load more". */
export function useAdminPages<P extends { nextCursor?: string | null }>(path: string, params: ListParams, enabled = true) {
  return useInfiniteQuery({
    queryKey: [path, params],
    queryFn: async ({ pageParam }) => {
      const res = await fetch(adminListUrl(path, params, pageParam), { credentials: 'include', cache: 'no-cache' });
      await throwIfNotOk(res);
      return (await res.json()) as P;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last: P) => last.nextCursor ?? null,
    staleTime: ADMIN_STALE_TIME,
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** `value`, once it has not changed for `ms` (the search box asks the server once per pause, not per key). */
export function useDebounced<T>(value: T, ms = SEARCH_DEBOUNCE_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
