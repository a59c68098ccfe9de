import { describe, expect, it } from 'vitest';
import { activationColors, durationLabel, statusLabel, visibleApplications, type AdApplication } from './advertisements';
import { formatUptime, uptimeSecondsAt } from './dashboard';
import { newestFirst } from './logs';
import { isHexColor } from './settings';
import { adAnalysis } from '../../test/fixtures';

const app = (id: number, status: AdApplication['status']): AdApplication => ({
  id,
  websiteUrl: `https://ex${id}.com`,
  adDescription: 'd',
  duration: '1-day',
  links: [],
  status,
  isActive: false,
  createdAt: '2026-01-01T00:00:00Z',
  imagePath: `/uploads/ad${id}.png`,
  premiumFullscreen: false,
  aiAnalysis: adAnalysis(),
  design: { backgroundColor: '#112233', textColor: '#ffffff', borderColor: '#445566' },
});

describe('advertisement helpers', () => {
  it('labels the premium duration', () => {
    expect(durationLabel('10-fullscreen')).toBe('10 days Premium Full-Screen');
    expect(durationLabel('1-day')).toBe('1-day');
    expect(durationLabel('1-month')).toBe('1-month');
  });
  it('drops rejected applications and keeps the order', () => {
    const list = [app(1, 'pending'), app(2, 'rejected'), app(3, 'approved'), app(4, 'rejected')];
    expect(visibleApplications(list).map((a) => a.id)).toEqual([1, 3]);
    expect(visibleApplications(undefined)).toEqual([]);
  });
  it('labels statuses', () => {
    expect(statusLabel('approved')).toBe('Approved');
    expect(statusLabel('rejected')).toBe('Rejected');
    expect(statusLabel('pending')).toBe('Pending');
  });
});

describe('other helpers', () => {
  it('formats uptime', () => {
    expect(formatUptime(5)).toBe('5s');
    expect(formatUptime(65)).toBe('1m 5s');
    expect(formatUptime(3600)).toBe('1h 0m 0s');
    expect(formatUptime(90061)).toBe('1d 1h 1m 1s');
    expect(formatUptime(-3)).toBe('0s');
  });
  it('computes uptime from startedAt', () => {
    const start = '2026-01-01T00:00:00Z';
    expect(uptimeSecondsAt(start, new Date(start).getTime() + 10_000)).toBe(10);
    expect(uptimeSecondsAt('garbage', 0, 42)).toBe(42);
  });
  it('sorts newest first', () => {
    const rows = [
      { id: 1, timestamp: '2026-01-01T00:00:00Z' },
      { id: 2, timestamp: '2026-01-03T00:00:00Z' },
      { id: 3, timestamp: '2026-01-02T00:00:00Z' },
    ];
    expect(newestFirst(rows).map((r) => r.id)).toEqual([2, 3, 1]);
  });
  it('checks hex colours', () => {
    expect(isHexColor('#7c3aed')).toBe(true);
    expect(isHexColor('#fff')).toBe(false);
    expect(isHexColor('red')).toBe(false);
  });
});

describe('activationColors', () => {
  const defaults = { backgroundColor: '#7c3aed', textColor: '#ffffff', borderColor: '#8b5cf6' };
  it("sends the ad's own design colours", () => {
    const design = { backgroundColor: '#0a3d62', textColor: '#f5f6fa', borderColor: '#3c6382' };
    expect(activationColors({ design }, defaults)).toEqual(design);
  });
  it('falls back to the default colours without a usable design', () => {
    expect(activationColors({ design: null }, defaults)).toEqual(defaults);
    expect(activationColors({}, defaults)).toEqual(defaults);
    expect(activationColors({ design: { backgroundColor: 'red', textColor: '#ffffff', borderColor: '#000000' } }, defaults)).toEqual(defaults);
  });
});
