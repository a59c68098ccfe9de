import { useState } from 'react';
import { Search, ShieldCheck, ShieldOff, Trash2, UserCheck, UserX } from 'lucide-react';
import { formatUptime } from '../../lib/admin/dashboard';
import { useDebounced } from '../../lib/admin/paging';
import {
  NO_USER_FILTERS,
  hasUserFilters,
  secondFactorLabel,
  useAdminUsers,
  useDeleteUser,
  useResetSecondFactors,
  useUpdateUser,
  usersOfPages,
  type ThrottledAccount,
  type UserFilters,
} from '../../lib/admin/users';
import { formatDate } from '../../lib/format';
import { toast } from '../../lib/toast';
import type { Role, User } from '../../lib/types';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { INPUT_CLASS } from '../ui/Input';
import { cn } from '../ui/cn';
import { ConfirmDialog, LoadMore, SectionCard, SkeletonTableRows, StatCard, TD, TH, TableScroll, failToast } from './shared';

const ROLES: Role[] = ['user', 'moderator', 'admin'];

export function UsersTab() {
  const [filters, setFilters] = useState<UserFilters>(NO_USER_FILTERS);
  const q = useDebounced(filters.q);
  const query = useAdminUsers({ ...filters, q });
  const { data, isLoading, isError, isFetching } = query;
  const update = useUpdateUser();
  const remove = useDeleteUser();
  const reset = useResetSecondFactors();
  const [toDelete, setToDelete] = useState<User | null>(null);
  const [toReset, setToReset] = useState<User | null>(null);
  const shown = usersOfPages(data?.pages);
  const users = shown.users;
  const factors = new Map<number, string[]>(shown.secondFactors.map((f) => [f.userId, f.methods]));
  const counts = shown.counts;
  const admins = counts?.admins ?? 0;
  const adminsWith = counts?.adminsWithSecondFactor ?? 0;
  const throttled = new Map<number, ThrottledAccount>(shown.throttled.map((t) => [t.userId, t]));
  const filtered = hasUserFilters(filters);

  function changeRole(user: User, role: Role) {
    if (role === user.role) return;
    update.mutate(
      { id: user.id, patch: { role } },
      {
        onSuccess: () => toast({ title: 'User updated successfully' }),
        onError: (err) => failToast('Failed to update user', err),
      },
    );
  }

  function toggleActive(user: User) {
    update.mutate(
      { id: user.id, patch: { isActive: !user.isActive } },
      {
        onSuccess: () => toast({ title: 'User updated successfully' }),
        onError: (err) => failToast('Failed to update user status', err),
      },
    );
  }

  function confirmReset() {
    const user = toReset;
    if (!user) return;
    reset.mutate(user.id, {
      onSuccess: () => {
        setToReset(null);
        toast({ title: 'Second factor removed', description: `${user.username} now signs in with the password alone.` });
      },
      onError: (err) => {
        setToReset(null);
        failToast('Failed to remove the second factor', err);
      },
    });
  }

  function confirmDelete() {
    const user = toDelete;
    if (!user) return;
    remove.mutate(user.id, {
      onSuccess: () => {
        setToDelete(null);
        toast({ title: 'User deleted successfully' });
      },
      onError: (err) => {
        setToDelete(null);
        failToast('Failed to delete user', err);
      },
    });
  }

  return (
    <div className="flex flex-col gap-4">
      <div className="grid grid-cols-3 gap-2 sm:gap-4">
        <StatCard testId="users-total" label="Total Users" value={counts ? counts.total.toLocaleString() : '—'} />
        <StatCard testId="users-active" label="Active Users" value={counts ? counts.active.toLocaleString() : '—'} />
        <StatCard testId="users-admins" label="Admins" value={counts ? counts.admins.toLocaleString() : '—'} />
      </div>
      <SectionCard title="User Management" description="Change roles, suspend or delete accounts.">
        <div className="mb-3 flex flex-col gap-2 sm:flex-row sm:items-end" role="search" aria-label="Filter users">
          <div className="flex min-w-0 flex-1 flex-col gap-1">
            <label htmlFor="users-search" className="text-xs text-slate-400">
              Username starts with
            </label>
            <div className="relative">
              <Search size={16} aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-slate-400" />
              <input
                id="users-search"
                type="search"
                maxLength={100}
                autoComplete="off"
                value={filters.q}
                onInput={(e) => setFilters((f) => ({ ...f, q: (e.currentTarget as HTMLInputElement).value }))}
                className={cn(INPUT_CLASS, 'h-9 w-full pl-9')}
              />
            </div>
          </div>
          <div className="flex gap-2">
            <div className="flex flex-col gap-1">
              <label htmlFor="users-role" className="text-xs text-slate-400">
                Role
              </label>
              <select
                id="users-role"
                value={filters.role}
                onChange={(e) => setFilters((f) => ({ ...f, role: (e.currentTarget as HTMLSelectElement).value as UserFilters['role'] }))}
                className={cn(INPUT_CLASS, 'h-9 w-36 capitalize')}
              >
                <option value="">All roles</option>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
            <div className="flex flex-col gap-1">
              <label htmlFor="users-status" className="text-xs text-slate-400">
                Status
              </label>
              <select
                id="users-status"
                value={filters.status}
                onChange={(e) => setFilters((f) => ({ ...f, status: (e.currentTarget as HTMLSelectElement).value as UserFilters['status'] }))}
                className={cn(INPUT_CLASS, 'h-9 w-36')}
              >
                <option value="">All</option>
                <option value="active">Active</option>
                <option value="suspended">Suspended</option>
              </select>
            </div>
          </div>
        </div>
        {isError ? (
          <p className="text-sm text-red-400">Failed to load users.</p>
        ) : !isLoading && users.length === 0 ? (
          <p className="py-8 text-center text-slate-400" data-testid="users-empty">
            {filtered ? 'No users match these filters' : 'No users found'}
          </p>
        ) : (
          <>
          {throttled.size > 0 && (
            <p data-testid="users-throttled" className="mb-3 rounded-lg border border-amber-500/40 bg-amber-500/10 p-3 text-sm text-amber-200">
              {throttled.size === 1 ? '1 account has' : `${throttled.size} accounts have`} sign-ins held back after failed attempts. New
              browsers must wait; the owner can still sign in from a browser they used before.
            </p>
          )}
          {counts && (
            <p data-testid="users-second-factors" className="mb-3 flex items-start gap-2 text-sm text-slate-300">
              <ShieldCheck size={16} aria-hidden="true" className="mt-0.5 shrink-0 text-violet-300" />
              <span>
                {adminsWith} of {admins} {admins === 1 ? 'admin has' : 'admins have'} a second factor.
                {shown.secondFactorRequired
                  ? ' This site requires one: admins without it cannot open the panel until they add one on their account page.'
                  : ' Start the server with --require-second-factor to require one for every admin.'}
              </span>
            </p>
          )}
          <TableScroll label="Users">
            <table className={cn('w-full min-w-[760px] border-collapse', isFetching && !isLoading && !query.isFetchingNextPage && 'opacity-70')}>
              <thead className="border-b border-slate-800">
                <tr>
                  <th scope="col" className={TH}>User</th>
                  <th scope="col" className={TH}>Role</th>
                  <th scope="col" className={TH}>Status</th>
                  <th scope="col" className={TH}>Last Login</th>
                  <th scope="col" className={TH}>Actions</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-800">
                {isLoading ? (
                  <SkeletonTableRows columns={5} />
                ) : (
                  users.map((u) => (
                    <tr key={u.id} data-testid="user-row" data-user-id={u.id}>
                      <td className={TD}>
                        <div className="flex items-center gap-3">
                          <span
                            aria-hidden="true"
                            className="flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-violet-600/30 font-semibold uppercase text-violet-200"
                          >
                            {u.username.charAt(0)}
                          </span>
                          <div className="min-w-0">
                            <div className="font-medium text-white">{u.username}</div>
                            <div className="text-xs text-slate-400">{u.email ? u.email : 'No email'}</div>
                            {u.robloxId && <div className="text-xs text-slate-400">Roblox ID: {u.robloxId}</div>}
                          </div>
                        </div>
                      </td>
                      <td className={TD}>
                        <select
                          aria-label={`Role of ${u.username}`}
                          value={u.role}
                          disabled={update.isPending}
                          onChange={(e) => changeRole(u, (e.currentTarget as HTMLSelectElement).value as Role)}
                          className={cn(INPUT_CLASS, 'h-9 w-40 min-w-[8.5rem] capitalize')}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td className={TD}>
                        <div className="flex flex-col items-start gap-1">
                          <Badge variant={u.isActive ? 'success' : 'destructive'}>{u.isActive ? 'Active' : 'Inactive'}</Badge>
                          {factors.has(u.id) && (
                            <Badge variant="default" data-testid="user-second-factor" className="whitespace-nowrap">
                              {secondFactorLabel(factors.get(u.id)!)}
                            </Badge>
                          )}
                          {throttled.has(u.id) && (
                            <Badge variant="warning" data-testid="user-throttled" className="whitespace-nowrap">
                              Sign-ins held back: {throttled.get(u.id)!.failedSignIns} failed, wait {formatUptime(throttled.get(u.id)!.retryAfterSeconds)}
                            </Badge>
                          )}
                        </div>
                      </td>
                      <td className={cn(TD, 'whitespace-nowrap text-slate-300')}>{formatDate(u.lastLogin)}</td>
                      <td className={TD}>
                        <div className="flex gap-2">
                          <Button
                            size="sm"
                            variant="outline"
                            disabled={update.isPending}
                            onClick={() => toggleActive(u)}
                            aria-label={`${u.isActive ? 'Suspend' : 'Activate'} ${u.username}`}
                          >
                            {u.isActive ? <UserX size={16} aria-hidden="true" /> : <UserCheck size={16} aria-hidden="true" />}
                            {u.isActive ? 'Suspend' : 'Activate'}
                          </Button>
                          {factors.has(u.id) && (
                            <Button
                              size="sm"
                              variant="outline"
                              onClick={() => setToReset(u)}
                              aria-label={`Remove the second factor of ${u.username}`}
                            >
                              <ShieldOff size={16} aria-hidden="true" /> Reset 2FA
                            </Button>
                          )}
                          <Button size="sm" variant="destructive" onClick={() => setToDelete(u)} aria-label={`Delete ${u.username}`}>
                            <Trash2 size={16} aria-hidden="true" /> Delete
                          </Button>
                        </div>
                      </td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </TableScroll>
          <LoadMore
            label="users"
            shown={users.length}
            total={filtered ? undefined : counts?.total}
            hasMore={!!query.hasNextPage}
            loading={query.isFetchingNextPage}
            onMore={() => query.fetchNextPage()}
          />
          </>
        )}
      </SectionCard>
      <ConfirmDialog
        open={!!toReset}
        title="Remove this second factor?"
        description={
          toReset
            ? `For when ${toReset.username} lost their phone, security keys and recovery codes: their authenticator app, security keys and recovery codes are removed and they are signed out everywhere. They then sign in with their password alone and can add a new one.`
            : undefined
        }
        confirmLabel={reset.isPending ? 'Removing...' : 'Remove'}
        destructive
        pending={reset.isPending}
        onConfirm={confirmReset}
        onClose={() => setToReset(null)}
      />
      <ConfirmDialog
        open={!!toDelete}
        title="Delete user?"
        description={toDelete ? `This permanently deletes the account "${toDelete.username}". This cannot be undone.` : undefined}
        confirmLabel={remove.isPending ? 'Deleting...' : 'Delete'}
        destructive
        pending={remove.isPending}
        onConfirm={confirmDelete}
        onClose={() => setToDelete(null)}
      />
    </div>
  );
}
