// Becoming and stopping being an admin in this browser: the access check, a verified key, signing out.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, getQueryFn } from '../api';
import { CURRENT_USER_KEY, hasSessionHint } from '../auth';
import { ADMIN_STALE_TIME } from '../queryClient';
import { ADMIN_KEYS, invalidateAdmin, type Schemas } from './queries';

export type AdminCheck = Schemas['CheckKey'];

/** Is this browser already an admin (admin session cookie or signed-in admin user)? null when not. */
export function useAdminCheck() {
  return useQuery<AdminCheck | null>({
    queryKey: ADMIN_KEYS.check,
    queryFn: getQueryFn<AdminCheck>({ on401: 'returnNull' }),
    staleTime: ADMIN_STALE_TIME,
    // Only a browser holding an admin session or a signed-in account can already be an admin.
    enabled: hasSessionHint('fanhub_hint_admin') || hasSessionHint('fanhub_hint_user'),
  });
}

export function useVerifyKey() {
  const qc = useQueryClient();
  return useMutation<Schemas['Success'], unknown, string>({
    mutationFn: (key) => apiRequest('POST', '/api/admin/verify-key', { key }),
    onSuccess: () => {
      qc.setQueryData<AdminCheck>(ADMIN_KEYS.check, { admin: true, via: 'key' });
      invalidateAdmin(qc);
    },
  });
}

/**
 * Sign out of the admin panel. An admin session (a verified key) is ended by POST /api/admin/logout; a signed-in
 * admin account by the account's own sign-out, which ends both.
 */
export function useAdminSignOut() {
  const qc = useQueryClient();
  return useMutation<unknown, unknown, AdminCheck['via'] | undefined>({
    mutationFn: (via) => apiRequest('POST', via === 'user' ? '/api/auth/logout' : '/api/admin/logout'),
    onSuccess: (_data, via) => {
      qc.setQueryData(ADMIN_KEYS.check, null);
      qc.removeQueries({
        predicate: (q) => {
          const head = q.queryKey[0];
          return typeof head === 'string' && head.startsWith('/api/admin/') && head !== ADMIN_KEYS.check[0] && head !== ADMIN_KEYS.activeBanner[0];
        },
      });
      if (via === 'user') qc.setQueryData(CURRENT_USER_KEY, null);
    },
  });
}
