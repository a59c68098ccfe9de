import { describe, expect, it } from 'vitest';
import { categoriesOf, commandClaim, filterCommands, paginate, roundedCount } from './commands';
import type { Command } from './types';

function cmd(over: Partial<Command> & { id: number }): Command {
  return {
    name: `cmd${over.id}`,
    description: 'does a thing',
    usage: `:cmd${over.id} me`,
    examples: [],
    category: 'Fun',
    permission: 'OA',
    avgRating: 0,
    ratingCount: 0,
    favoriteCount: 0,
    ...over,
  };
}

const list: Command[] = [
  cmd({ id: 1, name: 'fly', description: 'Lets a player FLY around', category: 'Movement', permission: 'OA' }),
  cmd({ id: 2, name: 'kill', description: 'Resets a player', category: 'Moderation', permission: 'OR', avgRating: 4.5, ratingCount: 2 }),
  cmd({ id: 3, name: 'speed', description: 'Changes walk speed', category: 'Movement', permission: 'UP', avgRating: 2, ratingCount: 1 }),
  cmd({ id: 4, name: 'Fire', description: 'Sets on fire', category: 'fun', permission: 'NE' }),
];

describe('filterCommands', () => {
  it('returns everything without a filter', () => {
    expect(filterCommands(list)).toHaveLength(4);
    expect(filterCommands(list, { search: '   ', category: null, permission: '', minRating: 0 })).toHaveLength(4);
  });
  it('matches name or description case-insensitively', () => {
    expect(filterCommands(list, { search: 'FL' }).map((c) => c.id)).toEqual([1]);
    expect(filterCommands(list, { search: 'player' }).map((c) => c.id)).toEqual([1, 2]);
    expect(filterCommands(list, { search: 'fi' }).map((c) => c.id)).toEqual([4]);
    expect(filterCommands(list, { search: 'nothing-like-this' })).toEqual([]);
  });
  it('filters by exact category', () => {
    expect(filterCommands(list, { category: 'Movement' }).map((c) => c.id)).toEqual([1, 3]);
    expect(filterCommands(list, { category: 'Fun' })).toEqual([]);
  });
  it('filters by permission', () => {
    expect(filterCommands(list, { permission: 'OR' }).map((c) => c.id)).toEqual([2]);
  });
  it('filters by minimum rating, excluding unrated commands', () => {
    expect(filterCommands(list, { minRating: 2 }).map((c) => c.id)).toEqual([2, 3]);
    expect(filterCommands(list, { minRating: 4 }).map((c) => c.id)).toEqual([2]);
    expect(filterCommands(list, { minRating: 1 }).map((c) => c.id)).toEqual([2, 3]);
  });
  it('combines filters', () => {
    expect(filterCommands(list, { search: 'speed', category: 'Movement', permission: 'UP', minRating: 2 }).map((c) => c.id)).toEqual([3]);
    expect(filterCommands(list, { search: 'speed', permission: 'OA' })).toEqual([]);
  });
  it('does not mutate the input', () => {
    const copy = [...list];
    filterCommands(list, { search: 'fly' });
    expect(list).toEqual(copy);
  });
});

describe('categoriesOf', () => {
  it('gives distinct sorted categories', () => {
    expect(categoriesOf(list)).toEqual(['fun', 'Moderation', 'Movement']);
    expect(categoriesOf([])).toEqual([]);
  });
});

describe('paginate', () => {
  const nums = Array.from({ length: 25 }, (_, i) => i + 1);
  it('slices 1-based pages', () => {
    expect(paginate(nums, 1, 12)).toEqual({ items: nums.slice(0, 12), page: 1, totalPages: 3, total: 25 });
    expect(paginate(nums, 3, 12).items).toEqual([25]);
  });
  it('clamps out-of-range pages', () => {
    expect(paginate(nums, 9, 12).page).toBe(3);
    expect(paginate(nums, 0, 12).page).toBe(1);
    expect(paginate(nums, -2, 12).items).toEqual(nums.slice(0, 12));
  });
  it('has one page for an empty list', () => {
    expect(paginate([], 1, 12)).toEqual({ items: [], page: 1, totalPages: 1, total: 0 });
  });
  it('handles exact multiples', () => {
    expect(paginate(nums.slice(0, 24), 2, 12)).toMatchObject({ totalPages: 2, page: 2 });
  });
});

describe('command count claim', () => {
  it('rounds down to tens below 100 and hundreds from 100', () => {
    expect(roundedCount(110)).toBe(100);
    expect(roundedCount(100)).toBe(100);
    expect(roundedCount(257)).toBe(200);
    expect(roundedCount(99)).toBe(90);
    expect(roundedCount(57)).toBe(50);
    expect(roundedCount(7)).toBe(0);
    expect(commandClaim(110)).toBe('100+');
    expect(commandClaim(57)).toBe('50+');
    expect(commandClaim(7)).toBe('7');
    expect(commandClaim(0)).toBe('0');
  });
});
