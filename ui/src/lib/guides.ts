// Guides: their text in paragraphs, and the address of one guide's reading view (/guides?guide=ID).
import type { Guide } from './types';

/** The query parameter naming the guide open in the reading view. */
export const GUIDE_PARAM = 'guide';

/** The address that opens one guide in the reading view (what its Share button shares). */
export function guideLink(id: number): string {
  return `/guides?${GUIDE_PARAM}=${encodeURIComponent(String(id))}`;
}

/** The guide id an address names (query string with or without "?"), as written; null when none. */
export function guideParam(query: string): string | null {
  const raw = new URLSearchParams(query).get(GUIDE_PARAM)?.trim().slice(0, 40);
  return raw ? raw : null;
}

/** The guide `raw` names: a whole positive number equal to a guide's id ("007" is 7); else undefined. */
export function findGuide(guides: readonly Guide[], raw: string | null): Guide | undefined {
  if (!raw || !/^\d+$/.test(raw)) return undefined;
  const id = Number(raw);
  return guides.find((g) => g.id === id);
}

/** The content's paragraphs (separated by blank lines), trimmed, without empty ones. */
export function paragraphsOf(content: string): string[] {
  return content
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}
