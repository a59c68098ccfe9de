import { describe, expect, it } from 'vitest';
import { NAV_ITEMS, isActivePath, itemsThatFit } from './NavItems';

describe('itemsThatFit', () => {
  const widths = [80, 100, 90, 110];
  const gap = 4;
  const allTogether = 80 + 100 + 90 + 110 + 3 * gap; // 392

  it('keeps every item in the bar when they all fit, with no room left for the More button', () => {
    expect(itemsThatFit(widths, allTogether, 70, gap)).toBe(4);
    expect(itemsThatFit(widths, 1000, 70, gap)).toBe(4);
  });

  it('moves the items past the last one that fits beside the More button into the menu', () => {
    // One pixel short of all four: the fourth goes; three (278) and the More button (gap + 70) fit.
    expect(itemsThatFit(widths, allTogether - 1, 70, gap)).toBe(3);
    // A wider More button (gap + 120) leaves room for two only.
    expect(itemsThatFit(widths, allTogether - 1, 120, gap)).toBe(2);
  });

  it('counts the gap before the More button and stops at none', () => {
    expect(itemsThatFit(widths, 80 + gap + 70, 70, gap)).toBe(1);
    expect(itemsThatFit(widths, 80 + gap + 70 - 1, 70, gap)).toBe(0);
    expect(itemsThatFit(widths, 0, 70, gap)).toBe(0);
  });

  it('fits nothing extra for an empty list', () => {
    expect(itemsThatFit([], 0, 70, gap)).toBe(0);
  });
});

describe('isActivePath', () => {
  it('matches an item and its sub-paths, "/" only itself', () => {
    expect(isActivePath('/', '/')).toBe(true);
    expect(isActivePath('/', '/guides')).toBe(false);
    expect(isActivePath('/guides', '/guides/x')).toBe(true);
    expect(isActivePath('/guides', '/guidesx')).toBe(false);
    expect(NAV_ITEMS.length).toBeGreaterThan(0);
  });
});
