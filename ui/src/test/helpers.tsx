// Test-only helpers: a fresh QueryClient per test and a fetch stub answering by path.
import type { ComponentChildren } from 'preact';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render } from '@testing-library/preact';
import { vi } from 'vitest';
import { getQueryFn } from '../lib/api';
import type { Command, Guide, PublicStats, SiteSettings } from '../lib/types';

export type Routes = Record<string, unknown | { status: number; body: unknown } | (() => Promise<never>)>;

/** Stubs global fetch: a route is JSON 200, `{status, body}` for another status, or a function for a pending call. */
export function stubFetch(routes: Routes) {
  const fn = vi.fn(async (input: RequestInfo | URL) => {
    const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
    if (!(path in routes)) return new Response('{"error":"Not found"}', { status: 404, headers: { 'content-type': 'application/json' } });
    const r = routes[path];
    if (typeof r === 'function') return (r as () => Promise<never>)();
    if (r && typeof r === 'object' && 'status' in r && 'body' in r) {
      const { status, body } = r as { status: number; body: unknown };
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }
    return new Response(JSON.stringify(r), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fn);
  return fn;
}

export const never = () => new Promise<never>(() => {});

export function renderWithClient(ui: ComponentChildren) {
  const client = new QueryClient({
    defaultOptions: {
      queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity, refetchOnWindowFocus: false },
    },
  });
  return render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
}

export const site: SiteSettings = {
  name: 'Test Game Hub',
  shortName: 'TGH',
  tagline: 'Build, vote, rule.',
  description: 'A fan site for a test game.',
  version: { label: 'V-1.6', status: 'DEVELOPMENT', build: 'abc', startedAt: '2026-01-01T00:00:00Z' },
  madeBy: { name: 'someone', url: 'https://example.com/me' },
  links: {
    game: 'https://example.com/game',
    wiki: 'https://example.com/wiki',
    community: 'https://example.com/chat',
    videoSearch: 'https://video.example.com/results?q=',
  },
  hero: { title: 'Test Hero Title', subtitle: 'Hero subtitle', buildingTools: 6, largeServerPlayers: 36, publicServerPlayers: 16 },
  features: [
    { title: 'Building Tools', description: 'd1', icon: 'Hammer' },
    { title: 'Election System', description: 'd2', icon: 'vote' },
    { title: 'Admin Commands', description: 'd3', icon: 'terminal' },
    { title: 'Server Options', description: 'd4', icon: 'Server' },
    { title: 'Community Features', description: 'd5', icon: 'users' },
    { title: 'World Control', description: 'd6', icon: 'no-such-icon' },
  ],
  showcase: [
    { title: 'Castle', builder: 'b1', description: 's1' },
    { title: 'Tower', builder: 'b2', description: 's2' },
    { title: 'Bridge', builder: 'b3', description: 's3' },
  ],
  creatorVideos: [
    { creator: 'Alice', title: 'Best builds', description: 'v1' },
    { creator: 'Bob', title: 'Admin tricks & tips', description: 'v2' },
    { creator: 'Carol', title: 'Elections', description: 'v3' },
  ],
  clan: { name: 'ClanX', message: 'Join ClanX now', inviteUrl: 'https://example.com/clan' },
  defaultBanner: { backgroundColor: '#7c3aed', textColor: '#ffffff', borderColor: '#8b5cf6' },
  gettingStarted: [
    { title: 'Join a server', description: 'g1' },
    { title: 'Get building tools', description: 'g2' },
    { title: 'Start building', description: 'g3' },
    { title: 'Participate in elections', description: 'g4' },
  ],
  buildingTips: ['Tip one', 'Tip two'],
  adminBestPractices: ['Be fair', 'Be kind'],
  serverTypes: [
    { name: 'Public', maxPlayers: 16, description: 'p' },
    { name: 'Large', maxPlayers: 36, description: 'l' },
  ],
  officialLinks: [{ label: 'Group', url: 'https://example.com/group', description: 'The group' }],
  factions: [
    { name: 'Citizens', description: 'f1', icon: 'users' },
    { name: 'Builders', description: 'f2', icon: 'hammer' },
    { name: 'Guards', description: 'f3', icon: 'shield' },
    { name: 'Admins', description: 'f4', icon: 'crown' },
  ],
  funFacts: ['Fact A', 'Fact B'],
  permissions: { OA: 'Only Admins', OR: 'Only Administrator', UP: 'Usable by Perm Admin', NE: 'Not Everyone Has It' },
  selectors: [
    { selector: 'username', description: 'one player' },
    { selector: 'all', description: 'everyone' },
    { selector: 'me', description: 'yourself' },
    { selector: '%teamname', description: 'a team' },
    { selector: 'random', description: 'a random player' },
  ],
  credits: [{ name: 'Alice', role: 'Builder' }],
  copyright: '(c) test',
  publicApiKey: null,
  pages: [
    { path: '/', title: 'Home page', description: 'Home text', index: true, documentTitle: 'Home page | Test Game Hub' },
    { path: '/commands', title: 'Commands', description: 'Cmd text', index: true, documentTitle: 'Commands | Test Game Hub' },
  ],
};

export const stats: PublicStats = {
  users: 1234,
  monthlyVisitors: 5678,
  pageViews: 99999,
  commands: 110,
  guides: 7,
  discordMembers: null,
  userSatisfaction: 87.5,
  ratingCount: 16,
  targetedAudience: 1234,
  startedAt: '2026-01-01T00:00:00Z',
};

export function makeCommands(n: number): Command[] {
  const cats = ['Fun', 'Moderation', 'Building'];
  const perms = ['OA', 'OR', 'UP', 'NE'] as const;
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    name: `cmd${i + 1}`,
    description: i === 0 ? 'Lets you FLY' : `Command number ${i + 1}`,
    usage: `:cmd${i + 1} <player>`,
    examples: [`:cmd${i + 1} me`, `:cmd${i + 1} all`, `:cmd${i + 1} random`, `:cmd${i + 1} others`],
    category: cats[i % cats.length],
    permission: perms[i % perms.length],
    avgRating: i === 1 ? 4.5 : 0,
    ratingCount: i === 1 ? 2 : 0,
    favoriteCount: 0,
  }));
}

export const guides: Guide[] = [
  {
    id: 1,
    title: 'First steps',
    content: 'Short paragraph one.\n\nSecond paragraph here.',
    category: 'Beginner',
    difficulty: 'easy',
    tags: ['start', 'basics', 'third'],
  },
  { id: 2, title: 'Walls', content: 'Build walls.', category: 'Building', difficulty: 'advanced', tags: ['walls'] },
];

/**
 * Choose an option of a <select> the way a browser does (value, then a bubbling `change`).
 * @testing-library/preact's fireEvent.change fires `input` instead once preact/compat is loaded,
 * which a <select onChange> never hears.
 */
export function chooseOption(select: HTMLElement, value: string) {
  (select as HTMLSelectElement).value = value;
  act(() => {
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
}
