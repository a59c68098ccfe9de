import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import { FollowButton } from './FollowButton';
import { PlayerHistory } from './PlayerHistory';
import { renderWithClient } from '../../test/helpers';
import { lastToast, mockApi } from '../admin/test-utils';
import type { FollowList, PlayerEvent, PlayerSummary } from '../../lib/follows';

const USER = { id: 7, username: 'fan13', email: null, robloxId: null, role: 'user', isActive: true, createdAt: '2026-01-01T00:00:00Z', lastLogin: null };

function player(over: Partial<PlayerSummary> = {}): PlayerSummary {
  return {
    userId: 1234,
    username: 'MidFan',
    displayName: 'MidFan',
    classification: 'Regular',
    generation: 'MIDGEN',
    isVeteran: false,
    isNewgen: false,
    elcCount: 0,
    banned: false,
    checkedAt: '2026-11-20T12:00:00Z',
    ...over,
  };
}

function list(players: PlayerSummary[]): FollowList {
  return { follows: players.map((p) => ({ player: p, followedAt: '2026-11-20T12:00:00Z', newEvents: [] })), max: 50, recheckHours: 6 };
}

const signIn = () => (document.cookie = 'fanhub_hint_user=1; path=/');

/** The button once it can be pressed (it waits for the list of follows). */
async function ready(name: string) {
  const button = (await screen.findByRole('button', { name })) as HTMLButtonElement;
  await waitFor(() => expect(button.disabled).toBe(false));
  return button;
}

describe('Follow on a newgen result', () => {
  beforeEach(() => {
    document.cookie = 'fanhub_hint_user=; path=/; max-age=0';
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    document.cookie = 'fanhub_hint_user=; path=/; max-age=0';
  });

  it('signed out: a link to sign in, and nothing asked of the server', async () => {
    const api = mockApi({});
    renderWithClient(<FollowButton userId={1234} username="MidFan" />);
    const link = await screen.findByRole('link', { name: 'Sign in to follow' });
    expect(link.getAttribute('href')).toBe('/login?next=%2Fnewgen-detector%3Fusername%3DMidFan');
    expect(api.calls).toHaveLength(0);
  });

  it('signed in: Follow sends the id, then "Following" with a one-click Unfollow that sends the DELETE', async () => {
    signIn();
    let followed: PlayerSummary[] = [];
    const api = mockApi({
      '/api/auth/user': USER,
      '/api/account/follows': () => list(followed),
      'POST /api/account/follows': () => {
        followed = [player()];
        return { status: 201, body: { following: true, player: player(), count: 1, max: 50 } };
      },
      'DELETE /api/account/follows/1234': () => {
        followed = [];
        return { status: 204 };
      },
    });
    renderWithClient(<FollowButton userId={1234} username="MidFan" />);
    fireEvent.click(await ready('Follow MidFan'));
    await screen.findByText('Following');
    expect(api.callsTo('POST', '/api/account/follows')[0].body).toEqual({ userId: 1234 });
    expect(lastToast().title).toBe('Following MidFan');
    const unfollow = screen.getByRole('button', { name: 'Unfollow MidFan' });
    expect(unfollow.textContent).toBe('Unfollow');
    await waitFor(() => expect(document.activeElement).toBe(unfollow));

    fireEvent.click(unfollow);
    await screen.findByRole('button', { name: 'Follow MidFan' });
    expect(api.callsTo('DELETE', '/api/account/follows/1234')).toHaveLength(1);
    expect(screen.queryByText('Following')).toBeNull();
  });

  it("at the limit (the 51st follow): the server's sentence and detail under the button", async () => {
    signIn();
    mockApi({
      '/api/auth/user': USER,
      '/api/account/follows': list(Array.from({ length: 50 }, (_, i) => player({ userId: 10 + i, username: `Fan${i}` }))),
      'POST /api/account/follows': {
        status: 409,
        body: {
          error: 'You follow the most players an account may follow.',
          message: 'An account may follow 50 players: unfollow one to follow another.',
        },
      },
    });
    renderWithClient(<FollowButton userId={1234} username="MidFan" />);
    fireEvent.click(await ready('Follow MidFan'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(
      'You follow the most players an account may follow. An account may follow 50 players: unfollow one to follow another.',
    );
    expect(screen.getByRole('button', { name: 'Follow MidFan' })).toBeTruthy();
  });

  it('a banned player offers no Follow (the server refuses it), but one followed before can be undone', async () => {
    signIn();
    mockApi({ '/api/auth/user': USER, '/api/account/follows': list([]) });
    const { unmount } = renderWithClient(<FollowButton userId={1234} username="MidFan" banned />);
    await waitFor(() => expect(screen.queryByTestId('follow-loading')).toBeNull());
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByRole('button', { name: 'Follow MidFan' })).toBeNull();
    unmount();

    mockApi({ '/api/auth/user': USER, '/api/account/follows': list([player({ banned: true })]) });
    renderWithClient(<FollowButton userId={1234} username="MidFan" banned />);
    expect(await screen.findByRole('button', { name: 'Unfollow MidFan' })).toBeTruthy();
  });
});

describe("a player's history on the result", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  const ev = (id: number, over: Partial<PlayerEvent> = {}): PlayerEvent => ({
    id,
    userId: 1234,
    kind: 'elc_badge',
    before: null,
    after: `Badge ${id}`,
    badgeId: id,
    awardedAt: `2013-0${id}-10T08:00:00Z`,
    baseline: false,
    noticedAt: '2026-11-20T12:00:00Z',
    ...over,
  });

  it('shows nothing when the site knows nothing of the player', async () => {
    const api = mockApi({ '/api/players/1234/history': { userId: 1234, events: [] } });
    const { container } = renderWithClient(<PlayerHistory userId={1234} checkedAt="a" />);
    await waitFor(() => expect(api.calls).toHaveLength(1));
    expect(container.textContent).toBe('');
  });

  it('lists the first 5 changes newest first, and all of them with "Show all"; badges owned when first seen are left to the badge list', async () => {
    const owned = ev(8, { awardedAt: '2012-01-10T08:00:00Z', baseline: true });
    const events = [ev(7), ev(6), ev(5), ev(4), ev(3), ev(2), owned, ev(1, { kind: 'first_seen', after: 'MidFan', awardedAt: null, badgeId: null })];
    mockApi({ '/api/players/1234/history': { userId: 1234, events } });
    renderWithClient(<PlayerHistory userId={1234} checkedAt="a" />);
    await screen.findByRole('heading', { name: 'History' });
    expect(screen.getAllByTestId('history-event').map((li) => li.textContent)).toEqual([
      'Earned Badge 7 on Jul 10, 2013',
      'Earned Badge 6 on Jun 10, 2013',
      'Earned Badge 5 on May 10, 2013',
      'Earned Badge 4 on Apr 10, 2013',
      'Earned Badge 3 on Mar 10, 2013',
    ]);
    const toggle = screen.getByRole('button', { name: 'Show all (7)' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(screen.getAllByTestId('history-event')).toHaveLength(7);
    expect(screen.getAllByTestId('history-event')[6].textContent).toBe('First seen here on Nov 20, 2026');
    expect(screen.getByRole('button', { name: 'Show fewer' }).getAttribute('aria-expanded')).toBe('true');
  });
});
