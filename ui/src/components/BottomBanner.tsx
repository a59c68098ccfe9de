import type { ComponentChildren } from 'preact';
import { useState } from 'react';
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

/**
 * An ad image, whole at its own aspect ratio (sized by `className`'s max-width/max-height, never cropped); when it
 * fails to load it hides itself and a placeholder icon (sized by `placeholderClassName`) shows.
 */
export function AdImage({
  imagePath,
  className,
  placeholderClassName,
  iconSize = 24,
}: {
  imagePath: string | null | undefined;
  className?: string;
  placeholderClassName?: string;
  iconSize?: number;
}) {
  const src = adImageSrc(imagePath);
  // Remember which source failed, so a new image gets its own chance without an effect resetting the flag.
  const [failedSrc, setFailedSrc] = useState('');
  if (!src || failedSrc === src) {
    return (
      <div
        role="img"
        aria-label="Advertisement image unavailable"
        className={cn('flex shrink-0 items-center justify-center rounded-lg bg-black/20', placeholderClassName)}
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
      className={cn('h-auto w-auto shrink-0 rounded object-contain', className)}
    />
  );
}

/** The sessionStorage key that keeps the banner closed for the rest of the visit. */
export const BANNER_CLOSED_KEY = 'fanhub_banner_closed';

function visitStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** Whether the visitor closed the banner during this visit (every page of the session), and the way to close it. */
function useClosedForVisit(): [boolean, () => void] {
  const [closed, setClosed] = useState(() => {
    try {
      return visitStore()?.getItem(BANNER_CLOSED_KEY) === '1';
    } catch {
      return false;
    }
  });
  const close = () => {
    setClosed(true);
    try {
      visitStore()?.setItem(BANNER_CLOSED_KEY, '1');
    } catch {
      // storage refused: closed for this page only
    }
  };
  return [closed, close];
}

// The close button keeps a 44x44 hit area on touch and on phone widths.
const closeClass =
  'inline-flex h-9 w-9 shrink-0 cursor-pointer items-center justify-center rounded-lg opacity-80 hover:bg-black/20 hover:opacity-100 max-sm:h-11 max-sm:w-11 pointer-coarse:h-11 pointer-coarse:w-11 col-start-2 row-start-1';

const ctaClass =
  'inline-flex min-h-9 shrink-0 items-center gap-1.5 whitespace-nowrap rounded-lg border px-3 text-sm font-semibold hover:bg-black/15 pointer-coarse:min-h-11 max-sm:px-2.5';

/** One line; what does not fit ends with an ellipsis, the whole text stays in the title. */
const oneLine = 'min-w-0 truncate';

export interface BottomBannerProps {
  /** Opens the fullscreen ad overlay ('Test Full-Screen'). */
  onTestFullscreen: () => void;
}

/**
 * The global bottom banner: SPONSORED ad when one is active, else the default EXCLUSIVE clan banner. One row from
 * `sm` up; on a phone two (the label, image, text and close button, then the links and buttons), so it stays well
 * under the 120 px the bottom band may take. Closed, it stays closed for the visit.
 */
export function BottomBanner({ onTestFullscreen }: BottomBannerProps) {
  const [closed, close] = useClosedForVisit();
  const { data: site } = useSite();
  const { data } = useActiveBanner();
  const ad = activeAd(data);
  if (closed || !(ad || site)) return null;

  const colours = data?.banner ?? site?.defaultBanner;
  const style = colours
    ? { backgroundColor: colours.backgroundColor, color: colours.textColor, borderColor: colours.borderColor }
    : undefined;
  const closeButton = (
    <button type="button" aria-label="Close banner" onClick={close} className={closeClass}>
      <X size={18} aria-hidden="true" />
    </button>
  );

  return (
    <aside
      aria-label={ad ? 'Sponsored' : 'Announcement'}
      data-testid="bottom-banner"
      style={style}
      className={cn('pointer-events-auto border-t-2', !style && 'bg-violet-600 text-white')}
    >
      {ad ? (
        <Sponsored ad={ad} onTestFullscreen={onTestFullscreen} closeButton={closeButton} />
      ) : (
        site && <Exclusive clan={site.clan} closeButton={closeButton} />
      )}
    </aside>
  );
}

function Tag({ children }: { children: string }) {
  return (
    <span className="shrink-0 rounded-full border border-current px-1.5 py-0.5 text-[10px] font-bold uppercase tracking-wider sm:px-2 sm:tracking-widest">
      {children}
    </span>
  );
}

/**
 * The banner's layout. From `sm` up one row: `first` (label, image, text) takes the room left, then `second` (links,
 * buttons), then the close button. On a phone a grid of two rows: `first` and the close button, then `second`.
 */
function Row({ first, closeButton, second }: { first: ComponentChildren; closeButton?: ComponentChildren; second: ComponentChildren }) {
  return (
    <div className="mx-auto grid max-w-7xl grid-cols-[minmax(0,1fr)_auto] items-center gap-x-2 gap-y-0.5 px-3 py-1 sm:flex sm:gap-x-3 sm:px-4 sm:py-1.5">
      <div className="col-start-1 row-start-1 flex min-w-0 items-center gap-2 sm:flex-1 sm:gap-3">{first}</div>
      {second && (
        <div className="col-span-2 row-start-2 flex min-w-0 items-center justify-end gap-2 sm:max-w-[50%] sm:gap-3">{second}</div>
      )}
      {closeButton}
    </div>
  );
}

/**
 * The advertiser's extra links (at most 3, http(s) only, labelled by their host), each opening in a new tab as
 * sponsored; nothing when there are none. The banner and the full-screen ad draw them each their own way.
 */
export function AdvertiserLinks({
  links,
  className,
  itemClassName,
  linkClassName,
  icon = false,
  testId,
}: {
  links: readonly string[] | null | undefined;
  className: string;
  itemClassName?: string;
  linkClassName: string;
  icon?: boolean;
  testId?: string;
}) {
  const shown = bannerLinks(links);
  if (shown.length === 0) return null;
  return (
    <ul className={className} aria-label="Advertiser links" data-testid={testId}>
      {shown.map((l) => (
        <li key={l.href} className={itemClassName}>
          <a href={l.href} title={l.href} target="_blank" rel="noopener noreferrer sponsored" className={linkClassName}>
            {l.label}
            {icon && <ExternalLink size={14} aria-hidden="true" className="shrink-0" />}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** The advertisement fields the sponsored banner shows. */
export type SponsoredAd = Pick<Advertisement, 'websiteUrl' | 'imagePath' | 'adDescription' | 'links'>;

/**
 * The SPONSORED banner's content; without `onTestFullscreen` (the admin's preview) there is no Test Full-Screen
 * button, and without `closeButton` no close button.
 */
export function Sponsored({
  ad,
  onTestFullscreen,
  closeButton,
}: {
  ad: SponsoredAd;
  onTestFullscreen?: () => void;
  closeButton?: ComponentChildren;
}) {
  const href = safeHref(ad.websiteUrl);
  return (
    <Row
      closeButton={closeButton}
      first={
        <>
          <Tag>SPONSORED</Tag>
          <AdImage
            imagePath={ad.imagePath}
            className="max-h-9 max-w-20 sm:max-w-40"
            placeholderClassName="h-9 w-9"
            iconSize={18}
          />
          <p className={cn(oneLine, 'flex-1 text-sm')} title={ad.adDescription} data-testid="banner-text">
            {ad.adDescription}
          </p>
        </>
      }
      second={
        <>
          {/* On a phone the row has room for the two buttons only: the links are in the full-screen ad. */}
          <AdvertiserLinks
            links={ad.links}
            className="hidden min-w-0 gap-x-3 overflow-hidden text-xs sm:flex"
            itemClassName={cn(oneLine, 'max-w-48')}
            linkClassName="underline underline-offset-2 hover:opacity-80"
          />
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
        </>
      }
    />
  );
}

function Exclusive({ clan, closeButton }: { clan: { name: string; message: string; inviteUrl: string }; closeButton: ComponentChildren }) {
  const href = safeHref(clan.inviteUrl);
  return (
    <Row
      closeButton={closeButton}
      first={
        <>
          <Tag>EXCLUSIVE</Tag>
          <Crown size={20} aria-hidden="true" className="shrink-0" />
          <p className={cn(oneLine, 'flex-1 text-sm')} title={`${clan.name} — ${clan.message}`} data-testid="banner-text">
            <span className="font-bold">{clan.name}</span>
            <span className="opacity-90"> — {clan.message}</span>
          </p>
        </>
      }
      second={
        href && (
          <a href={href} target="_blank" rel="noopener noreferrer" className={ctaClass}>
            Join {clan.name}
            <ExternalLink size={14} aria-hidden="true" />
          </a>
        )
      }
    />
  );
}
