export type Permission = 'OA' | 'OR' | 'UP' | 'NE';

export interface Command {
  id: number;
  name: string;
  description: string;
  usage: string;
  examples: string[];
  category: string;
  permission: Permission;
  avgRating: number;
  ratingCount: number;
  favoriteCount: number;
}

export type GuideCategory = 'Beginner' | 'Building' | 'Administration' | 'Community';
export type Difficulty = 'easy' | 'intermediate' | 'advanced';

export interface Guide {
  id: number;
  title: string;
  content: string;
  category: GuideCategory;
  difficulty: Difficulty;
  tags: string[];
}

export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  build: string;
  startedAt: string;
  database: 'ok' | 'error';
  /** `full` while writes fail for want of disk space (they answer 507). */
  disk: 'ok' | 'full';
}

export interface PublicStats {
  users: number;
  monthlyVisitors: number;
  pageViews: number;
  commands: number;
  guides: number;
  discordMembers: number | null;
  /** Percent (0-100) from the fans' command ratings; null when nobody has rated. */
  userSatisfaction: number | null;
  ratingCount: number;
  /** Registered members. */
  targetedAudience: number;
  startedAt: string;
}

export interface Banner {
  isActive: boolean;
  backgroundColor: string;
  textColor: string;
  borderColor: string;
  advertisementId: number | null;
  expiresAt: string | null;
}

export interface AiAnalysis {
  summary: string;
  mainProduct: string;
  category: string;
  priceRange: string;
  keyFeatures: string[];
  callToAction: string;
  /** 'heuristic' or 'llm'. */
  source?: string;
  /** 'confident': the category and call to action follow from the evidence; 'unsure': they are neutral. */
  certainty?: 'confident' | 'unsure';
  /** 0-100: how strongly and clearly the evidence points to one category. */
  confidence?: number;
  /** The category the evidence leans to, also when unsure; null when nothing pointed anywhere. */
  guess?: string | null;
  /** Why: each category the ad's words point to, strongest first. */
  evidence?: { category: string; points: number; matched: string[] }[];
}

export interface Advertisement {
  id: number;
  websiteUrl: string;
  imagePath: string;
  adDescription: string;
  premiumFullscreen: boolean;
  duration: string;
  fullscreenMessageType: string | null;
  fullscreenCustomMessage: string | null;
  aiAnalysis: AiAnalysis | null;
  links?: string[] | null;
}

export interface ActiveBannerResponse {
  banner: Banner;
  advertisement: Advertisement | null;
}

export interface LinkItem { label: string; url: string; description: string }
export interface TitledText { title: string; description: string }

export interface SiteSettings {
  name: string;
  shortName: string;
  tagline: string;
  description: string;
  version: { label: string; status: string; build: string; startedAt: string };
  madeBy: { name: string; url: string };
  links: { game: string; wiki: string; community: string; videoSearch: string };
  hero: { title: string; subtitle: string; buildingTools: number; largeServerPlayers: number; publicServerPlayers: number };
  features: { title: string; description: string; icon: string }[];
  /** `image`: a path on this site or an http(s) URL; `alt`: what it shows (absent: decoration). */
  showcase: { title: string; builder: string; description: string; image?: string; alt?: string }[];
  creatorVideos: { creator: string; title: string; description: string }[];
  clan: { name: string; message: string; inviteUrl: string };
  defaultBanner: { backgroundColor: string; textColor: string; borderColor: string };
  gettingStarted: TitledText[];
  buildingTips: string[];
  adminBestPractices: string[];
  serverTypes: { name: string; maxPlayers: number; description: string }[];
  officialLinks: LinkItem[];
  factions: { name: string; description: string; icon: string }[];
  funFacts: string[];
  permissions: Record<Permission, string>;
  selectors: { selector: string; description: string }[];
  credits: { name: string; role: string }[];
  copyright: string;
  publicApiKey: string | null;
  /** Head texts per route (site.toml [[pages]]). */
  pages: PageText[];
  /** Products with Discord updates (site.toml [updates.<product>]). */
  updates?: Record<string, { title: string | null }>;
  /** site.toml [classification]: the eras by join date and the ELC rule (the newgen verdict explains itself with them). */
  classification?: import('./api/schema').components['schemas']['Classification'];
}

export interface PageText {
  path: string;
  title: string;
  description: string;
  index: boolean;
  /** "title | site name", as the server writes it into the shell. */
  documentTitle: string;
}

export type Role = 'user' | 'moderator' | 'admin';

export interface User {
  id: number;
  username: string;
  email: string | null;
  robloxId: string | null;
  role: Role;
  isActive: boolean;
  createdAt: string;
  lastLogin: string | null;
}

export interface Favorite {
  userId: number;
  itemType: 'command';
  itemId: number;
}
