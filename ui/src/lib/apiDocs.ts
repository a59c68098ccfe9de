// The developer API as the /api-docs page documents it: base URL, limits, the endpoint catalogue of each tab
// and the curl command of each example, built from the page's origin and the visitor's current key.
// Pure (no DOM, no React) so every printed command is unit-tested.

/** The API's rate limits, per key (the public default key: per client IP). */
export const API_LIMITS = { perMinute: 100, perHour: 1_000, perDay: 10_000 } as const;

export const API_KEY_HEADER = 'X-API-Key';

/** Shown in curl examples when there is no key at all (no public key configured, none generated). */
export const KEY_PLACEHOLDER = 'YOUR_API_KEY';

export function apiBaseUrl(origin: string): string {
  return `${origin.replace(/\/+$/, '')}/api/v1`;
}

/** One path segment or query value, percent-encoded so that nothing in it means anything to a shell either. */
export function encodePart(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `text` inside double quotes for a POSIX shell: \ " $ ` are escaped, nothing else is special there. */
export function shellDoubleQuoted(text: string): string {
  return `"${text.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;
}

/**
 * The curl command of one example exactly as a terminal runs it:
 * `curl -s -H "X-API-Key: KEY" "ORIGIN/api/v1/PATH"`, or without the header when the endpoint needs no key.
 */
export function curlCommand(origin: string, path: string, key: string | null): string {
  const url = shellDoubleQuoted(apiBaseUrl(origin) + path);
  if (key === null) return `curl -s ${url}`;
  return `curl -s -H ${shellDoubleQuoted(`${API_KEY_HEADER}: ${key}`)} ${url}`;
}

export interface EndpointDoc {
  /** Unique on the page (also the copy indicator's key). */
  id: string;
  title: string;
  /** The documented form, parameters in braces. */
  signature: string;
  /** What the example runs, relative to the base URL, query included. */
  example: string;
  needsKey: boolean;
  description: string;
  /** The answer's shape, briefly. */
  response: string;
}

/** Real values from the site's data that make the category and filter examples answer with content. */
export interface ExampleData {
  /** A command category that exists, and a permission level one of its commands has. */
  command?: { category: string; permission: string } | null;
  /** A guide category that exists. */
  guideCategory?: string | null;
}

const COMMAND_LIST = '{success, total, page, limit, commands: [Command]}';
const GUIDE_LIST = '{success, total, page, limit, guides: [Guide]}';
const COMMAND_FIELDS = 'Command = {id, name, description, usage, examples, category, permission, avgRating, ratingCount, favoriteCount}';
const GUIDE_FIELDS = 'Guide = {id, title, content, category, difficulty, tags}';

export const COMMANDS_STATS: EndpointDoc = {
  id: 'commands-stats',
  title: 'Ratings and favorites per command',
  signature: 'GET /api/v1/commands-stats',
  example: '/commands-stats',
  needsKey: true,
  description: 'Totals of ratings and favorites, and every command with its average rating, rating count and favorite count, most favorited and rated first.',
  response: '{success, totals: {ratings, favorites, ratedCommands}, commands: [{id, name, category, avgRating, ratingCount, favoriteCount}]}',
};

export const EVENTS: EndpointDoc = {
  id: 'events',
  title: 'Site events',
  signature: 'GET /api/v1/events?since={id}&limit={1-100}&type={member.joined|banner.changed|site.upgraded}',
  example: '/events?since=0&limit=20',
  needsKey: true,
  description:
    'The site\'s public happenings, oldest first: member.joined {members}, banner.changed {banner, backgroundColor, textColor, borderColor}, site.upgraded {from, to}. A bot polls with since set to the last answer\'s nextSince to get only what is new; limit defaults to 50.',
  response: '{success, events: [{id, type, createdAt, data}], nextSince}',
};

export const CORE_ENDPOINTS: EndpointDoc[] = [
  {
    id: 'health',
    title: 'Health',
    signature: 'GET /api/v1/health',
    example: '/health',
    needsKey: false,
    description: 'Whether the server and its database are up, its version and when it started. No key needed.',
    response: '{status: "ok" | "degraded", version, build, startedAt, database: "ok" | "error"}',
  },
  {
    id: 'database',
    title: 'Database status',
    signature: 'GET /api/v1/database',
    example: '/database',
    needsKey: true,
    description: 'Whether the database answers: its schema version (and the one this server expects), file size and journal mode.',
    response: '{success, database: {schemaVersion, latestSchemaVersion, sizeBytes, journalMode}}',
  },
  {
    id: 'stats',
    title: 'Site statistics',
    signature: 'GET /api/v1/stats',
    example: '/stats',
    needsKey: true,
    description:
      'The public counters of the site: users, visitors, page views, commands and guides; the satisfaction (average command rating as a percentage) and how many ratings it rests on; the audience an advertiser reaches (registered members); members of the community chat. A figure the server cannot measure is null.',
    response: '{users, monthlyVisitors, pageViews, commands, guides, discordMembers, userSatisfaction, ratingCount, targetedAudience, startedAt}',
  },
  EVENTS,
  {
    id: 'discord-updates',
    title: 'Updates',
    signature: 'GET /api/v1/discord-updates',
    example: '/discord-updates',
    needsKey: true,
    description: 'Updates read from the chat community. Until the server has Discord configured, configured is false and products is empty.',
    response: '{success, configured, products: [{product, gameUpdates, communityHighlights, source, updatedAt}]}',
  },
  {
    id: 'badge-history',
    title: 'Badge history',
    signature: 'GET /api/v1/badge-history?days={1-400}&format={json|csv}  (one badge: /api/v1/badge-history/{badgeId})',
    example: '/badge-history?days=30',
    needsKey: true,
    description:
      "Each monitored badge's figures per UTC day, up to 400 days back: the awards in the 24 hours before the day's last poll and the total then. A day without a poll is absent. format=csv answers a spreadsheet with a header row.",
    response: '{success, days, from, to, badges: [{badgeId, name, since, bestDay, days: [{date, awardedCount, pastDay}]}]}',
  },
  {
    id: 'wiki',
    title: 'Wiki search',
    signature: 'GET /api/v1/wiki?q={text}&category={category}',
    example: '/wiki?q=fly',
    needsKey: true,
    description: 'One ranked search over commands and guides; category narrows it to one category.',
    response: '{success, query, results: [{type: "command" | "guide", id, title, category, snippet, score}]}',
  },
];

/** The Commands & Guides tab; the category examples appear once a real category is known. */
export function commandEndpoints(data: ExampleData = {}): EndpointDoc[] {
  const list: EndpointDoc[] = [
    {
      id: 'commands',
      title: 'Commands, paged',
      signature: 'GET /api/v1/commands?page={n}&limit={1-100}&category={category}&permission={OA|OR|UP|NE}',
      example: '/commands?page=1&limit=5',
      needsKey: true,
      description: `Every command, 20 a page by default; page starts at 1. ${COMMAND_FIELDS}.`,
      response: COMMAND_LIST,
    },
  ];
  if (data.command) {
    const { category, permission } = data.command;
    list.push(
      {
        id: 'commands-filtered',
        title: 'Commands, filtered',
        signature: 'GET /api/v1/commands?category={category}&permission={OA|OR|UP|NE}',
        example: `/commands?page=1&limit=10&category=${encodePart(category)}&permission=${encodePart(permission)}`,
        needsKey: true,
        description: 'The same list narrowed to one category and one permission level.',
        response: COMMAND_LIST,
      },
      {
        id: 'commands-category',
        title: 'Commands of one category',
        signature: 'GET /api/v1/commands/category/{category}',
        example: `/commands/category/${encodePart(category)}`,
        needsKey: true,
        description: 'Every command of the category; a category that does not exist answers 404.',
        response: COMMAND_LIST,
      },
    );
  }
  list.push(
    {
      id: 'commands-search',
      title: 'Command search',
      signature: 'GET /api/v1/commands/search?q={text}',
      example: '/commands/search?q=fly',
      needsKey: true,
      description: 'Commands matching the text (1-100 characters), best match first.',
      response: COMMAND_LIST,
    },
    {
      id: 'commands-popular',
      title: 'Popular commands',
      signature: 'GET /api/v1/commands/popular',
      example: '/commands/popular',
      needsKey: true,
      description: 'The commands the site shows as popular.',
      response: '{success, commands: [Command]}',
    },
    {
      id: 'guides',
      title: 'Guides, paged',
      signature: 'GET /api/v1/guides?page={n}&limit={1-100}',
      example: '/guides?page=1&limit=5',
      needsKey: true,
      description: `Every guide, 20 a page by default. ${GUIDE_FIELDS}.`,
      response: GUIDE_LIST,
    },
  );
  if (data.guideCategory) {
    list.push({
      id: 'guides-category',
      title: 'Guides of one category',
      signature: 'GET /api/v1/guides/category/{category}',
      example: `/guides/category/${encodePart(data.guideCategory)}`,
      needsKey: true,
      description: 'Every guide of the category; a category that does not exist answers 404.',
      response: GUIDE_LIST,
    });
  }
  list.push(
    {
      id: 'guides-search',
      title: 'Guide search',
      signature: 'GET /api/v1/guides/search?q={text}',
      example: '/guides/search?q=build',
      needsKey: true,
      description: 'Guides matching the text, best match first.',
      response: GUIDE_LIST,
    },
    COMMANDS_STATS,
  );
  return list;
}

export const ANALYTICS_ENDPOINTS: EndpointDoc[] = [
  {
    id: 'analytics',
    title: 'Page views and visitors',
    signature: 'GET /api/v1/analytics?days={1-90}',
    example: '/analytics?days=7',
    needsKey: true,
    description:
      'Page views and visitors per day, and page views per route, over the chosen number of days (1-90, default 30), as the server counts them (no cookies, no stored IPs).',
    response: '{success, days, totals: {pageViews, visitors}, daily: [{date, pageViews, visitors}], routes: [{route, pageViews}]}',
  },
  COMMANDS_STATS,
  EVENTS,
];

/** The first category in the data that has commands, and the permission level of its first command. */
export function exampleCommand(commands: readonly { category: string; permission: string }[] | undefined) {
  const first = commands?.find((c) => c.category);
  return first ? { category: first.category, permission: first.permission } : null;
}

/** The first guide category in the data. */
export function exampleGuideCategory(guides: readonly { category: string }[] | undefined): string | null {
  return guides?.find((g) => g.category)?.category ?? null;
}

/** The figures of a database size: bytes as B, KB, MB or GB (1024-based). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '-';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

const PLAYER = 'Player = {rank, userId, username, displayName, verified, created, generation (VETERAN|OLDGEN|MIDGEN|NEWGEN), generationLabel, classification, isVeteran, isNewgen, elcCount, confidence, checkedAt}';
const SCAN = 'Scan = {id, groupId, groupName, scannedBy, state, total, processed, veterans, newgens, failed, pages, pagesRedone, notice, error, percent, ratePerMinute, maxRatePerMinute, etaSeconds, createdAt, startedAt, updatedAt, finishedAt}';

/** Group Scanning tab: the read calls (the form above them starts a scan and follows it). */
export const GROUP_SCAN_ENDPOINTS: EndpointDoc[] = [
  {
    id: 'all-scans',
    title: 'All scans',
    signature: 'GET /api/v1/all-scans?page={n}&limit={1-100}',
    example: '/all-scans',
    needsKey: true,
    description: 'Every scan, newest first, with its progress. POST /api/v1/scan-group {groupId, scannedBy} starts one (202; 200 with the running scan if the group is being scanned); POST /api/v1/resume-scan {scanId} continues a failed or cancelled one where it stopped.',
    response: `{success, total, page, limit, scans: [Scan]}; ${SCAN}`,
  },
  {
    id: 'all-group-leaderboards',
    title: 'Scanned groups',
    signature: 'GET /api/v1/all-group-leaderboards?page={n}&limit={1-100}',
    example: '/all-group-leaderboards',
    needsKey: true,
    description: 'Every scanned group with its stored members, veterans and newgens, the most members first. GET /api/v1/group-leaderboard/{groupId} ranks one group\'s members: veterans first, then ELC badges, then the oldest account.',
    response: '{success, total, page, limit, groups: [{groupId, groupName, members, veterans, newgens, lastScanId, lastScanState}]}',
  },
  {
    id: 'leaderboard',
    title: 'Player leaderboard',
    signature: 'GET /api/v1/leaderboard?generation={VETERAN|OLDGEN|MIDGEN|NEWGEN}&sort={elc|oldest|newest|recent}&page={n}&limit={1-100} (or &cursor={nextCursor} instead of page)',
    example: '/leaderboard?sort=elc&limit=10',
    needsKey: true,
    description: 'Every player the site has seen through scans and newgen checks, ranked; generation is one of the four codes (an era\'s name as shown, in any case, works too). To walk deep into the ranking, pass each answer\'s nextCursor as cursor (with the same generation and sort): the next page is read by key, as fast far down as at the top.',
    response: `{success, generation, generationLabel, sort, total, page, limit, players: [Player], nextCursor}; ${PLAYER}`,
  },
  {
    id: 'search-players',
    title: 'Search players and groups',
    signature: 'GET /api/v1/search?q={text}&type={players|groups|all}&limit={1-100}',
    example: '/search?q=a&type=all',
    needsKey: true,
    description: 'Stored players whose username or display name starts with q, and scanned groups whose name contains q or whose id is q.',
    response: '{success, query, type, players: [Player], groups: [Group]}',
  },
];
