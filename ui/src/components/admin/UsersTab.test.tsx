import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import { UsersTab } from './UsersTab';
import { chooseOption, renderWithClient } from '../../test/helpers';
import { lastToast, mockApi } from './test-utils';
import type { User } from '../../lib/types';

const users: User[] = [
  { id: 1, username: 'alice', email: 'alice@example.com', robloxId: '123', role: 'admin', isActive: true, createdAt: '2026-01-01T00:00:00Z', lastLogin: '2026-03-01T00:00:00Z' },
  { id: 2, username: 'bob', email: null, robloxId: null, role: 'user', isActive: true, createdAt: '2026-01-02T00:00:00Z', lastLogin: null },
  { id: 3, username: 'carol', email: null, robloxId: null, role: 'moderator', isActive: false, createdAt: '2026-01-03T00:00:00Z', lastLogin: null },
];

const counts = { total: 3, active: 2, admins: 1, adminsWithSecondFactor: 0 };
const page = (extra: object = {}) => ({ users, counts, nextCursor: null, throttled: [], secondFactors: [], secondFactorRequired: false, ...extra });

function row(id: number) {
  return within(document.querySelector(`[data-user-id="${id}"]`) as HTMLElement);
}

describe('Users tab', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows 5 skeleton rows while loading', async () => {
    mockApi({ '/api/admin/users': () => new Promise(() => {}) });
    renderWithClient(<UsersTab />);
    await waitFor(() => expect(screen.getAllByTestId('skeleton-row')).toHaveLength(5));
  });

  it('shows counts and user rows', async () => {
    mockApi({ '/api/admin/users': page() });
    renderWithClient(<UsersTab />);
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    expect(screen.getByTestId('users-total').textContent).toContain('3');
    expect(screen.getByTestId('users-active').textContent).toContain('2');
    expect(screen.getByTestId('users-admins').textContent).toContain('1');
    expect(row(1).getByText('alice@example.com')).toBeTruthy();
    expect(row(1).getByText('Roblox ID: 123')).toBeTruthy();
    expect(row(2).getByText('No email')).toBeTruthy();
    expect(row(2).getByText('Never')).toBeTruthy();
    expect(row(3).getByText('Inactive')).toBeTruthy();
    expect(row(3).getByRole('button', { name: 'Activate carol' })).toBeTruthy();
    expect(screen.queryByTestId('users-throttled')).toBeNull();
    expect(screen.queryByTestId('user-throttled')).toBeNull();
  });

  it('marks accounts whose sign-ins are held back, with the failures and the wait', async () => {
    mockApi({ '/api/admin/users': page({ throttled: [{ userId: 2, username: 'bob', failedSignIns: 9, retryAfterSeconds: 75 }] }) });
    renderWithClient(<UsersTab />);
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    expect(screen.getByTestId('users-throttled').textContent).toContain('1 account has sign-ins held back after failed attempts.');
    expect(row(2).getByTestId('user-throttled').textContent).toBe('Sign-ins held back: 9 failed, wait 1m 15s');
    expect(row(1).queryByTestId('user-throttled')).toBeNull();
  });

  it('shows the empty state', async () => {
    mockApi({ '/api/admin/users': page({ users: [], counts: { total: 0, active: 0, admins: 0, adminsWithSecondFactor: 0 } }) });
    renderWithClient(<UsersTab />);
    expect(await screen.findByText('No users found')).toBeTruthy();
  });

  it('changes roles, suspends and deletes through the right endpoints', async () => {
    const api = mockApi({
      '/api/admin/users': page(),
      'PATCH /api/admin/users/2': (body) => ({ status: 200, body: { success: true, user: { ...users[1], ...(body as object) } } }),
      'DELETE /api/admin/users/3': { success: true },
    });
    renderWithClient(<UsersTab />);
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));

    chooseOption(row(2).getByLabelText('Role of bob'), 'moderator');
    await waitFor(() => expect(api.callsTo('PATCH', '/api/admin/users/2')).toHaveLength(1));
    expect(api.callsTo('PATCH', '/api/admin/users/2')[0].body).toEqual({ role: 'moderator' });
    await waitFor(() => expect(lastToast()?.title).toBe('User updated successfully'));

    await waitFor(() => expect((row(2).getByRole('button', { name: 'Suspend bob' }) as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(row(2).getByRole('button', { name: 'Suspend bob' }));
    await waitFor(() => expect(api.callsTo('PATCH', '/api/admin/users/2')).toHaveLength(2));
    expect(api.callsTo('PATCH', '/api/admin/users/2')[1].body).toEqual({ isActive: false });

    fireEvent.click(row(3).getByRole('button', { name: 'Delete carol' }));
    const dialog = await screen.findByRole('dialog');
    expect(api.callsTo('DELETE', '/api/admin/users/3')).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(api.callsTo('DELETE', '/api/admin/users/3')).toHaveLength(1));
    await waitFor(() => expect(lastToast()?.title).toBe('User deleted successfully'));
    // every mutation refreshes the list
    expect(api.callsTo('GET', '/api/admin/users').length).toBeGreaterThan(1);
  });

  it('shows the server reason when an update is refused', async () => {
    mockApi({
      '/api/admin/users': page(),
      'PATCH /api/admin/users/1': { status: 409, body: { error: 'Cannot demote the last active admin' } },
      'DELETE /api/admin/users/1': { status: 409, body: { error: 'Cannot delete the last active admin' } },
    });
    renderWithClient(<UsersTab />);
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    chooseOption(row(1).getByLabelText('Role of alice'), 'user');
    await waitFor(() =>
      expect(lastToast()).toMatchObject({ title: 'Failed to update user', description: 'Cannot demote the last active admin', variant: 'destructive' }),
    );
    await waitFor(() => expect((row(1).getByRole('button', { name: 'Suspend alice' }) as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(row(1).getByRole('button', { name: 'Suspend alice' }));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Failed to update user status' }));
    fireEvent.click(row(1).getByRole('button', { name: 'Delete alice' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Failed to delete user', description: 'Cannot delete the last active admin' }));
  });

  it('shows who has a second factor and resets one after a confirmation', async () => {
    const api = mockApi({
      '/api/admin/users': page({ secondFactors: [{ userId: 3, methods: ['passkey', 'totp'] }], secondFactorRequired: true }),
      'DELETE /api/admin/users/3/second-factors': { success: true },
    });
    renderWithClient(<UsersTab />);
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    expect(row(3).getByTestId('user-second-factor').textContent).toBe('2FA: security key + app');
    expect(row(1).queryByTestId('user-second-factor')).toBeNull();
    expect(row(1).queryByRole('button', { name: /second factor/ })).toBeNull();
    expect(screen.getByTestId('users-second-factors').textContent).toContain('0 of 1 admin has a second factor. This site requires one');
    fireEvent.click(row(3).getByRole('button', { name: 'Remove the second factor of carol' }));
    expect(api.callsTo('DELETE', '/api/admin/users/3/second-factors')).toHaveLength(0);
    fireEvent.click(await screen.findByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(api.callsTo('DELETE', '/api/admin/users/3/second-factors')).toHaveLength(1));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Second factor removed' }));
  });

  it('loads the next page after the last one shown, and says how many of all are shown', async () => {
    const api = mockApi({
      '/api/admin/users': page({ users: users.slice(0, 2), counts: { ...counts, total: 3 }, nextCursor: '2' }),
      '/api/admin/users?cursor=2': page({ users: users.slice(2), counts: { ...counts, total: 3 } }),
    });
    renderWithClient(<UsersTab />);
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(2));
    expect(screen.getByTestId('shown-count').textContent).toBe('Showing 2 of 3 users');
    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    expect(api.callsTo('GET', '/api/admin/users?cursor=2')).toHaveLength(1);
    expect(screen.getByTestId('shown-count').textContent).toBe('Showing 3 of 3 users');
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('sends the search once typing pauses, and the role and status filters, to the server', async () => {
    const api = mockApi({
      '/api/admin/users': page(),
      '/api/admin/users?q=car': page({ users: [users[2]] }),
      '/api/admin/users?q=car&role=moderator': page({ users: [users[2]] }),
      '/api/admin/users?q=car&role=moderator&status=active': page({ users: [] }),
    });
    renderWithClient(<UsersTab />);
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(3));
    const search = screen.getByLabelText('Username starts with');
    for (const text of ['c', 'ca', 'car']) fireEvent.input(search, { target: { value: text } });
    await waitFor(() => expect(screen.getAllByTestId('user-row')).toHaveLength(1));
    expect(api.calls.filter((c) => c.path.startsWith('/api/admin/users?q=')).map((c) => c.path)).toEqual(['/api/admin/users?q=car']);
    chooseOption(screen.getByLabelText('Role'), 'moderator');
    await waitFor(() => expect(api.callsTo('GET', '/api/admin/users?q=car&role=moderator')).toHaveLength(1));
    chooseOption(screen.getByLabelText('Status'), 'active');
    expect(await screen.findByText('No users match these filters')).toBeTruthy();
    expect(screen.getByTestId('users-total').textContent).toContain('3');
  });
});
