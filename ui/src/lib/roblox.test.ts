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
