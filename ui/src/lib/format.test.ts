import { describe, expect, it } from 'vitest';
import { backupDownloadUrl } from './admin/backups';
import { formatAge, formatBytes, formatDate, formatDateTime, formatDateWithAge, formatDaysInText, formatMoment, formatTime, parseDate } from './format';

describe('formatBytes', () => {
  it('uses binary multiples with one decimal below ten', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(104_857_600)).toBe('100 MB');
    expect(formatBytes(3 * 1024 ** 4 * 1024)).toBe('3072 TB');
  });
  it('shows a dash for what is not a size', () => {
    expect(formatBytes(-1)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });
});

describe('backupDownloadUrl', () => {
  it('keeps the name one path segment', () => {
    expect(backupDownloadUrl('fanhub-20261123-020000.tar')).toBe('/api/admin/backups/fanhub-20261123-020000.tar');
    expect(backupDownloadUrl('../x/y')).toBe('/api/admin/backups/..%2Fx%2Fy');
  });
});

describe('the one date style', () => {
  it('writes a date in words, whatever the input shape', () => {
    expect(formatDate('2009-05-01')).toBe('May 1, 2009');
    expect(formatDate('2009-05-01T23:30:00Z', { utc: true })).toBe('May 1, 2009');
    expect(formatDate(new Date(2026, 10, 27, 12))).toBe('Nov 27, 2026');
    expect(formatDate(Date.UTC(2019, 7, 12, 12), { utc: true })).toBe('Aug 12, 2019');
  });
  it('reads a bare day as that calendar day in every time zone', () => {
    expect(formatDate('2021-01-01')).toBe('Jan 1, 2021');
    expect(formatDate('2020-12-31', { utc: false })).toBe('Dec 31, 2020');
  });
  it('adds the time in the same style', () => {
    const d = new Date(2026, 10, 27, 15, 4, 5);
    expect(formatDateTime(d)).toBe('Nov 27, 2026, 3:04 PM');
    expect(formatDateTime(d, { seconds: true })).toBe('Nov 27, 2026, 3:04:05 PM');
    expect(formatTime(d)).toBe('3:04 PM');
    expect(formatDateTime('2026-11-27T15:04:05Z', { utc: true })).toBe('Nov 27, 2026, 3:04 PM');
  });
  it('shows the time alone for today, else the date with it', () => {
    const now = new Date(2026, 10, 23, 12);
    expect(formatMoment(new Date(2026, 10, 23, 10, 5, 9), { now })).toBe('10:05:09 AM');
    expect(formatMoment(new Date(2026, 10, 20, 10, 5, 9), { now })).toBe('Nov 20, 2026, 10:05:09 AM');
  });
  it('says how long ago, in whole years, months or days', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    expect(formatAge('2009-06-15T17:04:05Z', { now, utc: true })).toBe('17 years ago');
    expect(formatAge('2009-11-28', { now })).toBe('16 years ago');
    expect(formatAge('2025-11-27', { now })).toBe('1 year ago');
    expect(formatAge('2026-08-27', { now })).toBe('3 months ago');
    expect(formatAge('2026-11-26', { now })).toBe('1 day ago');
    expect(formatAge('2026-11-27', { now })).toBe('today');
    expect(formatAge('2026-11-30', { now })).toBe('in 3 days');
    expect(formatDateWithAge('2009-05-01', { now })).toBe('May 1, 2009 (17 years ago)');
  });
  it('refuses what is not a date', () => {
    for (const bad of [null, undefined, '', 'nope', '2009-13-45', Number.NaN, new Date('x')]) {
      expect(formatDate(bad)).toBe('Never');
      expect(formatDateTime(bad)).toBe('Never');
      expect(formatAge(bad)).toBe('');
      expect(parseDate(bad)).toBeNull();
    }
    expect(formatDate('nope', { fallback: 'Unknown' })).toBe('Unknown');
    expect(formatDateWithAge('nope', { fallback: '—' })).toBe('—');
  });
  it('rewrites the bare days of a server sentence', () => {
    expect(formatDaysInText('Owns 3 of 7 ELC badges, the earliest awarded 2013-03-04; joined Roblox 2009-06-15.')).toBe(
      'Owns 3 of 7 ELC badges, the earliest awarded Mar 4, 2013; joined Roblox Jun 15, 2009.',
    );
    expect(formatDaysInText('no dates here, 12345-01-01x')).toBe('no dates here, 12345-01-01x');
  });
});
