import { describe, expect, it } from 'vitest';
import { ApiError } from './api';
import {
  alertFieldErrors,
  describeEvent,
  errorWithDetail,
  followErrorText,
  historyPath,
  kindLabel,
  mergeNewEvents,
  momentText,
  orderedKinds,
  recheckText,
  toggleKind,
  type PlayerEvent,
} from './follows';

function event(over: Partial<PlayerEvent>): PlayerEvent {
  return {
    id: 1,
    userId: 42,
    kind: 'first_seen',
    before: null,
    after: null,
    badgeId: null,
    awardedAt: null,
    baseline: false,
    noticedAt: '2026-11-20T12:00:00Z',
    ...over,
  };
}

const error = (status: number, body: unknown) => new ApiError(status, 'x', JSON.stringify(body));

describe('player changes in words', () => {
  it('says each kind as the pages show it', () => {
    expect(describeEvent(event({ kind: 'first_seen', after: 'MidFan' }))).toBe('First seen here on Nov 20, 2026');
    expect(describeEvent(event({ kind: 'elc_badge', after: 'Early Builder', badgeId: 7, awardedAt: '2010-01-02T23:30:00Z' }))).toBe(
      'Earned Early Builder on Jan 2, 2010',
    );
    expect(describeEvent(event({ kind: 'classification', before: 'Regular', after: 'ELC Veteran' }))).toBe(
      'Was Regular until Nov 20, 2026, now ELC Veteran',
    );
    expect(describeEvent(event({ kind: 'username', before: 'OldName', after: 'NewName' }))).toBe(
      'Renamed from OldName to NewName (noticed Nov 20, 2026)',
    );
    expect(describeEvent(event({ kind: 'display_name', before: 'Old Shown', after: 'New Shown' }))).toBe('Display name Old Shown → New Shown');
  });

  it('gives a badge owned before the site read its dates (baseline) the date it was earned', () => {
    expect(describeEvent(event({ kind: 'elc_badge', after: 'First Election', awardedAt: '2009-05-01T00:00:00Z', baseline: true }))).toBe(
      'Earned First Election on May 1, 2009',
    );
  });

  it('falls back to the day it was noticed when Roblox gave no award date', () => {
    expect(describeEvent(event({ kind: 'elc_badge', after: 'Early Builder' }))).toBe('Earned Early Builder (noticed Nov 20, 2026)');
  });

  it('reads the award day in UTC (Roblox days), whatever the time of day', () => {
    expect(describeEvent(event({ kind: 'elc_badge', after: 'B', awardedAt: '2013-01-10T23:59:59Z' }))).toBe('Earned B on Jan 10, 2013');
  });

  it('merges the changes first shown with those that came since, newest first, each once', () => {
    const a = event({ id: 3 });
    const b = event({ id: 5 });
    const c = event({ id: 9 });
    expect(mergeNewEvents([b, a], [c, b]).map((e) => e.id)).toEqual([9, 5, 3]);
    expect(mergeNewEvents(undefined, [a]).map((e) => e.id)).toEqual([3]);
    expect(mergeNewEvents([a], [])).toEqual([a]);
  });

  it('says a moment of today as its time, another with its date', () => {
    const now = new Date(2026, 10, 20, 18, 0);
    expect(momentText(new Date(2026, 10, 20, 5, 18).toISOString(), 'never', now)).toBe('today at 5:18 AM');
    expect(momentText(new Date(2026, 10, 19, 5, 18).toISOString(), 'never', now)).toBe('Nov 19, 2026, 5:18 AM');
    expect(momentText(null, 'Nothing yet', now)).toBe('Nothing yet');
  });

  it('asks for the history at the player id', () => {
    expect(historyPath(5184687640)).toBe('/api/players/5184687640/history');
  });
});

describe('alert kinds', () => {
  const offered = ['elc_badge', 'classification', 'name'];

  it('labels the three kinds, and an unknown one as the server names it', () => {
    expect(offered.map(kindLabel)).toEqual(['New ELC badge', 'Classification change', 'Name change']);
    expect(kindLabel('rank')).toBe('rank');
  });

  it('keeps the server order without duplicates or kinds it does not offer', () => {
    expect(orderedKinds(['name', 'elc_badge', 'name', 'rank'], offered)).toEqual(['elc_badge', 'name']);
    expect(toggleKind(['name'], 'elc_badge', true, offered)).toEqual(['elc_badge', 'name']);
    expect(toggleKind(['elc_badge', 'name'], 'name', false, offered)).toEqual(['elc_badge']);
    expect(toggleKind(['name'], 'name', false, offered)).toEqual([]);
  });
});

describe('the re-check note', () => {
  it("uses the server's hours", () => {
    expect(recheckText(6)).toBe('Checked again about every 6 hours.');
    expect(recheckText(1)).toBe('Checked again about every 1 hour.');
    expect(recheckText(1.5)).toBe('Checked again about every 1.5 hours.');
    expect(recheckText(0.5)).toBe('Checked again about every 30 minutes.');
    expect(recheckText(0.0005)).toBe('Checked again every few seconds.');
    expect(recheckText(0)).toBe('Checked again now and then.');
  });
});

describe('refusals in words', () => {
  it("shows the limit's sentence and its detail", () => {
    const limit = error(409, {
      error: 'You follow the most players an account may follow.',
      message: 'An account may follow 50 players: unfollow one to follow another.',
    });
    expect(followErrorText(limit)).toBe(
      'You follow the most players an account may follow. An account may follow 50 players: unfollow one to follow another.',
    );
    expect(followErrorText(error(409, { error: 'That player is banned on Roblox: there is nothing to follow.' }))).toBe(
      'That player is banned on Roblox: there is nothing to follow.',
    );
    expect(followErrorText(new ApiError(401, 'Unauthorized', ''))).toBe('Your sign-in has ended: sign in again to follow players.');
    expect(followErrorText(new Error('network'))).toBe('The player could not be followed. Try again.');
  });

  it("reads the alerts form's field errors", () => {
    expect(alertFieldErrors(error(400, { error: 'x', fields: { url: 'Not Discord.', kinds: 'Choose one.', other: 'y' } }))).toEqual({
      url: 'Not Discord.',
      kinds: 'Choose one.',
    });
    expect(alertFieldErrors(error(502, { error: 'Discord did not take the test message; nothing was saved.' }))).toEqual({});
    expect(errorWithDetail(error(502, { error: 'Discord did not take it.', message: 'Timed out. Try again in a minute.' }), 'f')).toBe(
      'Discord did not take it. Timed out. Try again in a minute.',
    );
    expect(errorWithDetail(new Error('x'), 'fallback')).toBe('fallback');
  });
});
