import { useQuery } from '@tanstack/react-query';
import type { SiteSettings } from './types';

/** The site's public settings (names, links, texts). Loaded once; never stale. */
export function useSite() {
  return useQuery<SiteSettings>({ queryKey: ['/api/site'] });
}

/** A video-site search link built from the creator and the title. */
export function videoSearchUrl(prefix: string, creator: string, title: string): string {
  return prefix + encodeURIComponent(`${creator} ${title}`);
}
