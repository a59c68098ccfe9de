// Sharing a link: the Web Share API where the browser has it (phones: the system share sheet),
// otherwise the link is copied with the site's toast. One function, so every Share button behaves alike.
import { copyText } from './clipboard';
import { toast } from './toast';

export interface ShareTarget {
  /** What is shared, e.g. a command's or a player's name: the share sheet's title. */
  title: string;
  /** One line about it (optional): the share sheet's text. */
  text?: string;
  /** The address to share; absolute or relative to this page. */
  url: string;
}

export type ShareOutcome = 'shared' | 'copied' | 'cancelled' | 'failed';

/** An absolute address for `url` (relative addresses are resolved against the current page). */
export function absoluteUrl(url: string, base: string = typeof location === 'undefined' ? 'http://localhost/' : location.href): string {
  return new URL(url, base).toString();
}

/**
 * Shares `target` and says what happened. A share sheet the person closes is 'cancelled' (no toast: they
 * chose to); a browser without the Web Share API, or one that refuses it, gets the link copied instead.
 */
export async function shareLink(target: ShareTarget, nav: Navigator | undefined = typeof navigator === 'undefined' ? undefined : navigator): Promise<ShareOutcome> {
  const url = absoluteUrl(target.url);
  const data: ShareData = { title: target.title, text: target.text, url };
  if (nav?.share && (!nav.canShare || nav.canShare(data))) {
    try {
      await nav.share(data);
      return 'shared';
    } catch (e) {
      if (e instanceof DOMException && e.name === 'AbortError') return 'cancelled';
      // NotAllowedError and the like: fall back to copying.
    }
  }
  if (await copyText(url)) {
    toast({ title: 'Link copied', description: url });
    return 'copied';
  }
  toast({ title: 'Copy failed', description: `Your browser did not allow copying. The link is ${url}`, variant: 'destructive' });
  return 'failed';
}
