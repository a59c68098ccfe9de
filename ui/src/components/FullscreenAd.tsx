import { useEffect, useRef } from 'react';
import { ExternalLink, Sparkles } from 'lucide-react';
import { activeAd, FULLSCREEN_AUTO_CLOSE_MS, fullscreenContent, isFullscreenAd, rollFullscreen, safeHref } from './adImage';
import { AdImage, AdvertiserLinks, useActiveBanner } from './BottomBanner';
import { Dialog } from './ui/Dialog';

export interface FullscreenAdProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/**
 * The fullscreen ad overlay. Opens by itself at most once a session (50% chance) for a premium/10-fullscreen
 * ad, or on demand ('Test Full-Screen'); closes after 8 s, on its close button, on a backdrop click or Esc.
 * A modal dialog: focus moves in, Tab stays inside, focus returns to the opener.
 */
export function FullscreenAd({ open, onOpenChange }: FullscreenAdProps) {
  const { data } = useActiveBanner();
  const ad = activeAd(data);
  const hasAd = !!ad;
  const fullscreen = isFullscreenAd(ad);
  const rolled = useRef(false);
  const close = () => onOpenChange(false);

  // onOpenChange is expected to be stable (App passes a state setter): a new one every render would restart
  // the auto-close timer.
  useEffect(() => {
    if (rolled.current || !fullscreen) return;
    rolled.current = true;
    if (rollFullscreen(sessionStore())) onOpenChange(true);
  }, [fullscreen, onOpenChange]);

  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(() => onOpenChange(false), FULLSCREEN_AUTO_CLOSE_MS);
    return () => clearTimeout(timer);
  }, [open, onOpenChange]);

  // The ad ended while the overlay was open: nothing left to show.
  useEffect(() => {
    if (open && !hasAd) onOpenChange(false);
  }, [open, hasAd, onOpenChange]);

  if (!ad) return null;

  const href = safeHref(ad.websiteUrl);
  const { summary, features, callToAction, advertisersWords } = fullscreenContent(ad);
  const colours = data?.banner;

  return (
    <Dialog
      open={open}
      onClose={close}
      ariaLabel="Sponsored advertisement"
      className="max-w-2xl!"
    >
      <div data-testid="fullscreen-ad">
        <p
          className="mb-4 inline-block rounded-full border-2 px-3 py-0.5 text-xs font-bold uppercase tracking-widest"
          style={colours ? { backgroundColor: colours.backgroundColor, color: colours.textColor, borderColor: colours.borderColor } : undefined}
        >
          SPONSORED
        </p>
        {/* The whole image at its own aspect ratio, as the advertiser made it. */}
        <AdImage
          imagePath={ad.imagePath}
          className="mx-auto mb-4 block max-h-[45vh] max-w-full sm:max-h-80"
          placeholderClassName="mb-4 h-56 w-full sm:h-72"
          iconSize={48}
        />
        <p className="break-words text-lg font-semibold text-white" data-testid="fullscreen-ad-description">
          {ad.adDescription}
        </p>
        {summary && (
          <p className="mt-3 flex gap-2 text-slate-300" data-testid="fullscreen-ad-summary">
            <Sparkles size={18} aria-hidden="true" className="mt-0.5 shrink-0 text-violet-300" />
            <span className="break-words">{summary}</span>
          </p>
        )}
        {features.length > 0 && (
          <ul className="mt-3 grid gap-1 text-sm text-slate-300" aria-label="Key features" data-testid="fullscreen-ad-features">
            {features.map((f, i) => (
              <li key={i} className="flex gap-2">
                <span aria-hidden="true" className="text-violet-300">
                  •
                </span>
                <span className="break-words">{f}</span>
              </li>
            ))}
          </ul>
        )}
        {!href && advertisersWords && (
          <p className="mt-3 whitespace-pre-line break-words text-slate-200" data-testid="fullscreen-ad-cta">
            {callToAction}
          </p>
        )}
        {href && (
          <a
            href={href}
            target="_blank"
            rel="noopener noreferrer sponsored"
            data-testid="fullscreen-ad-cta"
            data-advertisers-words={advertisersWords ? 'true' : undefined}
            className="mt-5 inline-flex min-h-11 max-w-full items-center gap-2 rounded-lg bg-violet-600 px-5 py-2 font-semibold text-white hover:bg-violet-700"
          >
            <span className="min-w-0 whitespace-pre-line break-words">{callToAction}</span>
            <ExternalLink size={16} aria-hidden="true" className="shrink-0" />
          </a>
        )}
        <AdvertiserLinks
          links={ad.links}
          className="mt-4 flex flex-wrap gap-x-5 text-sm"
          linkClassName="inline-flex min-h-11 items-center gap-1.5 break-all text-violet-300 underline underline-offset-2 hover:text-violet-200"
          icon
          testId="fullscreen-ad-links"
        />
      </div>
    </Dialog>
  );
}
