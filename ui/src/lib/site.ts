import { useEffect } from 'react';
import { useQuery, type QueryClient } from '@tanstack/react-query';
import type { SiteSettings } from './types';

export const SITE_KEY = ['/api/site'] as const;

/** The id of the JSON block in which the server embeds GET /api/site into the shell (src/shell/head.rs). */
export const SITE_DATA_ID = 'fanhub-site';

/** The site's public settings (names, links, texts). Loaded once; never stale. */
export function useSite() {
  return useQuery<SiteSettings>({ queryKey: SITE_KEY });
}

/** The settings the shell carries, or null when it carries none (or nothing readable). */
export function readEmbeddedSite(doc: Document = document): SiteSettings | null {
  const text = doc.getElementById(SITE_DATA_ID)?.textContent;
  if (!text) return null;
  try {
    const data = JSON.parse(text);
    return data && typeof data === 'object' && typeof data.name === 'string' ? (data as SiteSettings) : null;
  } catch {
    return null;
  }
}

/** Seeds the query cache from the shell so the first screen renders without waiting for /api/site. */
export function seedSiteFromShell(client: QueryClient, doc: Document = document): boolean {
  const site = readEmbeddedSite(doc);
  if (site) client.setQueryData(SITE_KEY, site);
  return site !== null;
}

/** The title of the not-found page (the server writes the same into the 404 shell). */
export const NOT_FOUND_TITLE = '404 Page Not Found';

/** The document title for a path: the page's title from site.toml, else the not-found title. */
export function documentTitleFor(site: SiteSettings, path: string): string {
  const page = site.pages?.find((p) => p.path === path);
  return page ? page.documentTitle : `${NOT_FOUND_TITLE} | ${site.name}`;
}

/** Keeps document.title in step with client-side navigation. */
export function useDocumentTitle(path: string) {
  const { data: site } = useSite();
  useEffect(() => {
    if (site) document.title = documentTitleFor(site, path);
  }, [site, path]);
}

/** A video-site search link built from the creator and the title. */
export function videoSearchUrl(prefix: string, creator: string, title: string): string {
  return prefix + encodeURIComponent(`${creator} ${title}`);
}
