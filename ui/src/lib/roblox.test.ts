import { afterEach, describe, expect, it, vi } from 'vitest';
import { abbreviateCount } from './format';
import {
  NETWORK_ERROR,
  badgeRefName,
  botPath,
  callBot,
  awardDatesRefused,
  chartBars,
  chartDays,
  chartDescription,
  describeSources,
  cleanUsername,
  filterBadges,
  formatAccountAge,
  formatDay,
  formatDays,
  formatMoment,
  imageSources,
  newgenPath,
  sourceAfterFailures,
  splitShown,
  type MonitoredBadge,
  buildVerdict,
  elcTerms,
  detectorPath,
  initialsOf,
  robloxProfileUrl,
  usernameProblem,
  type ClassificationRules,
  type NewgenCheck,
} from './roblox';

function badge(name: string, description: string, id = 1): MonitoredBadge {
  return {
    badgeId: id,
    name,
    description,
    imageUrl: null,
    imageFallbacks: [],
    rarity: 'easy',
    difficulty: 'Freebie',
    winRatePercentage: 90,
    awardedCount: 0,
    dailyStats: { today: 0, weekAverage: 0 },
    history: [],
    updatedAt: '2026-11-23T10:05:09Z',
  };
}

describe('counts and dates', () => {
  it('abbreviates counts (1K, 1.0M)', () => {
    expect(abbreviateCount(999)).toBe('999');
    expect(abbreviateCount(1000)).toBe('1K');
    expect(abbreviateCount(1500)).toBe('1.5K');
    expect(abbreviateCount(1_000_000)).toBe('1.0M');
    expect(abbreviateCount(2_345_678)).toBe('2.3M');
  });

  it('says days, with years past one year', () => {
    expect(formatDays(1)).toBe('1 day');
    expect(formatDays(0)).toBe('0 days');
    expect(formatAccountAge(30)).toBe('30 days');
    expect(formatAccountAge(3653)).toBe('3,653 days (10.0 years)');
  });

  it('formats a join date in UTC and refuses garbage', () => {
    expect(formatDay('2008-03-01T23:30:00Z')).toBe('Mar 1, 2008');
    expect(formatDay('nope')).toBe('Unknown');
    expect(formatDay(null)).toBe('Unknown');
  });

  it('formats a moment with its date only when it is not today', () => {
    const now = new Date('2026-11-23T12:00:00');
    expect(formatMoment('2026-11-23T10:05:09', now)).not.toMatch(/Nov/);
    expect(formatMoment('2026-11-20T10:05:09', now)).toMatch(/^Nov 20, /);
    expect(formatMoment(null, now)).toBe('never');
  });
});

describe('inputs and paths', () => {
  it('trims the username and ignores empty input', () => {
    expect(cleanUsername('  builder_1 ')).toBe('builder_1');
    expect(cleanUsername('   ')).toBeNull();
  });

  it('escapes the username in the path', () => {
    expect(newgenPath('a/b c')).toBe('/api/newgen-check/a%2Fb%20c');
    expect(botPath('analyze', 'x?y')).toBe('/api/discord-bot/analyze/x%3Fy');
    expect(botPath('check', 'Builder')).toBe('/api/discord-bot/check/Builder');
  });
});

describe('badge monitor helpers', () => {
  it('searches name and description, case-insensitively', () => {
    const list = [badge('Welcome', 'Join a server', 1), badge('Elected', 'Win an ELECTION', 2)];
    expect(filterBadges(list, 'election').map((b) => b.badgeId)).toEqual([2]);
    expect(filterBadges(list, 'WELC').map((b) => b.badgeId)).toEqual([1]);
    expect(filterBadges(list, '  ')).toHaveLength(2);
    expect(filterBadges(list, 'zzz')).toHaveLength(0);
  });

  it('names a global-stats badge, or none yet', () => {
    expect(badgeRefName('Welcome')).toBe('Welcome');
    expect(badgeRefName(null)).toBe('None yet');
  });

  const point = (date: string, pastDay: number) => ({ date, awardedCount: 1000 + pastDay, pastDay });

  it('lays out the 7 days ending at the newest snapshot, a missing day as null (across a month end)', () => {
    const days = chartDays([point('2026-12-02', 5), point('2026-11-28', 3), point('2026-11-20', 99)]);
    expect(days.map((d) => d.date)).toEqual(['2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02']);
    expect(days.map((d) => d.awarded)).toEqual([null, null, 3, null, null, null, 5]);
    expect(chartDays([])).toEqual([]);
    expect(chartDays([point('garbage', 1)])).toEqual([]);
  });

  it('scales the bars to the largest day, inside the box', () => {
    const points = Array.from({ length: 9 }, (_, i) => point(`2026-11-${String(10 + i).padStart(2, '0')}`, i));
    const bars = chartBars(chartDays(points), 140, 40);
    expect(bars).toHaveLength(7);
    expect(bars[0].date).toBe('2026-11-12');
    expect(bars[6].height).toBe(40);
    expect(bars[6].y).toBe(0);
    expect(bars[0].height).toBeCloseTo((2 / 8) * 40);
    expect(bars.every((b) => b.x >= 0 && b.x + b.width <= 140)).toBe(true);
  });

  it('draws an unmeasured day as an empty bar and says so in the text alternative', () => {
    const bars = chartBars([{ date: '2026-11-22', awarded: null }, { date: '2026-11-23', awarded: 0 }], 20, 10);
    expect(bars.map((b) => b.height)).toEqual([0, 0]);
    expect(chartDescription([{ date: '2026-11-22', awarded: null }, { date: '2026-11-23', awarded: 1234 }])).toBe(
      'Awards per day, last 2 days: Nov 22, 2026: not measured; Nov 23, 2026: 1,234',
    );
    expect(chartDescription([])).toBe('No award history recorded yet');
    expect(chartBars([], 10, 10)).toEqual([]);
  });

  it('reads a refusal of award dates from the server flag', () => {
    expect(awardDatesRefused({ available: false, unavailableReason: 'x' })).toBe(true);
    expect(awardDatesRefused({ available: true })).toBe(false);
  });
});

describe('image fallback chain', () => {
  it('tries the image, then each distinct alternative, then the placeholder', () => {
    const sources = imageSources('a.png', ['b.png', '', 'a.png', null, 'c.png']);
    expect(sources).toEqual(['a.png', 'b.png', 'c.png']);
    expect([0, 1, 2, 3, 4].map((n) => sourceAfterFailures(sources, n))).toEqual(['a.png', 'b.png', 'c.png', null, null]);
  });

  it('goes straight to the placeholder when there is no source', () => {
    expect(sourceAfterFailures(imageSources(null), 0)).toBeNull();
  });
});

describe('bot page helpers', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the first 5 and counts the rest', () => {
    expect(splitShown([1, 2, 3, 4, 5, 6, 7])).toEqual({ shown: [1, 2, 3, 4, 5], rest: 2 });
    expect(splitShown([1, 2])).toEqual({ shown: [1, 2], rest: 0 });
  });

  it('turns a server error into its {error, message} and a network failure into the product sentence', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ error: 'User not found', message: 'No Roblox user is named ghost' }), { status: 404 })),
    );
    expect(await callBot('check', 'ghost')).toEqual({ ok: false, error: { error: 'User not found', message: 'No Roblox user is named ghost' } });

    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    expect(await callBot('analyze', 'x')).toEqual({ ok: false, error: NETWORK_ERROR });
    expect(NETWORK_ERROR).toEqual({ error: 'Network error', message: 'Failed to connect to API' });
  });

  it('passes a success through', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ success: true, username: 'a' }), { status: 200, headers: { 'content-type': 'application/json' } })),
    );
    expect(await callBot('check', 'a')).toEqual({ ok: true, data: { success: true, username: 'a' } });
  });
});

describe('where Roblox data came from', () => {
  it('names each source the server recorded, and nothing it did not', () => {
    expect(describeSources({ profile: 'openCloud', awardDates: 'openCloud' })).toBe(
      'Join date from Roblox Open Cloud; award dates from Roblox Open Cloud',
    );
    expect(describeSources({ profile: 'anonymous', awardDates: 'cookie' })).toBe(
      "Join date from Roblox, without sign-in; award dates from Roblox, with the site's sign-in",
    );
    expect(describeSources({ profile: 'openCloud', awardDates: null })).toBe('Join date from Roblox Open Cloud');
    expect(describeSources({ profile: null, awardDates: null })).toBeNull();
    expect(describeSources(undefined)).toBeNull();
  });
});

describe('usernames, links and initials', () => {
  it('accepts what Roblox accepts and says why not otherwise', () => {
    for (const ok of ['abc', 'OldBuilder2009', 'new_player', 'A'.repeat(20)]) expect(usernameProblem(ok)).toBeNull();
    expect(usernameProblem('ab')).toMatch(/3 to 20/);
    expect(usernameProblem('A'.repeat(21))).toMatch(/3 to 20/);
    expect(usernameProblem('bad name!')).toMatch(/letters, digits/);
    expect(usernameProblem('a_b_c')).toMatch(/one underscore/);
    expect(usernameProblem('_abc')).toMatch(/start or end/);
    expect(usernameProblem('<script>')).not.toBeNull();
  });
  it('builds the detector and profile addresses', () => {
    expect(detectorPath('OldBuilder2009')).toBe('/newgen-detector?username=OldBuilder2009');
    expect(robloxProfileUrl(10001)).toBe('https://www.roblox.com/users/10001/profile');
  });
  it('takes up to two initials', () => {
    expect(initialsOf('OldBuilder2009')).toBe('OB');
    expect(initialsOf('new_player')).toBe('NP');
    expect(initialsOf('zed')).toBe('Z');
    expect(initialsOf('2fast')).toBe('2F');
  });
});

describe('buildVerdict', () => {
  const rules: ClassificationRules = {
    generations: [
      { name: 'OG', code: 'VETERAN', joinedBefore: '2013-01-01', classification: 'Veteran', veteran: true },
      { name: 'Oldgen', code: 'OLDGEN', joinedBefore: '2017-01-01', classification: 'Veteran', veteran: true },
      { name: 'Midgen', code: 'MIDGEN', joinedBefore: '2021-01-01', classification: 'Regular' },
      { name: 'Newgen', code: 'NEWGEN', classification: 'Newgen', newgen: true },
    ],
    elcVeteranMin: 1,
    elcClassification: 'ELC Veteran',
    elcName: 'ELC',
    elcWords: 'early-player',
    reasonElc: '',
    reasonNoElc: '',
    reasonJoinDateOnly: '',
  };
  const now = new Date('2026-11-27T12:00:00Z');
  const badge = (n: number) => ({ name: `Badge ${n}`, badgeId: n, description: '', awardedDate: '2013-03-04T00:00:00Z' });
  function check(over: Partial<NewgenCheck>, badges: { count: number; total?: number; available?: boolean }): NewgenCheck {
    return {
      success: true,
      username: 'OldBuilder2009',
      displayName: 'Old Builder',
      userId: 10001,
      avatarUrl: '',
      hasVerifiedBadge: false,
      joinDate: '2009-05-01T10:00:00Z',
      accountAge: 6420,
      generation: 'VETERAN',
      generationLabel: 'OG',
      isNewgen: false,
      isVeteran: true,
      classification: 'Veteran',
      confidence: 80,
      reason: '',
      evidence: [],
      isBanned: false,
      elcBadges: {
        count: badges.count,
        total: badges.total ?? 6,
        available: badges.available ?? true,
        badges: Array.from({ length: badges.count }, (_, i) => badge(i + 1)),
        unavailableReason: badges.available === false ? 'Roblox refused.' : null,
      },
      robloxSources: { profile: null, awardDates: null },
      checkedAt: '2026-11-27T11:00:00Z',
      apiKey: { name: 'public', requests: 1 },
      ...over,
    } as NewgenCheck;
  }

  it('a veteran by join date and badges: one word, one sentence, the name in the share title', () => {
    const v = buildVerdict(check({ classification: 'ELC Veteran', confidence: 95 }, { count: 4 }), rules, now);
    expect(v.headline).toBe('Veteran');
    expect(v.byBadges).toBe(true);
    expect(v.sentence).toBe('Veteran: this account joined Roblox on May 1, 2009 (17 years ago) and owns 4 of the 6 early-player (ELC) badges.');
    expect(v.title).toBe('OldBuilder2009 is a Veteran');
    expect(v.generation.value).toBe('OG');
    expect(v.generation.explanation).toBe('Accounts that joined before Jan 1, 2013 are OG. By join date, OG accounts count as Veteran.');
    expect(v.badges).toEqual({
      label: 'Early-player (ELC) badges',
      value: '4 of 6',
      explanation: 'Owning at least one makes a player a Veteran, whatever the join date.',
    });
  });

  it('a veteran by badges with a Midgen join date reads as one story, never "Regular"', () => {
    const v = buildVerdict(
      check({ joinDate: '2019-08-12T12:00:00Z', generation: 'MIDGEN', generationLabel: 'Midgen', classification: 'ELC Veteran', confidence: 95 }, { count: 1, total: 7 }),
      rules,
      now,
    );
    expect(v.headline).toBe('Veteran');
    expect(v.sentence).toBe(
      'Veteran: this account joined Roblox on Aug 12, 2019 (7 years ago), a Midgen account, but it owns 1 of the 7 early-player (ELC) badges, and owning even one makes a player a veteran.',
    );
    expect(v.generation.explanation).toBe(
      'Accounts that joined from Jan 1, 2017 to Dec 31, 2020 are Midgen. By join date alone that counts as Regular; the early-player badges count for more.',
    );
    expect(v.sentence).not.toMatch(/Regular/);
  });

  it('a Midgen without badges is the era\'s classification, and the facts say why', () => {
    const v = buildVerdict(
      check({ joinDate: '2019-07-08T09:10:11Z', generation: 'MIDGEN', generationLabel: 'Midgen', classification: 'Regular', isVeteran: false }, { count: 0 }),
      rules,
      now,
    );
    expect(v.headline).toBe('Regular');
    expect(v.byBadges).toBe(false);
    expect(v.sentence).toBe('Regular: this account joined Roblox on Jul 8, 2019 (7 years ago), so it is a Midgen account, and it owns none of the 6 early-player (ELC) badges.');
    expect(v.generation.explanation).toBe('Accounts that joined from Jan 1, 2017 to Dec 31, 2020 are Midgen. Without any early-player badges, Midgen accounts count as Regular.');
    expect(v.badges.explanation).toBe('Owning at least one makes a player a Veteran, whatever the join date; this account owns none.');
    expect(v.title).toBe('OldBuilder2009 is a Regular');
  });

  it('a newgen, the last era open-ended', () => {
    const v = buildVerdict(
      check({ joinDate: '2025-02-03T04:05:06Z', generation: 'NEWGEN', generationLabel: 'Newgen', classification: 'Newgen', isVeteran: false, isNewgen: true }, { count: 0 }),
      rules,
      now,
    );
    expect(v.headline).toBe('Newgen');
    expect(v.sentence).toMatch(/^Newgen: this account joined Roblox on Feb 3, 2025 \(1 year ago\), so it is a Newgen account/);
    expect(v.generation.explanation).toMatch(/^Accounts that joined on or after Jan 1, 2021 are Newgen\./);
  });

  it('award dates refused: the join date alone decides, and it says so', () => {
    const v = buildVerdict(
      check({ generation: 'OLDGEN', generationLabel: 'Oldgen', joinDate: '2014-05-06T00:00:00Z', confidence: 55 }, { count: 0, available: false }),
      rules,
      now,
    );
    expect(v.headline).toBe('Veteran');
    expect(v.byBadges).toBe(false);
    expect(v.sentence).toBe(
      'Veteran: this account joined Roblox on May 6, 2014 (12 years ago), so it is an Oldgen account. Roblox did not show its early-player (ELC) badges, so the join date alone decides.',
    );
    expect(v.badges.value).toBe('Not shown by Roblox');
  });

  it('fewer badges than the rule asks for', () => {
    const v = buildVerdict(
      check({ generation: 'MIDGEN', generationLabel: 'Midgen', joinDate: '2019-01-01T00:00:00Z', classification: 'Regular', isVeteran: false }, { count: 1 }),
      { ...rules, elcVeteranMin: 2 },
      now,
    );
    expect(v.sentence).toMatch(/owns 1 of the 6 early-player \(ELC\) badges, fewer than the 2 that make a veteran\.$/);
    expect(v.badges.explanation).toBe('Owning 2 or more makes a player a Veteran, whatever the join date; this account owns only one.');
  });

  it('without the site rules it still reads from the answer alone', () => {
    const v = buildVerdict(check({ classification: 'ELC Veteran' }, { count: 2 }), undefined, now);
    expect(v.headline).toBe('ELC Veteran');
    expect(v.sentence).toMatch(/^ELC Veteran: this account joined Roblox on May 1, 2009/);
    expect(v.generation.explanation).not.toMatch(/undefined/);
  });

  it('names the badges with site.toml\'s words: the short name once, in brackets, only when there is one', () => {
    expect(elcTerms({ elcName: 'FB', elcWords: 'founder' })).toEqual({
      words: 'founder',
      full: 'founder (FB) badges',
      capitalised: 'Founder',
      label: 'Founder (FB) badges',
    });
    expect(elcTerms({ elcName: ' ', elcWords: 'first-wave' }).full).toBe('first-wave badges');
    const v = buildVerdict(check({}, { count: 4, total: 6 }), { ...rules, elcName: 'FB', elcWords: 'founder' }, now);
    expect(v.sentence).toContain('owns 4 of the 6 founder (FB) badges');
    expect(v.badges.label).toBe('Founder (FB) badges');
  });
});
