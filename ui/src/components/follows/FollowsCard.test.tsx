import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import { FollowsCard } from './FollowsCard';
import { renderWithClient } from '../../test/helpers';
import { lastToast, mockApi } from '../admin/test-utils';
import type { FollowList, PlayerEvent } from '../../lib/follows';

const badge: PlayerEvent = {
  id: 9,
  userId: 1234,
  kind: 'elc_badge',
  before: null,
  after: 'Early Builder',
  badgeId: 11,
  awardedAt: '2013-01-10T08:30:30Z',
  baseline: false,
  noticedAt: '2026-11-20T12:00:00Z',
};
const reclassified: PlayerEvent = { ...badge, id: 8, kind: 'classification', before: 'Regular', after: 'ELC Veteran', badgeId: null, awardedAt: null };

function answer(newEvents: PlayerEvent[], over: Partial<FollowList> = {}): FollowList {
  return {
    follows: [
      {
        player: {
          userId: 1234,
          username: 'MidFan',
          displayName: 'Mid the Fan',
          classification: 'ELC Veteran',
          generation: 'MIDGEN',
          isVeteran: true,
          isNewgen: false,
          elcCount: 1,
          banned: false,
          checkedAt: '2026-11-20T12:00:00Z',
        },
        followedAt: '2026-11-19T12:00:00Z',
        newEvents,
      },
    ],
    max: 50,
    recheckHours: 6,
    ...over,
  };
}

describe('the account page: followed players', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists each player with the verdict, the last check and the changes as new; marks them seen once, keeping them shown', async () => {
    let seen = false;
    let following = true;
    const api = mockApi({
      '/api/account/follows': () => (following ? answer(seen ? [] : [badge, reclassified]) : { follows: [], max: 50, recheckHours: 6 }),
      'POST /api/account/follows/seen': () => {
        seen = true;
        return { status: 204 };
      },
      'DELETE /api/account/follows/1234': () => {
        following = false;
        return { status: 204 };
      },
    });
    renderWithClient(<FollowsCard />);
    const item = await screen.findByTestId('followed-player');
    const name = within(item).getByRole('link', { name: 'MidFan' });
    expect(name.getAttribute('href')).toBe('/newgen-detector?username=MidFan');
    expect(within(item).getByTestId('followed-classification').textContent).toBe('ELC Veteran');
    expect(within(item).getByText('Mid the Fan')).toBeTruthy();
    expect(within(item).getByTestId('followed-checked').textContent).toMatch(/^1 ELC badge · Last checked Nov 20, 2026, \d{1,2}:\d{2} [AP]M$/);
    expect(within(item).getAllByTestId('new-event').map((li) => li.textContent)).toEqual([
      'Earned Early Builder on Jan 10, 2013',
      'Was Regular until Nov 20, 2026, now ELC Veteran',
    ]);
    expect(screen.getByTestId('follow-count').textContent).toBe('Following 1 of 50');
    expect(screen.getByTestId('recheck-note').textContent).toBe('Checked again about every 6 hours.');
    await waitFor(() => expect(api.callsTo('POST', '/api/account/follows/seen')).toHaveLength(1));
    // Seen up to the newest change shown: one noticed after the list was read stays new.
    expect(api.callsTo('POST', '/api/account/follows/seen')[0].body).toEqual({ upTo: 9 });

    fireEvent.click(within(item).getByRole('button', { name: 'Unfollow MidFan' }));
    await screen.findByTestId('follows-empty');
    expect(api.callsTo('DELETE', '/api/account/follows/1234')).toHaveLength(1);
    expect(lastToast().title).toBe('Unfollowed MidFan');
    expect(screen.getByTestId('follow-count').textContent).toBe('Following 0 of 50');
    expect(api.callsTo('POST', '/api/account/follows/seen')).toHaveLength(1);
  });

  it('keeps the changes highlighted after they are marked seen, when the list is asked again (an unfollow)', async () => {
    let seen = false;
    let both = true;
    const other = answer([]).follows[0];
    const second = { ...other, player: { ...other.player, userId: 99, username: 'OtherFan', displayName: 'OtherFan' } };
    mockApi({
      '/api/account/follows': () => {
        const list = answer(seen ? [] : [badge]);
        return { ...list, follows: both ? [...list.follows, second] : list.follows };
      },
      'POST /api/account/follows/seen': () => {
        seen = true;
        return { status: 204 };
      },
      'DELETE /api/account/follows/99': () => {
        both = false;
        return { status: 204 };
      },
    });
    renderWithClient(<FollowsCard />);
    await waitFor(() => expect(screen.getAllByTestId('followed-player')).toHaveLength(2));
    await waitFor(() => expect(seen).toBe(true));
    fireEvent.click(screen.getByRole('button', { name: 'Unfollow OtherFan' }));
    await waitFor(() => expect(screen.getAllByTestId('followed-player')).toHaveLength(1));
    expect(screen.getAllByTestId('new-event').map((li) => li.textContent)).toEqual(['Earned Early Builder on Jan 10, 2013']);
  });

  it('does not mark anything seen when nothing is new; an empty list says how to follow', async () => {
    const api = mockApi({ '/api/account/follows': answer([]) });
    renderWithClient(<FollowsCard />);
    const item = await screen.findByTestId('followed-player');
    expect(within(item).queryByTestId('new-events')).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect(api.callsTo('POST', '/api/account/follows/seen')).toHaveLength(0);
    cleanup();

    mockApi({ '/api/account/follows': { follows: [], max: 50, recheckHours: 6 } });
    renderWithClient(<FollowsCard />);
    const empty = await screen.findByTestId('follows-empty');
    expect(empty.textContent).toContain('Check a player on the Newgen Detector, then press Follow on their result.');
    expect(within(empty).getByRole('link', { name: 'Open the Newgen Detector' }).getAttribute('href')).toBe('/newgen-detector');
  });

  it('says so when the list cannot be loaded', async () => {
    mockApi({ '/api/account/follows': { status: 500, body: { error: 'Something went wrong on our side.' } } });
    renderWithClient(<FollowsCard />);
    expect((await screen.findByRole('alert')).textContent).toBe('Something went wrong on our side. Reload the page to try again.');
  });
});
