import { describe, expect, it } from 'vitest';
import { barsPath, bestDay, HISTORY_RANGES, historyDayCount, historyUrl, recordedDays, weekAverageKnown } from './badgeHistory';
import { chartDays, chartDescription } from './roblox';

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

describe('long ranges', () => {
  it('asks the server for a range as JSON or CSV', () => {
    expect(historyUrl(30)).toBe('/api/badge-monitor/history?days=30');
    expect(historyUrl(365, 'csv')).toBe('/api/badge-monitor/history?days=365&format=csv');
    expect(HISTORY_RANGES.map((r) => r.days)).toEqual([7, 30, 90, 365]);
  });

  it('finds the best day, the first of equals, and none without days', () => {
    const days = [
      { date: '2026-01-01', pastDay: 5 },
      { date: '2026-01-02', pastDay: 9 },
      { date: '2026-01-03', pastDay: 9 },
    ];
    expect(bestDay(days)?.date).toBe('2026-01-02');
    expect(bestDay([])).toBeNull();
  });

  it('draws every bar with a height into one path and leaves the empty days out', () => {
    const path = barsPath([
      { x: 0, y: 10, width: 1.234, height: 30 },
      { x: 2, y: 40, width: 1, height: 0 },
      { x: 4, y: 0, width: 1, height: 40 },
    ]);
    expect(path).toBe('M0 10h1.23v30h-1.23zM4 0h1v40h-1z');
  });

  it('describes a year in a sentence: the measured days and the best one', () => {
    const days = Array.from({ length: 365 }, (_, i) => ({
      date: new Date(Date.UTC(2025, 10, 28 + i)).toISOString().slice(0, 10),
      awarded: i % 2 === 0 ? i : null,
    }));
    const text = chartDescription(days);
    expect(text).toMatch(/^Awards per day, last 365 days from Nov 28, 2025 to Nov 27, 2026: 183 days measured; the most on Nov 27, 2026: 364$/);
  });
});
