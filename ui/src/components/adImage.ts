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

export const FULLSCREEN_SESSION_KEY = 'fanhub_fullscreen_ad';
export const FULLSCREEN_CHANCE = 0.5;
export const FULLSCREEN_AUTO_CLOSE_MS = 8_000;

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
