import { useState } from 'react';
import { Trash2, UserCheck, UserX } from 'lucide-react';
import { formatUptime } from '../../lib/admin/dashboard';
import { useAdminUsers, useDeleteUser, useUpdateUser, type ThrottledAccount } from '../../lib/admin/users';
import { formatDate } from '../../lib/format';
import { toast } from '../../lib/toast';
import type { Role, User } from '../../lib/types';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { INPUT_CLASS } from '../ui/Input';
import { cn } from '../ui/cn';
import { ConfirmDialog, SectionCard, SkeletonTableRows, StatCard, TD, TH, TableScroll, failToast } from './shared';

const ROLES: Role[] = ['user', 'moderator', 'admin'];

export function userCounts(users: readonly User[]) {
  return {
    total: users.length,
    active: users.filter((u) => u.isActive).length,
    admins: users.filter((u) => u.role === 'admin').length,
  };
}

export function UsersTab() {
  const { data, isLoading, isError } = useAdminUsers();
  const update = useUpdateUser();
  const remove = useDeleteUser();
  const [toDelete, setToDelete] = useState<User | null>(null);
  const users = data?.users ?? [];
  const counts = userCounts(users);
  const throttled = new Map<number, ThrottledAccount>((data?.throttled ?? []).map((t) => [t.userId, t]));

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
        <StatCard testId="users-total" label="Total Users" value={isLoading ? '—' : counts.total.toLocaleString()} />
        <StatCard testId="users-active" label="Active Users" value={isLoading ? '—' : counts.active.toLocaleString()} />
        <StatCard testId="users-admins" label="Admins" value={isLoading ? '—' : counts.admins.toLocaleString()} />
      </div>
      <SectionCard title="User Management" description="Change roles, suspend or delete accounts.">
        {isError ? (
          <p className="text-sm text-red-400">Failed to load users.</p>
        ) : !isLoading && users.length === 0 ? (
          <p className="py-8 text-center text-slate-400">No users found</p>
        ) : (
          <>
          {throttled.size > 0 && (
            <p data-testid="users-throttled" className="mb-3 rounded-lg border border-amber-500/40 bg-amber-500/10 p-3 text-sm text-amber-200">
              {throttled.size === 1 ? '1 account has' : `${throttled.size} accounts have`} sign-ins held back after failed attempts. New
              browsers must wait; the owner can still sign in from a browser they used before.
            </p>
          )}
          <TableScroll label="Users">
            <table className="w-full min-w-[760px] border-collapse">
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
                          className={cn(INPUT_CLASS, 'h-9 w-40 capitalize')}
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
          </>
        )}
      </SectionCard>
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
