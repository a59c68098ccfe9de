import { QueryClient } from '@tanstack/react-query';
import { getQueryFn } from './api';

// Defaults: no refetch on focus, no interval refetch by default, never stale by default,
// no retries for queries or mutations. Pollers and admin queries set their own options.
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      queryFn: getQueryFn({ on401: 'throw' }),
      refetchOnWindowFocus: false,
      refetchInterval: false,
      staleTime: Infinity,
      retry: false,
    },
    mutations: { retry: false },
  },
});

/** Admin queries are fresh for 30 seconds. */
export const ADMIN_STALE_TIME = 30_000;

export const POLL = {
  activeBanner: 5_000,
  stats: 5_000,
  health: 10_000,
  badgeMonitor: 30_000,
  updates: 120_000,
} as const;
