import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Crown, ExternalLink, ImageOff, Maximize2, X } from 'lucide-react';
import { POLL } from '../lib/queryClient';
import { useSite } from '../lib/site';
import type { ActiveBannerResponse, Advertisement } from '../lib/types';
import { activeAd, adImageSrc, bannerLinks, safeHref } from './adImage';
import { cn } from './ui/cn';

/** The active banner, polled every 5 s without retries (shared by the banner and the fullscreen ad). */
export function useActiveBanner() {
  return useQuery<ActiveBannerResponse>({
    queryKey: ['/api/admin/active-banner'],
    refetchInterval: POLL.activeBanner,
    retry: false,
  });
}

/** An ad image that hides itself and shows a placeholder icon when it fails to load. */
export function AdImage({ imagePath, className, iconSize = 24 }: { imagePath: string; className?: string; iconSize?: number }) {
  const src = adImageSrc(imagePath);
  // Remember which source failed, so a new image gets its own chance without an effect resetting the flag.
  const [failedSrc, setFailedSrc] = useState('');
  if (!src || failedSrc === src) {
    return (
      <div
        role="img"
        aria-label="Advertisement image unavailable"
        className={cn('flex shrink-0 items-center justify-center rounded-lg bg-black/20', className)}
      >
        <ImageOff size={iconSize} aria-hidden="true" className="opacity-70" />
      </div>
    );
  }
  return (
    <img
      src={src}
      alt="Advertisement"
      loading="lazy"
      decoding="async"
      onError={() => setFailedSrc(src)}
      className={cn('shrink-0 rounded-lg object-cover', className)}
    />
  );
}

const closeClass =
  'inline-flex h-9 w-9 shrink-0 cursor-pointer items-center justify-center rounded-lg opacity-80 hover:bg-black/20 hover:opacity-100 max-sm:h-11 max-sm:w-11 pointer-coarse:h-12 pointer-coarse:w-12';

const ctaClass =
  'inline-flex min-h-9 shrink-0 items-center gap-1.5 rounded-lg border px-3 py-1.5 text-sm font-semibold hover:bg-black/15 pointer-coarse:min-h-11';

export interface BottomBannerProps {
  /** Opens the fullscreen ad overlay ('Test Full-Screen'). */
  onTestFullscreen: () => void;
}

/** The global bottom banner: SPONSORED ad when one is active, else the default EXCLUSIVE clan banner. */
export function BottomBanner({ onTestFullscreen }: BottomBannerProps) {
  const [closed, setClosed] = useState(false);
  const { data: site } = useSite();
  const { data } = useActiveBanner();
  const ref = useRef<HTMLElement>(null);
  const ad = activeAd(data);
  const sponsored = !!ad;
  const visible = !closed && (sponsored || !!site);

  // Publish the banner height so fixed bottom elements (the shortcuts button) sit above it. Measured again when
  // the same <aside> switches between the clan banner and an ad (where no ResizeObserver follows its size).
  useEffect(() => {
    const root = document.documentElement;
    const el = ref.current;
    if (!visible || !el) {
      root.style.removeProperty('--banner-h');
      return;
    }
    const update = () => root.style.setProperty('--banner-h', `${el.offsetHeight}px`);
    update();
    if (typeof ResizeObserver === 'undefined') return () => root.style.removeProperty('--banner-h');
    const ro = new ResizeObserver(update);
    ro.observe(el);
    return () => {
      ro.disconnect();
      root.style.removeProperty('--banner-h');
    };
  }, [visible, sponsored]);

  if (!visible) return null;

  const colours = data?.banner ?? site?.defaultBanner;
  const style = colours
    ? { backgroundColor: colours.backgroundColor, color: colours.textColor, borderColor: colours.borderColor }
    : undefined;

  return (
    <aside
      ref={ref}
      aria-label={ad ? 'Sponsored' : 'Announcement'}
      style={style}
      className={cn('sticky bottom-0 z-40 border-t-2', !style && 'bg-violet-600 text-white')}
    >
      <div className="mx-auto flex max-w-7xl items-start gap-3 px-4 py-2.5 sm:items-center">
        {ad ? <Sponsored ad={ad} onTestFullscreen={onTestFullscreen} /> : site && <Exclusive clan={site.clan} />}
        <button type="button" aria-label="Close banner" onClick={() => setClosed(true)} className={closeClass}>
          <X size={18} aria-hidden="true" />
        </button>
      </div>
    </aside>
  );
}

function Tag({ children }: { children: string }) {
  return (
    <span className="shrink-0 rounded-full border border-current px-2 py-0.5 text-[10px] font-bold uppercase tracking-widest">
      {children}
    </span>
  );
}

/** The advertisement fields the sponsored banner shows. */
export type SponsoredAd = Pick<Advertisement, 'websiteUrl' | 'imagePath' | 'adDescription' | 'links'>;

/** The SPONSORED banner's content; without `onTestFullscreen` (the admin's preview) there is no Test Full-Screen button. */
export function Sponsored({ ad, onTestFullscreen }: { ad: SponsoredAd; onTestFullscreen?: () => void }) {
  const href = safeHref(ad.websiteUrl);
  const links = bannerLinks(ad.links);
  return (
    <div className="flex min-w-0 flex-1 flex-wrap items-center gap-x-3 gap-y-2">
      <Tag>SPONSORED</Tag>
      <AdImage imagePath={ad.imagePath} className="h-12 w-12" iconSize={20} />
      <div className="order-last min-w-0 flex-1 basis-full sm:order-none sm:basis-40">
        <p className="line-clamp-2 break-words text-sm">{ad.adDescription}</p>
        {links.length > 0 && (
          <ul className="mt-0.5 flex flex-wrap gap-x-3 text-xs" aria-label="Advertiser links">
            {links.map((l) => (
              <li key={l.href}>
                <a href={l.href} target="_blank" rel="noopener noreferrer sponsored" className="underline underline-offset-2 hover:opacity-80">
                  {l.label}
                </a>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="ml-auto flex items-center gap-2 sm:ml-0">
        {href && (
          <a href={href} target="_blank" rel="noopener noreferrer sponsored" className={ctaClass}>
            Visit
            <ExternalLink size={14} aria-hidden="true" />
          </a>
        )}
        {onTestFullscreen && (
          <button type="button" onClick={onTestFullscreen} className={cn(ctaClass, 'cursor-pointer')}>
            <Maximize2 size={14} aria-hidden="true" />
            Test Full-Screen
          </button>
        )}
      </div>
    </div>
  );
}

function Exclusive({ clan }: { clan: { name: string; message: string; inviteUrl: string } }) {
  const href = safeHref(clan.inviteUrl);
  return (
    <div className="flex min-w-0 flex-1 flex-wrap items-center gap-x-3 gap-y-2">
      <Tag>EXCLUSIVE</Tag>
      <Crown size={20} aria-hidden="true" className="shrink-0" />
      <p className="order-last min-w-0 flex-1 basis-full text-sm max-sm:line-clamp-2 sm:order-none sm:basis-40">
        <span className="font-bold">{clan.name}</span>
        <span className="opacity-90"> — {clan.message}</span>
      </p>
      {href && (
        <a href={href} target="_blank" rel="noopener noreferrer" className={cn(ctaClass, 'ml-auto sm:ml-0')}>
          Join {clan.name}
          <ExternalLink size={14} aria-hidden="true" />
        </a>
      )}
    </div>
  );
}
