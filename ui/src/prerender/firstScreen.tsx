// The first screen of a route, rendered at build time (scripts/prerender.mjs) into ui/dist/prerender/,
// with every site setting it shows written as a token ⟦path⟧ (e.g. ⟦hero.title⟧). The server
// (src/shell/first_screen.rs) replaces the tokens with the running site's values, escaped, and puts the
// result into the route's shell, so the first screen paints before any JavaScript runs; main.tsx then
// hydrates it. Lists whose length depends on the site file (features, showcase, ...) are rendered
// empty here: the app fills them in as it hydrates, below what is already on screen.
import { render } from 'preact';
import App from '../App';
import { queryClient } from '../lib/queryClient';
import { SITE_KEY } from '../lib/site';
import type { SiteSettings } from '../lib/types';

/** The routes rendered ahead: the page module's name (as in src/http/spa.rs) and its path. */
export const PRERENDERED = [{ page: 'Home', path: '/' }] as const;

/** A token the server replaces with the site setting at `path` (a string or a number). */
function tok<T = string>(path: string): T {
  return `\u27e6${path}\u27e7` as unknown as T;
}

export const tokenSite: SiteSettings = {
  name: tok('name'),
  shortName: tok('shortName'),
  tagline: tok('tagline'),
  description: tok('description'),
  version: { label: tok('version.label'), status: tok('version.status'), build: tok('version.build'), startedAt: tok('version.startedAt') },
  madeBy: { name: tok('madeBy.name'), url: tok('madeBy.url') },
  links: { game: tok('links.game'), wiki: tok('links.wiki'), community: tok('links.community'), videoSearch: tok('links.videoSearch') },
  hero: {
    title: tok('hero.title'),
    subtitle: tok('hero.subtitle'),
    buildingTools: tok<number>('hero.buildingTools'),
    largeServerPlayers: tok<number>('hero.largeServerPlayers'),
    publicServerPlayers: tok<number>('hero.publicServerPlayers'),
  },
  features: [],
  showcase: [],
  creatorVideos: [],
  clan: { name: tok('clan.name'), message: tok('clan.message'), inviteUrl: tok('clan.inviteUrl') },
  defaultBanner: {
    backgroundColor: tok('defaultBanner.backgroundColor'),
    textColor: tok('defaultBanner.textColor'),
    borderColor: tok('defaultBanner.borderColor'),
  },
  gettingStarted: [],
  buildingTips: [],
  adminBestPractices: [],
  serverTypes: [],
  officialLinks: [],
  factions: [],
  funFacts: [],
  permissions: { OA: tok('permissions.OA'), OR: tok('permissions.OR'), UP: tok('permissions.UP'), NE: tok('permissions.NE') },
  selectors: [],
  credits: [],
  copyright: tok('copyright'),
  publicApiKey: tok('publicApiKey'),
  pages: [],
};

/** The app's first frame at `path` (the document must be at that location), as HTML with tokens. */
export function renderFirstScreen(): string {
  queryClient.setQueryData(SITE_KEY, tokenSite);
  const root = document.createElement('div');
  render(<App />, root);
  return root.innerHTML;
}
