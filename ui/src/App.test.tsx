import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import App from './App';
import { queryClient } from './lib/queryClient';
import { toast, dismissToast } from './lib/toast';
import { site } from './test/helpers';


function respond(path: string): unknown {
  if (path === '/api/site') return site;
  if (path === '/api/health') return { status: 'ok', version: '1', build: 'build-42', startedAt: '2026-01-01T00:00:00Z', database: 'ok' };
  if (path === '/api/stats') return { users: 1, monthlyVisitors: 1, pageViews: 5, commands: 0, guides: 0, discordMembers: null, startedAt: '' };
  if (path === '/api/admin/active-banner')
    return { banner: { isActive: false, ...site.defaultBanner, advertisementId: null, expiresAt: null }, advertisement: null };
  return [];
}

beforeEach(() => {
  queryClient.clear();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string) => new Response(JSON.stringify(respond(String(input))), { headers: { 'content-type': 'application/json' } })),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  act(() => dismissToast());
});

describe('App shell', () => {
  it('shows the 404 screen and the shell for an unknown path', async () => {
    history.pushState(null, '', '/no-such-page');
    render(<App />);
    expect(await screen.findByText('404 Page Not Found')).toBeTruthy();
    expect(screen.getByText('Did you forget to add the page to the router?')).toBeTruthy();
    await screen.findByText('build-42');
    expect(screen.getByText(site.version.label)).toBeTruthy();
    expect(screen.getByText(site.version.status)).toBeTruthy();
    expect(screen.getByText(site.credits[0].name)).toBeTruthy();
    expect(screen.getByText(site.copyright)).toBeTruthy();
    const admin = screen.getAllByText('Admin')[0].closest('a')!;
    expect(admin.getAttribute('href')).toBe('/admin');
    const game = screen.getByText('Play Game').closest('a')!;
    expect(game.getAttribute('href')).toBe(site.links.game);
    expect(game.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await screen.findByText('EXCLUSIVE')).toBeTruthy();
    expect(screen.getByText(site.clan.name)).toBeTruthy();
  });

  it('opens the shortcuts panel from the floating button and closes it with Esc', async () => {
    history.pushState(null, '', '/no-such-page');
    render(<App />);
    fireEvent.click(screen.getByLabelText('Keyboard shortcuts'));
    expect(screen.getByRole('dialog', { name: 'Keyboard Shortcuts' })).toBeTruthy();
    fireEvent.keyDown(document, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('shows a toast in the live region', async () => {
    history.pushState(null, '', '/no-such-page');
    render(<App />);
    act(() => {
      toast({ title: 'Hello there', description: 'More' });
    });
    const region = screen.getByRole('region', { name: 'Notifications' });
    expect(region.getAttribute('aria-live')).toBe('polite');
    expect(await screen.findByText('Hello there')).toBeTruthy();
  });
});
