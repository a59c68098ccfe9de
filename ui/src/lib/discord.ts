// The Updates page (/discord-news): what GET /api/discord/{product}-updates answers and how the
// page words it.
import type { components } from './api/schema';
import type { SiteSettings } from './types';

export type SummaryInfo = components['schemas']['SummaryInfo'];
export type ProductUpdates = components['schemas']['ProductUpdates'];

export const EMPTY_GAME_UPDATES = 'No recent game updates available';
export const EMPTY_COMMUNITY_HIGHLIGHTS = 'No recent community highlights available';
/** The manual refresh shows 'Refreshing...' for about a second. */
export const REFRESH_SPINNER_MS = 1_000;

/** The products of the site file's `[updates.<product>]`, in its order. */
export function productsOf(site: SiteSettings | undefined): { product: string; title: string }[] {
  return Object.entries(site?.updates ?? {}).map(([product, u]) => ({ product, title: u.title ?? product }));
}

/** The query key whose joined path is the product's endpoint. */
export function updatesKey(product: string): [string, string] {
  return ['/api/discord', `${product}-updates`];
}

/** Who wrote a summary: "AI summary (model)" or "Extractive summary". */
export function sourceLabel(info: SummaryInfo): string {
  if (info.source === 'ai') return info.model ? `AI summary (${info.model})` : 'AI summary';
  return 'Extractive summary';
}
