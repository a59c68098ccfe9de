// What every admin tab's data shares: the query keys, the freshness of admin queries (ADMIN_STALE_TIME) and
// mutations that refresh every admin query (and the active banner) after a change.
import { useEffect, useState } from 'react';
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ADMIN_STALE_TIME } from '../queryClient';
import type { components } from '../api/schema';

/** The answers of the admin endpoints, as the server's OpenAPI document types them. */
export type Schemas = components['schemas'];

export const ADMIN_KEYS = {
  check: ['/api/admin/check-key'],
  stats: ['/api/admin/stats'],
  advertisements: ['/api/admin/advertisements'],
  activeBanner: ['/api/admin/active-banner'],
  users: ['/api/admin/users'],
  loginLogs: ['/api/admin/login-logs'],
  appLogs: ['/api/admin/app-logs'],
  exceptions: ['/api/admin/exceptions'],
  settings: ['/api/admin/settings'],
  keys: ['/api/admin/keys'],
  health: ['/api/admin/health'],
  backups: ['/api/admin/backups'],
  abuseReports: ['/api/admin/abuse-reports'],
} as const;

export function adminQuery(queryKey: readonly string[], enabled = true) {
  return { queryKey, staleTime: ADMIN_STALE_TIME, enabled };
}

/** Refreshes every admin query except the access check, and the active banner. */
export function invalidateAdmin(qc: QueryClient) {
  return qc.invalidateQueries({
    predicate: (q) => {
      const head = q.queryKey[0];
      return typeof head === 'string' && head.startsWith('/api/admin/') && head !== ADMIN_KEYS.check[0];
    },
  });
}

export function useAdminMutation<TVars, TData = unknown>(fn: (vars: TVars) => Promise<TData>) {
  const qc = useQueryClient();
  return useMutation<TData, unknown, TVars>({
    mutationFn: fn,
    onSettled: () => invalidateAdmin(qc),
  });
}

/** The current time, re-read every `intervalMs` (the admin countdowns tick every second). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return now;
}

