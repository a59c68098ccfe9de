import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import DiscordNews from './DiscordNews';
import { renderWithClient, site } from '../test/helpers';
import { mockApi } from '../components/admin/test-utils';
import type { ProductUpdates } from '../lib/discord';

const withProduct = { ...site, updates: { game: { title: 'Test Game' } } };

const summarised: ProductUpdates = {
  product: 'game',
  title: 'Test Game',
  configured: true,
  gameUpdates: ['Update 2.4: Added the desert map.', 'Maintenance on Tuesday at 09:00 UTC.'],
  communityHighlights: [],
  gameUpdatesSource: { source: 'ai', model: 'tiny-llm', generatedAt: '2026-11-23T06:00:00Z', messageCount: 3 },
  communityHighlightsSource: { source: 'extractive', model: null, generatedAt: '2026-11-23T06:01:00Z', messageCount: 1 },
};

describe('/discord-news', () => {
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('lists the summaries with their source and time, and the empty message of an empty list', async () => {
    mockApi({ '/api/site': withProduct, '/api/discord/game-updates': summarised });
    renderWithClient(<DiscordNews />);
    expect(await screen.findByText('Update 2.4: Added the desert map.')).toBeTruthy();
    expect(screen.getByText('No recent community highlights available')).toBeTruthy();
    expect(screen.getByTestId('game-game-source').textContent).toContain('AI summary (tiny-llm) of 3 messages');
    expect(screen.getByTestId('game-community-source').textContent).toContain('Extractive summary of 1 message,');
    expect(screen.getByText(/Updates refresh every 2 minutes/)).toBeTruthy();
  });

  it('says when Discord is not connected and shows both empty messages', async () => {
    const empty = { ...summarised, configured: false, gameUpdates: [], gameUpdatesSource: null, communityHighlightsSource: null };
    mockApi({ '/api/site': withProduct, '/api/discord/game-updates': empty });
    renderWithClient(<DiscordNews />);
    expect(await screen.findByText('No recent game updates available')).toBeTruthy();
    expect(screen.getByText('No recent community highlights available')).toBeTruthy();
    expect(screen.getByText(/has not connected its Discord channels/)).toBeTruthy();
  });

  it('shows both empty messages when the site lists no products', async () => {
    mockApi({ '/api/site': site });
    renderWithClient(<DiscordNews />);
    expect(await screen.findByText('No recent game updates available')).toBeTruthy();
    expect(screen.getByText('No recent community highlights available')).toBeTruthy();
  });

  it('refreshes on demand and reads Refreshing... for one second', async () => {
    const api = mockApi({ '/api/site': withProduct, '/api/discord/game-updates': summarised });
    renderWithClient(<DiscordNews />);
    await screen.findByText('Update 2.4: Added the desert map.');
    vi.useFakeTimers();
    const before = api.callsTo('GET', '/api/discord/game-updates').length;
    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    const busy = screen.getByRole('button', { name: 'Refreshing...' }) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    await act(async () => {
      vi.advanceTimersByTime(999);
    });
    expect(screen.getByRole('button', { name: 'Refreshing...' })).toBeTruthy();
    await act(async () => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeTruthy();
    vi.useRealTimers();
    await waitFor(() => expect(api.callsTo('GET', '/api/discord/game-updates').length).toBeGreaterThan(before));
  });

  it('an error loading the updates is said, not shown as empty lists', async () => {
    mockApi({ '/api/site': withProduct, '/api/discord/game-updates': { status: 500, body: { error: 'x' } } });
    renderWithClient(<DiscordNews />);
    expect(await screen.findByText(/updates could not be loaded/)).toBeTruthy();
    expect(screen.queryByText('No recent game updates available')).toBeNull();
  });
});
