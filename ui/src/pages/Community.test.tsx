import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/preact';
import Community from './Community';
import { renderWithClient, site, stats, stubFetch } from '../test/helpers';

describe('Community page', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows measured stats, creators, links, factions, facts and join buttons', async () => {
    stubFetch({ '/api/site': site, '/api/stats': stats });
    renderWithClient(<Community />);
    await waitFor(() => expect(screen.getByTestId('stat-users').textContent).toContain((1234).toLocaleString()));
    expect(screen.getByTestId('stat-monthlyVisitors').textContent).toContain((5678).toLocaleString());
    expect(screen.getByTestId('stat-commands').textContent).toContain('110');
    expect(screen.getByTestId('stat-guides').textContent).toContain('7');

    expect(await screen.findAllByTestId('creator-video-card')).toHaveLength(3);
    expect(screen.getAllByTestId('official-link')[0].getAttribute('href')).toBe('https://example.com/group');
    const factions = document.getElementById('factions')!;
    expect(factions).toBeTruthy();
    expect(factions.querySelectorAll('[data-testid="faction-card"]')).toHaveLength(4);
    expect(screen.getByText('Guards')).toBeTruthy();
    expect(screen.getAllByTestId('fun-fact')).toHaveLength(2);
    expect(screen.getByRole('link', { name: /Play the Game/ }).getAttribute('href')).toBe(site.links.game);
    expect(screen.getByRole('link', { name: /Join the Chat Community/ }).getAttribute('href')).toBe(site.links.community);
  });

  it('does not invent figures when the stats fail', async () => {
    stubFetch({ '/api/site': site, '/api/stats': { status: 500, body: { error: 'x' } } });
    renderWithClient(<Community />);
    expect(await screen.findByText('Failed to load community stats.')).toBeTruthy();
    expect(screen.getByTestId('stat-users').textContent).toContain('—');
  });
});
