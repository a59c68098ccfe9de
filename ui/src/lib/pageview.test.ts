import { describe, expect, it, vi, afterEach } from 'vitest';
import { createPageviewTracker, sendPageview } from './pageview';

afterEach(() => vi.unstubAllGlobals());

describe('createPageviewTracker', () => {
  it('skips the first location and repeats, sends later changes', () => {
    const sent: string[] = [];
    const track = createPageviewTracker((p) => sent.push(p));
    track('/');
    track('/');
    track('/commands');
    track('/commands');
    track('/guides');
    track('/');
    expect(sent).toEqual(['/commands', '/guides', '/']);
  });
});

describe('sendPageview', () => {
  it('beacons JSON with the path', () => {
    const beacon = vi.fn(() => true);
    vi.stubGlobal('navigator', { sendBeacon: beacon });
    expect(sendPageview('/guides')).toBe(true);
    expect(beacon).toHaveBeenCalledWith('/api/pageview', JSON.stringify({ path: '/guides' }));
  });
  it('does nothing without sendBeacon', () => {
    vi.stubGlobal('navigator', {});
    expect(sendPageview('/guides')).toBe(false);
  });
});
