// The Users tab: accounts, their roles and whether they may sign in.
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api';
import { ADMIN_KEYS, adminQuery, useAdminMutation, type Schemas } from './queries';

export type UserPatch = Schemas['UserChange'];
/** An account whose sign-ins from new browsers are held back after failed attempts. */
export type ThrottledAccount = Schemas['ThrottledAccount'];

export function useAdminUsers() {
  return useQuery<Schemas['UserList']>(adminQuery(ADMIN_KEYS.users));
}

export function useUpdateUser() {
  return useAdminMutation<{ id: number; patch: UserPatch }, Schemas['UserResult']>(({ id, patch }) =>
    apiRequest('PATCH', `/api/admin/users/${id}`, patch),
  );
}

/** Removes an account's second factors and ends its sessions (a staff member who lost them). */
export function useResetSecondFactors() {
  return useAdminMutation<number>((id) => apiRequest('DELETE', `/api/admin/users/${id}/second-factors`));
}

/** The words for an account's second factors. */
export function secondFactorLabel(methods: readonly string[]): string {
  const names = methods.map((m) => (m === 'totp' ? 'app' : m === 'passkey' ? 'security key' : m));
  return names.length ? `2FA: ${names.join(' + ')}` : '';
}

export function useDeleteUser() {
  return useAdminMutation<number>((id) => apiRequest('DELETE', `/api/admin/users/${id}`));
}
