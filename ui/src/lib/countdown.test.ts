import { describe, expect, it } from 'vitest';
import { formatRemaining, msUntil } from './countdown';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('formatRemaining', () => {
  it('is Expired at or below zero', () => {
    expect(formatRemaining(0)).toBe('Expired');
    expect(formatRemaining(-5 * S)).toBe('Expired');
    expect(formatRemaining(Number.NaN)).toBe('Expired');
  });
  it('uses the largest unit with singular and plural forms', () => {
    expect(formatRemaining(D)).toBe('1 day remaining');
    expect(formatRemaining(2 * D + 5 * H)).toBe('2 days remaining');
    expect(formatRemaining(3 * H + 59 * M)).toBe('3 hours remaining');
    expect(formatRemaining(H)).toBe('1 hour remaining');
    expect(formatRemaining(M)).toBe('1 minute remaining');
    expect(formatRemaining(59 * M + 59 * S)).toBe('59 minutes remaining');
    expect(formatRemaining(45 * S)).toBe('45 seconds remaining');
    expect(formatRemaining(S)).toBe('1 second remaining');
    expect(formatRemaining(10 * D)).toBe('10 days remaining');
  });
  it('reads less than a second as 1 second', () => {
    expect(formatRemaining(400)).toBe('1 second remaining');
  });
});

describe('msUntil', () => {
  it('measures from now', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(msUntil('2026-01-02T00:00:00Z', now)).toBe(D);
    expect(msUntil(null, now)).toBe(0);
    expect(msUntil('garbage', now)).toBe(0);
  });
});
