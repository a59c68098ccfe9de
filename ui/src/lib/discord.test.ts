import { describe, expect, it } from 'vitest';
import { productsOf, sourceLabel, updatesKey } from './discord';
import { site } from '../test/helpers';

describe('discord updates helpers', () => {
  it('lists the products of the site file with their titles, and none without', () => {
    expect(productsOf({ ...site, updates: { game: { title: 'Game' }, spinoff: { title: null } } })).toEqual([
      { product: 'game', title: 'Game' },
      { product: 'spinoff', title: 'spinoff' },
    ]);
    expect(productsOf(site)).toEqual([]);
    expect(productsOf(undefined)).toEqual([]);
  });

  it('keys a product by its endpoint path', () => {
    expect(updatesKey('game').join('/')).toBe('/api/discord/game-updates');
  });

  it('names the summariser', () => {
    const at = { generatedAt: '2026-11-23T06:00:00Z', messageCount: 2 };
    expect(sourceLabel({ ...at, source: 'ai', model: 'm' })).toBe('AI summary (m)');
    expect(sourceLabel({ ...at, source: 'ai', model: null })).toBe('AI summary');
    expect(sourceLabel({ ...at, source: 'extractive', model: null })).toBe('Extractive summary');
  });
});
