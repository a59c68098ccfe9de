import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/preact';
import { SystemHealth } from './SettingsTab';
import { renderWithClient } from '../../test/helpers';
import { mockApi } from './test-utils';

const health = (disk: 'ok' | 'full') => ({
  status: disk === 'ok' ? 'ok' : 'degraded',
  version: '1.6.0',
  build: 'b',
  startedAt: '2026-11-24T20:00:00Z',
  database: 'ok',
  disk,
});

const checks = (detail: string, status: string) => ({
  checks: [
    { name: 'Database', status: 'ok', detail: 'SQLite answers; quick check passed' },
    { name: 'Data directory', status, detail },
  ],
});

describe('System Health', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('says the disk is full above the checks, with the data directory line', async () => {
    mockApi({
      '/api/health': health('full'),
      '/api/admin/health': checks('out of disk space since 2026-11-24T20:01:00Z: writes answer 507', 'error'),
    });
    renderWithClient(<SystemHealth />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('disk is full');
    expect(alert.textContent).toContain('507');
    await waitFor(() => expect(screen.getAllByTestId('health-check')).toHaveLength(2));
    expect(screen.getByText(/out of disk space since/)).toBeTruthy();
  });

  it('shows no alert while the disk has room', async () => {
    mockApi({ '/api/health': health('ok'), '/api/admin/health': checks('writable; 900 MiB free', 'ok') });
    renderWithClient(<SystemHealth />);
    await waitFor(() => expect(screen.getAllByTestId('health-check')).toHaveLength(2));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
