// The address's query string as page state (routes have no parameters; ?key=value carries what a link
// should reopen): read it with wouter, write it with history entries a person can go Back through.
import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';

export interface QueryWriteOptions {
  /** Replace the current history entry instead of adding one (e.g. while typing in a search box). */
  replace?: boolean;
  /** The history entry's state (history.state), e.g. to know later that this page added the entry. */
  state?: unknown;
}

/**
 * The current query string (without "?") and a function that sets it on the current path. Setting the
 * query the address already has does nothing (no duplicate history entry).
 */
export function useQueryString(): [string, (query: string, options?: QueryWriteOptions) => void] {
  const search = useSearch();
  const [path, navigate] = useLocation();
  const setQuery = useCallback(
    (query: string, { replace = false, state = null }: QueryWriteOptions = {}) => {
      const current = location.search.replace(/^\?/, '');
      if (query === current) return;
      navigate(query ? `${path}?${query}` : path, { replace, state });
    },
    [path, navigate],
  );
  return [search, setQuery];
}
