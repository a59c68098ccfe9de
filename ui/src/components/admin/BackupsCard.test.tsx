import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import { BackupsCard } from './BackupsCard';
import { renderWithClient } from '../../test/helpers';
import { lastToast, mockApi } from './test-utils';

const list = {
  backups: [
    { name: 'fanhub-20261123-020000.tar', sizeBytes: 104_857_600, createdAt: '2026-11-23T02:00:00Z' },
    { name: 'fanhub-20261122-020000.tar', sizeBytes: 1536, createdAt: '2026-11-22T02:00:00Z' },
  ],
  every: '1d',
  keep: 7,
  directory: '/var/lib/fanhub/backups',
  lastSuccess: '2026-11-23T02:00:01Z',
  lastError: null,
};

describe('Backups card', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists the archives with size and a download link, and the schedule', async () => {
    mockApi({ '/api/admin/backups': list });
    renderWithClient(<BackupsCard />);
    await waitFor(() => expect(screen.getAllByTestId('backup-row')).toHaveLength(2));
    expect(screen.getByText('100 MB')).toBeTruthy();
    expect(screen.getByText('1.5 KB')).toBeTruthy();
    const link = screen.getByRole('link', { name: 'Download fanhub-20261123-020000.tar' });
    expect(link.getAttribute('href')).toBe('/api/admin/backups/fanhub-20261123-020000.tar');
    expect(screen.getByTestId('backup-schedule').textContent).toBe('Every 1d, keeping the newest 7.');
  });

  it('says when scheduled backups are off and when there are none', async () => {
    mockApi({ '/api/admin/backups': { ...list, backups: [], every: null } });
    renderWithClient(<BackupsCard />);
    expect(await screen.findByText('No backups yet')).toBeTruthy();
    expect(screen.getByTestId('backup-schedule').textContent).toContain('Scheduled backups are off');
  });

  it('Backup Now posts and toasts the new archive; a conflict shows the server sentence', async () => {
    const api = mockApi({
      '/api/admin/backups': list,
      'POST /api/admin/backups': { status: 201, body: list.backups[0] },
    });
    renderWithClient(<BackupsCard />);
    fireEvent.click(await screen.findByRole('button', { name: /Backup Now/ }));
    await waitFor(() => expect(lastToast()?.title).toBe('Backup Written'));
    expect(api.callsTo('POST', '/api/admin/backups')).toHaveLength(1);
    expect(lastToast()?.description).toContain('fanhub-20261123-020000.tar (100 MB)');

    cleanup();
    mockApi({
      '/api/admin/backups': list,
      'POST /api/admin/backups': { status: 409, body: { error: 'A backup is being written already. Try again when it is done.' } },
    });
    renderWithClient(<BackupsCard />);
    fireEvent.click(await screen.findByRole('button', { name: /Backup Now/ }));
    await waitFor(() => expect(lastToast()?.title).toBe('Backup failed'));
  });
});
