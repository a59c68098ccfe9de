import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import Admin from './Admin';
import { renderWithClient, site } from '../test/helpers';
import { lastToast, mockApi } from '../components/admin/test-utils';

const stats = {
  totalUsers: 12,
  newUsersToday: 3,
  pageViews: 4567,
  pageViewsToday: 89,
  adminSessions: 1,
  lastAdminAccess: null,
  startedAt: new Date(Date.now() - 65_000).toISOString(),
  uptimeSeconds: 65,
  ads: { approved: 2, pending: 1, active: 0 },
  scans: { running: 0, total: 4 },
  elcBadgesFound: 7,
  scanProgress: { processed: 5, total: 10 },
};
const banner = {
  banner: { isActive: false, backgroundColor: '#7c3aed', textColor: '#ffffff', borderColor: '#8b5cf6', advertisementId: null, expiresAt: null },
  advertisement: null,
};
const health = { status: 'ok', version: '1.0.0', build: 'abc123', startedAt: '2026-01-01T00:00:00Z', database: 'ok' };
const panelRoutes = {
  '/api/site': site,
  '/api/health': health,
  '/api/admin/stats': stats,
  '/api/admin/advertisements': { applications: [] },
  '/api/admin/active-banner': banner,
};

function keyInput() {
  return screen.getByLabelText('Admin Key') as HTMLInputElement;
}

describe('Admin gate', () => {
  beforeEach(() => window.history.replaceState(null, '', '/admin'));
  afterEach(() => {
    document.cookie = 'fanhub_hint_admin=; path=/; max-age=0';
    document.cookie = 'fanhub_hint_user=; path=/; max-age=0';
    cleanup();
    vi.unstubAllGlobals();
  });

  it('asks for a key, rejects an empty one, denies a wrong one and opens the panel for a right one', async () => {
    let verified = false;
    const api = mockApi({
      ...panelRoutes,
      '/api/admin/check-key': () => (verified ? { status: 200, body: { admin: true, via: 'key' } } : { status: 401, body: { error: 'Unauthorized' } }),
      'POST /api/admin/verify-key': (body) => {
        if ((body as { key: string }).key === 'good-key') {
          verified = true;
          return { status: 200, body: { success: true } };
        }
        return { status: 401, body: { error: 'Invalid admin key' } };
      },
    });
    renderWithClient(<Admin />);
    await screen.findByLabelText('Admin Key');
    expect(keyInput().type).toBe('password');

    fireEvent.click(screen.getByRole('button', { name: 'Access Admin Panel' }));
    expect(lastToast()).toMatchObject({ title: 'Error', description: 'Please enter an admin key' });
    expect(api.callsTo('POST', '/api/admin/verify-key')).toHaveLength(0);

    fireEvent.input(keyInput(), { target: { value: 'bad-key' } });
    fireEvent.submit(keyInput().form!);
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Access Denied', description: 'Invalid admin key', variant: 'destructive' }));

    fireEvent.input(keyInput(), { target: { value: '  good-key ' } });
    fireEvent.submit(keyInput().form!);
    await screen.findByText('Admin Control Center');
    expect(api.callsTo('POST', '/api/admin/verify-key').at(-1)!.body).toEqual({ key: 'good-key' });
    await waitFor(() => expect(screen.getByTestId('server-status').textContent).toBe('System Online'));
    expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual([
      'Dashboard', 'Advertisements', 'Users', 'Reports', 'Login Logs', 'App Logs', 'Exceptions',
      `${site.clan.name} Banner`, 'Settings',
    ]);
    expect(screen.getByRole('tabpanel')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('stat-total-users').textContent).toContain('12'));
    expect(screen.getByTestId('stat-total-users').textContent).toContain('+3 today');
    expect(screen.getByTestId('stat-page-views').textContent).toContain('+89 today');
    expect(screen.getByTestId('stat-scan-progress').textContent).toContain('5 / 10');
    expect(screen.getByTestId('admin-access-badge').textContent).toBe('ACTIVE');
    expect(screen.getByTestId('banner-status-default')).toBeTruthy();
  });

  it('reports a network failure of the verify call', async () => {
    mockApi({
      '/api/site': site,
      '/api/admin/check-key': { status: 401, body: { error: 'Unauthorized' } },
      'POST /api/admin/verify-key': () => Promise.reject(new TypeError('Failed to fetch')),
    });
    renderWithClient(<Admin />);
    await screen.findByLabelText('Admin Key');
    fireEvent.input(keyInput(), { target: { value: 'k' } });
    fireEvent.submit(keyInput().form!);
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Error', description: 'Failed to verify admin key' }));
  });

  it('does not ask the server when no session hint cookie exists', async () => {
    const api = mockApi({ ...panelRoutes, '/api/admin/check-key': { admin: true, via: 'session' } });
    renderWithClient(<Admin />);
    await screen.findByLabelText('Admin Key');
    expect(api.callsTo('GET', '/api/admin/check-key')).toHaveLength(0);
  });

  it('skips the gate for an existing admin session', async () => {
    const api = mockApi({ ...panelRoutes, '/api/admin/check-key': { admin: true, via: 'session' } });
    document.cookie = 'fanhub_hint_admin=1; path=/';
    renderWithClient(<Admin />);
    await screen.findByText('Admin Control Center');
    expect(screen.queryByLabelText('Admin Key')).toBeNull();
    expect(api.callsTo('POST', '/api/admin/verify-key')).toHaveLength(0);
  });

  it('Sign out ends the admin session (an account admin signs out of the account) and shows the gate', async () => {
    for (const via of ['session', 'user'] as const) {
      const api = mockApi({
        ...panelRoutes,
        '/api/admin/check-key': { admin: true, via },
        'POST /api/admin/logout': { success: true },
        'POST /api/auth/logout': { success: true },
      });
      document.cookie = 'fanhub_hint_admin=1; path=/';
      renderWithClient(<Admin />);
      await screen.findByText('Admin Control Center');
      fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
      await screen.findByLabelText('Admin Key');
      await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Signed out', description: 'You left the admin panel.' }));
      expect(api.callsTo('POST', via === 'user' ? '/api/auth/logout' : '/api/admin/logout')).toHaveLength(1);
      expect(api.callsTo('POST', via === 'user' ? '/api/admin/logout' : '/api/auth/logout')).toHaveLength(0);
      cleanup();
    }
  });

  it('auto-submits ?key= and removes it from the address', async () => {
    window.history.replaceState(null, '', '/admin?key=url-key&tab=x');
    const api = mockApi({
      ...panelRoutes,
      '/api/admin/check-key': { status: 401, body: { error: 'Unauthorized' } },
      'POST /api/admin/verify-key': { success: true },
    });
    renderWithClient(<Admin />);
    await waitFor(() => expect(window.location.search).toBe('?tab=x'));
    await screen.findByText('Admin Control Center');
    expect(api.callsTo('POST', '/api/admin/verify-key')[0].body).toEqual({ key: 'url-key' });
  });

  it('shows the loading screen while the panel data loads', async () => {
    mockApi({
      ...panelRoutes,
      '/api/admin/check-key': { admin: true, via: 'user' },
      '/api/admin/stats': () => new Promise(() => {}),
    });
    document.cookie = 'fanhub_hint_user=1; path=/';
    renderWithClient(<Admin />);
    expect(await screen.findByText('Loading Admin Panel...')).toBeTruthy();
  });

  for (const [how, answer, state, text] of [
    ['status ok', health, 'online', 'System Online'],
    ['status degraded', { ...health, status: 'degraded', database: 'error' }, 'degraded', 'System Degraded'],
    ['a 503', { status: 503, body: { error: 'Service unavailable' } }, 'unreachable', 'Server Unreachable'],
    ['no answer', () => Promise.reject(new TypeError('Failed to fetch')), 'unreachable', 'Server Unreachable'],
  ] as const) {
    it(`the header's server badge says ${text} (${state}) when /api/health gives ${how}`, async () => {
      mockApi({ ...panelRoutes, '/api/health': answer, '/api/admin/check-key': { admin: true, via: 'session' } });
      document.cookie = 'fanhub_hint_admin=1; path=/';
      renderWithClient(<Admin />);
      await screen.findByText('Admin Control Center');
      const badge = screen.getByTestId('server-status');
      await waitFor(() => expect(badge.getAttribute('data-state')).toBe(state));
      expect(badge.textContent).toBe(text);
      expect(badge.getAttribute('role')).toBe('status');
    });
  }
});
