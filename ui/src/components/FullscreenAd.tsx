import { useEffect, useRef } from 'react';
import { createPortal } from 'react-dom';
import { ExternalLink, Sparkles, X } from 'lucide-react';
import { activeAd, FULLSCREEN_AUTO_CLOSE_MS, isFullscreenAd, rollFullscreen, safeHref } from './adImage';
import { AdImage, useActiveBanner } from './BottomBanner';

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
 * ad, or on demand ('Test Full-Screen'); closes after 8 s, on its close button or on a backdrop click.
 */
export function FullscreenAd({ open, onOpenChange }: FullscreenAdProps) {
  const { data } = useActiveBanner();
  const ad = activeAd(data);
  const rolled = useRef(false);
  const closeRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (rolled.current || !isFullscreenAd(ad)) return;
    rolled.current = true;
    if (rollFullscreen(sessionStore())) onOpenChange(true);
  }, [ad?.id]);

  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(() => onOpenChange(false), FULLSCREEN_AUTO_CLOSE_MS);
    const opener = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onOpenChange(false);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('keydown', onKey);
      if (opener && document.contains(opener)) opener.focus();
    };
  }, [open]);

  if (!open || !ad) return null;

  const href = safeHref(ad.websiteUrl);
  const custom = ad.fullscreenMessageType === 'user-input' && ad.fullscreenCustomMessage;
  const ai = ad.aiAnalysis;

  return createPortal(
    <div className="fixed inset-0 z-[60] flex items-center justify-center p-4">
      <div aria-hidden="true" data-testid="fullscreen-ad-backdrop" className="absolute inset-0 bg-black/85" onClick={() => onOpenChange(false)} />
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="fullscreen-ad-title"
        className="relative max-h-[calc(100dvh-2rem)] w-full max-w-2xl overflow-y-auto rounded-2xl border border-violet-500/50 bg-slate-900 p-6 text-slate-100 shadow-2xl"
      >
        <button
          ref={closeRef}
          type="button"
          aria-label="Close advertisement"
          onClick={() => onOpenChange(false)}
          className="absolute right-3 top-3 inline-flex h-10 w-10 cursor-pointer items-center justify-center rounded-full bg-slate-800 text-slate-200 hover:bg-slate-700 pointer-coarse:h-12 pointer-coarse:w-12"
        >
          <X size={20} aria-hidden="true" />
        </button>
        <p id="fullscreen-ad-title" className="mb-4 text-xs font-bold uppercase tracking-widest text-violet-300">
          SPONSORED
        </p>
        <AdImage imagePath={ad.imagePath} className="mb-4 h-56 w-full sm:h-72" iconSize={48} />
        <p className="text-lg font-semibold">{ad.adDescription}</p>
        {custom ? (
          <p className="mt-3 whitespace-pre-line text-slate-200">{ad.fullscreenCustomMessage}</p>
        ) : (
          ai && (
            <div className="mt-3 grid gap-3">
              {ai.summary && (
                <p className="flex gap-2 text-slate-300">
                  <Sparkles size={18} aria-hidden="true" className="mt-0.5 shrink-0 text-violet-300" />
                  {ai.summary}
                </p>
              )}
              {ai.keyFeatures.length > 0 && (
                <ul className="grid gap-1 text-sm text-slate-300">
                  {ai.keyFeatures.slice(0, 3).map((f) => (
                    <li key={f} className="flex gap-2">
                      <span aria-hidden="true" className="text-violet-400">•</span>
                      {f}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )
        )}
        {href && (
          <a
            href={href}
            target="_blank"
            rel="noopener noreferrer sponsored"
            className="mt-5 inline-flex h-11 items-center gap-2 rounded-lg bg-violet-600 px-5 font-semibold text-white hover:bg-violet-500"
          >
            {(!custom && ai?.callToAction) || 'Visit Website'}
            <ExternalLink size={16} aria-hidden="true" />
          </a>
        )}
      </div>
    </div>,
    document.body,
  );
}
