import type { ActiveBannerResponse, Advertisement } from '../lib/types';

/** An ad's image URL: paths under /uploads/ as given, anything else as /uploads/<file name>. '' when none. */
export function adImageSrc(imagePath: string | null | undefined): string {
  if (!imagePath) return '';
  if (imagePath.startsWith('/uploads/')) return imagePath;
  const name = imagePath.split(/[\\/]/).filter(Boolean).pop() ?? '';
  return name ? `/uploads/${encodeURIComponent(name)}` : '';
}

/** The advertisement to show as SPONSORED, or null for the default clan banner. */
export function activeAd(data: ActiveBannerResponse | undefined): Advertisement | null {
  return data?.banner.isActive && data.advertisement ? data.advertisement : null;
}

/** Whether the ad qualifies for the fullscreen takeover. */
export function isFullscreenAd(ad: Advertisement | null): boolean {
  return !!ad && (ad.premiumFullscreen || ad.duration === '10-fullscreen');
}

/** Only http(s) links are followed; anything else is dropped. */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url, 'http://localhost');
    return u.protocol === 'http:' || u.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** How many of the advertiser's additional links the bottom banner shows. */
export const BANNER_LINKS = 3;

/** The advertiser's links for the banner: http(s) only, at most BANNER_LINKS, labelled by host and path. */
export function bannerLinks(links: readonly string[] | null | undefined, max = BANNER_LINKS): { href: string; label: string }[] {
  const out: { href: string; label: string }[] = [];
  for (const raw of links ?? []) {
    const href = safeHref(raw?.trim());
    if (!href || !/^https?:\/\//i.test(href) || out.some((l) => l.href === href)) continue;
    // The host alone says where a link goes; a path cut short to fit ("video.example.com/watch/bl…") says less.
    const label = new URL(href).hostname.replace(/^www\./, '');
    out.push({ href, label });
    if (out.length >= max) break;
  }
  return out;
}

export const FULLSCREEN_SESSION_KEY = 'fanhub_fullscreen_ad';
export const FULLSCREEN_CHANCE = 0.5;
export const FULLSCREEN_AUTO_CLOSE_MS = 8_000;
/** The fullscreen ad shows the first 3 key features. */
export const FULLSCREEN_KEY_FEATURES = 3;

/**
 * Decides once per browser session whether the fullscreen ad shows: only when none was decided yet this
 * session, with a 50% chance. The decision is remembered in sessionStorage.
 */
export function rollFullscreen(storage: Pick<Storage, 'getItem' | 'setItem'> | null, random: () => number = Math.random): boolean {
  try {
    if (storage?.getItem(FULLSCREEN_SESSION_KEY)) return false;
  } catch {
    // storage unavailable: still roll, once per page load (the caller remembers)
  }
  const show = random() < FULLSCREEN_CHANCE;
  try {
    storage?.setItem(FULLSCREEN_SESSION_KEY, show ? 'shown' : 'skipped');
  } catch {
    // ignore
  }
  return show;
}

/** The call to action when the advertiser gave no message and the analysis is not confident: true of every ad. */
export const NEUTRAL_CALL_TO_ACTION = 'Visit site';

/** Lowercase words only, for telling whether one text repeats another. */
function plain(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Whether `part` says nothing `whole` does not already say (the heuristic analysis quotes the description). */
export function repeats(part: string, whole: string): boolean {
  const p = plain(part);
  return p === '' || ` ${plain(whole)} `.includes(` ${p} `);
}

export interface FullscreenContent {
  /** The analysis's summary, when it says something the description does not (the description is shown once). */
  summary: string | null;
  /** Up to FULLSCREEN_KEY_FEATURES key features the description does not already say. */
  features: string[];
  /** The call to action: the advertiser's own message, else the analysis's when it is confident, else neutral. */
  callToAction: string;
  /** Whether `callToAction` is the advertiser's own words. */
  advertisersWords: boolean;
}

/** What the fullscreen ad shows besides the image and the description, each thing once. */
export function fullscreenContent(ad: Advertisement): FullscreenContent {
  const description = ad.adDescription ?? '';
  const custom = ad.fullscreenMessageType === 'user-input' ? (ad.fullscreenCustomMessage ?? '').trim() : '';
  const ai = ad.aiAnalysis;
  const summary = !custom && ai?.summary?.trim() && !repeats(ai.summary, description) ? ai.summary.trim() : null;
  const said = [description, summary ?? ''].join(' ');
  const features: string[] = [];
  for (const f of ai?.keyFeatures ?? []) {
    const text = f?.trim();
    if (!text || repeats(text, said) || features.some((x) => repeats(text, x))) continue;
    features.push(text);
    if (features.length >= FULLSCREEN_KEY_FEATURES) break;
  }
  const confident = ai?.certainty === 'confident' && !!ai.callToAction?.trim();
  return {
    summary,
    features,
    callToAction: custom || (confident ? ai.callToAction.trim() : NEUTRAL_CALL_TO_ACTION),
    advertisersWords: !!custom,
  };
}
