// The Users tab: accounts, their roles and whether they may sign in.
import { apiRequest } from '../api';
import { itemsOfPages, useAdminPages } from './paging';
import { ADMIN_KEYS, useAdminMutation, type Schemas } from './queries';

export type UserPatch = Schemas['UserChange'];
/** An account whose sign-ins from new browsers are held back after failed attempts. */
export type ThrottledAccount = Schemas['ThrottledAccount'];

export type UserPage = Schemas['UserList'];
export type UserCounts = Schemas['UserCounts'];

/** What the Users tab asks the server for: a username prefix (any case), a role, active or suspended. */
export interface UserFilters {
  q: string;
  role: '' | 'user' | 'moderator' | 'admin';
  status: '' | 'active' | 'suspended';
}

export const NO_USER_FILTERS: UserFilters = { q: '', role: '', status: '' };

/** The accounts page by page (oldest first; A to Z while searching by name). */
export function useAdminUsers(filters: UserFilters = NO_USER_FILTERS) {
  return useAdminPages<UserPage>(ADMIN_KEYS.users[0], { q: filters.q, role: filters.role, status: filters.status });
}

/** What the pages loaded so far show: their accounts, throttled accounts and second factors, with the first page's figures. */
export function usersOfPages(pages: readonly UserPage[] | undefined) {
  const list = pages ?? [];
  return {
    users: itemsOfPages(list, (p) => p.users),
    throttled: itemsOfPages(list, (p) => (p.throttled ?? []).map((t) => ({ ...t, id: t.userId }))),
    secondFactors: itemsOfPages(list, (p) => (p.secondFactors ?? []).map((f) => ({ ...f, id: f.userId }))),
    counts: list[0]?.counts,
    secondFactorRequired: list[0]?.secondFactorRequired ?? false,
  };
}

/** Whether any filter is set (the empty state then says no account matches, rather than none exists). */
export function hasUserFilters(f: UserFilters): boolean {
  return !!(f.q.trim() || f.role || f.status);
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
