import { describe, expect, it } from 'vitest';
import { historyDayCount, recordedDays, weekAverageKnown } from './badgeHistory';
import { chartDays } from './roblox';

const point = (date: string, pastDay = 10) => ({ date, awardedCount: 100, pastDay });

describe('badge history', () => {
  it('starts the chart at the first recorded day, keeping gaps after it', () => {
    const days = chartDays([point('2026-11-25'), point('2026-11-27')]);
    expect(days).toHaveLength(7);
    const recorded = recordedDays(days);
    expect(recorded.map((d) => d.date)).toEqual(['2026-11-25', '2026-11-26', '2026-11-27']);
    expect(recorded[1].awarded).toBeNull();
    expect(recordedDays(chartDays([point('2026-11-27', 40)]))).toEqual([{ date: '2026-11-27', awarded: 40 }]);
    expect(recordedDays([])).toEqual([]);
  });

  it('knows the weekly average from two recorded days on', () => {
    expect(weekAverageKnown([])).toBe(false);
    expect(weekAverageKnown([point('2026-11-27')])).toBe(false);
    expect(weekAverageKnown([point('2026-11-27'), point('2026-11-27')])).toBe(false);
    expect(weekAverageKnown([point('2026-11-26'), point('2026-11-27')])).toBe(true);
    expect(weekAverageKnown(undefined)).toBe(true);
    expect(historyDayCount([point('2026-11-26'), point('not a day')])).toBe(1);
  });
});
