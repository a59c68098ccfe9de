import { describe, expect, it } from 'vitest';
import {
  categoriesOf,
  commandClaim,
  commandLink,
  commandsQueryString,
  DEFAULT_COMMANDS_QUERY,
  filterCommands,
  findCommandByName,
  MAX_PAGE,
  MAX_QUERY_TEXT,
  pageAfterResize,
  paginate,
  parseCommandsQuery,
  resolveCommandsView,
  roundedCount,
} from './commands';
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

describe('parseCommandsQuery', () => {
  const categories = ['Fun', 'Moderation', 'Movement'];

  it('reads every value, with or without the leading "?"', () => {
    const q = parseCommandsQuery('?search=fly+me&category=Movement&permission=OA&rating=2&page=3&command=fly', { categories });
    expect(q).toEqual({ search: 'fly me', category: 'Movement', permission: 'OA', minRating: 2, page: 3, per: null, command: 'fly' });
    expect(parseCommandsQuery('page=2').page).toBe(2);
  });

  it('gives the defaults for an empty or foreign query', () => {
    expect(parseCommandsQuery('')).toEqual(DEFAULT_COMMANDS_QUERY);
    expect(parseCommandsQuery('?utm_source=x&foo=bar')).toEqual(DEFAULT_COMMANDS_QUERY);
  });

  it('turns hostile page numbers into a sane page', () => {
    for (const page of ['-1', '0', 'abc', '2.5', '1e3', ' ', '', '0x10', 'Infinity', 'NaN', '%00']) {
      expect(parseCommandsQuery(`page=${page}`).page, `page=${page}`).toBe(1);
    }
    expect(parseCommandsQuery('page=99999999999999999999999').page).toBe(MAX_PAGE);
    expect(parseCommandsQuery(`page=${MAX_PAGE + 1}`).page).toBe(MAX_PAGE);
    expect(parseCommandsQuery('page=007').page).toBe(7);
  });

  it('drops an unknown category once the categories are known, and matches one in another case', () => {
    expect(parseCommandsQuery('category=Nope', { categories }).category).toBeNull();
    expect(parseCommandsQuery('category=<script>', { categories }).category).toBeNull();
    expect(parseCommandsQuery('category=movement', { categories }).category).toBe('Movement');
    // Before the list arrives nothing can be checked: the value is kept as written.
    expect(parseCommandsQuery('category=Nope').category).toBe('Nope');
    expect(parseCommandsQuery('category=', { categories }).category).toBeNull();
  });

  it('accepts only the known permission codes and ratings', () => {
    expect(parseCommandsQuery('permission=oa').permission).toBe('OA');
    expect(parseCommandsQuery('permission=XX').permission).toBe('');
    expect(parseCommandsQuery('permission=OA,OR').permission).toBe('');
    for (const rating of ['5', '0', '-1', 'abc', '2.5', '']) {
      expect(parseCommandsQuery(`rating=${rating}`).minRating, `rating=${rating}`).toBe(0);
    }
    expect(parseCommandsQuery('rating=4').minRating).toBe(4);
  });

  it('cuts oversized text and survives malformed escapes and repeated keys', () => {
    const long = 'x'.repeat(5000);
    expect(parseCommandsQuery(`search=${long}`).search).toHaveLength(MAX_QUERY_TEXT);
    expect(parseCommandsQuery(`command=${long}`).command).toHaveLength(MAX_QUERY_TEXT);
    expect(() => parseCommandsQuery('search=%E0%A4%A&command=%')).not.toThrow();
    expect(parseCommandsQuery('page=2&page=5').page).toBe(2);
    expect(parseCommandsQuery('command=%20%20').command).toBeNull();
  });
});

describe('commandsQueryString', () => {
  it('leaves the defaults out', () => {
    expect(commandsQueryString(DEFAULT_COMMANDS_QUERY)).toBe('');
    expect(commandsQueryString({ page: 1, minRating: 0, permission: '', category: null })).toBe('');
  });

  it('round-trips through parseCommandsQuery', () => {
    const q = { search: 'a&b=c #1', category: 'Fun & Games', permission: 'UP' as const, minRating: 3, page: 4, per: 24, command: 'tp' };
    const s = commandsQueryString(q);
    expect(s).toBe('search=a%26b%3Dc+%231&category=Fun+%26+Games&permission=UP&rating=3&page=4&per=24&command=tp');
    expect(parseCommandsQuery(s)).toEqual(q);
    expect(parseCommandsQuery(s, { categories: ['Fun & Games'] })).toEqual(q);
  });

  it('links one command', () => {
    expect(commandLink('fly')).toBe('/commands?command=fly');
    expect(commandLink('a b&c')).toBe('/commands?command=a%20b%26c');
    expect(parseCommandsQuery(commandLink('a b&c').split('?')[1]).command).toBe('a b&c');
  });
});

describe('resolveCommandsView', () => {
  // 30 commands: 10 per category, cmd1..cmd30.
  const many: Command[] = Array.from({ length: 30 }, (_, i) =>
    cmd({ id: i + 1, category: ['Fun', 'Moderation', 'Movement'][i % 3], permission: i % 2 ? 'OR' : 'OA' }),
  );
  const at = (query: string, size = 12) => resolveCommandsView(many, parseCommandsQuery(query, { categories: categoriesOf(many) }), size);

  it('shows the page the address asks for, clamped to the list', () => {
    expect(at('page=2').current.page).toBe(2);
    expect(at('page=2').canonical).toBe('page=2&per=12');
    expect(at('page=999').current.page).toBe(3);
    expect(at('page=999').canonical).toBe('page=3&per=12');
    expect(at('page=abc&category=Nope').canonical).toBe('');
  });

  it('reads a page counted in another page size as the page that starts with the same command', () => {
    // Page 2 of 24 starts with cmd25: page 3 of 12 (cmd25..cmd30) on a phone.
    const phone = at('page=2&per=24');
    expect(phone.current.page).toBe(3);
    expect(phone.current.items[0].id).toBe(25);
    expect(phone.canonical).toBe('page=3&per=12');
    // Page 3 of 12 (cmd25..) on a wide screen: page 2 of 24, which holds it.
    const wide = at('page=3&per=12', 24);
    expect(wide.current.page).toBe(2);
    expect(wide.current.items.map((c) => c.id)).toContain(25);
    expect(wide.canonical).toBe('page=2&per=24');
    // Another size in the address than the two the page uses is ignored.
    expect(parseCommandsQuery('page=2&per=7').per).toBeNull();
    expect(at('page=2&per=7').current.page).toBe(2);
    expect(commandsQueryString({ page: 1, per: 24 })).toBe('');
  });

  it('shows a linked command on its page, under the filters when they keep it', () => {
    const v = at('command=cmd28');
    expect(v.highlight?.id).toBe(28);
    expect(v.current.page).toBe(3);
    expect(v.current.items.map((c) => c.id)).toContain(28);
    expect(v.canonical).toBe('command=cmd28');
    // 24 per page: page 2.
    expect(at('command=cmd28', 24).current.page).toBe(2);
    // Under category=Fun (cmd1, cmd4, ...), cmd28 is the 10th: page 1; the page in the address is ignored.
    const filtered = at('category=Fun&page=3&command=cmd28');
    expect(filtered).toMatchObject({ filtersCleared: false, current: { page: 1 } });
    expect(filtered.canonical).toBe('category=Fun&command=cmd28');
  });

  it('clears the filters that hide a linked command', () => {
    const v = at('category=Fun&permission=OR&search=zzz&page=2&command=CMD29');
    expect(v.highlight?.id).toBe(29);
    expect(v.filtersCleared).toBe(true);
    expect(v.filter).toEqual({ search: '', category: null, permission: '', minRating: 0 });
    expect(v.current.page).toBe(3);
    expect(v.canonical).toBe('command=cmd29');
  });

  it('says so for a name no command has, and shows the list as usual', () => {
    const v = at('command=nope&page=2');
    expect(v).toMatchObject({ highlight: null, missing: 'nope', current: { page: 2 } });
    expect(v.canonical).toBe('page=2&per=12&command=nope');
  });

  it('finds names exactly first, then in another case', () => {
    const two = [cmd({ id: 1, name: 'Fly' }), cmd({ id: 2, name: 'fly' })];
    expect(findCommandByName(two, 'fly')?.id).toBe(2);
    expect(findCommandByName(two, 'FLY')?.id).toBe(1);
    expect(findCommandByName(two, ' ')).toBeUndefined();
  });
});

describe('pageAfterResize', () => {
  it('keeps the first item of the old page in view', () => {
    expect(pageAfterResize(3, 12, 24)).toBe(2); // item 25 -> page 2 of 24
    expect(pageAfterResize(2, 12, 24)).toBe(1); // item 13 -> page 1
    expect(pageAfterResize(2, 24, 12)).toBe(3); // item 25 -> page 3 of 12
    expect(pageAfterResize(1, 24, 12)).toBe(1);
    expect(pageAfterResize(-4, 24, 12)).toBe(1);
  });
});
