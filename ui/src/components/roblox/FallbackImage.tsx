import { useEffect, useState } from 'react';
import type { LucideIcon } from 'lucide-react';
import { imageSources, sourceAfterFailures } from '../../lib/roblox';
import { cn } from '../ui/cn';

/**
 * An image that falls back through its alternative sources on load errors, then shows a placeholder: the
 * `initials` when given (a player's avatar), else the icon (for a badge: its image, two alternative thumbnail
 * sources, then the placeholder icon).
 *
 * The placeholder sits under the image from the start and the image stays invisible until it has loaded: a
 * browser draws a broken or slow image's alt text in the box, clipped ("OldBuilde… avatar"), for as long as
 * the request takes to fail. The alt text stays for screen readers; nobody sees it.
 */
export function FallbackImage({
  src,
  fallbacks = [],
  alt,
  placeholder: Placeholder,
  initials,
  className,
  testId,
}: {
  src: string | null | undefined;
  fallbacks?: readonly (string | null | undefined)[];
  alt: string;
  placeholder: LucideIcon;
  /** Shown instead of the icon when no source loads (one or two letters). */
  initials?: string;
  className?: string;
  testId?: string;
}) {
  const sources = imageSources(src, fallbacks);
  const key = sources.join('\n');
  const [failures, setFailures] = useState(0);
  const [loaded, setLoaded] = useState<string | null>(null);
  useEffect(() => {
    setFailures(0);
    setLoaded(null);
  }, [key]);
  const current = sourceAfterFailures(sources, failures);
  const placeholderOnly = current === null;

  return (
    <span
      role={placeholderOnly ? 'img' : undefined}
      aria-label={placeholderOnly ? alt : undefined}
      data-testid={testId}
      data-fallback={placeholderOnly ? 'placeholder' : String(failures)}
      data-loaded={current !== null && loaded === current ? 'true' : 'false'}
      className={cn('relative flex items-center justify-center overflow-hidden bg-slate-800 text-slate-300', className)}
    >
      {initials ? (
        <span aria-hidden="true" className="select-none font-bold leading-none tracking-tight" data-testid={testId ? `${testId}-initials` : undefined}>
          {initials}
        </span>
      ) : (
        <Placeholder className="h-1/2 w-1/2 text-slate-400" aria-hidden="true" />
      )}
      {current !== null && (
        <img
          key={current}
          src={current}
          alt={alt}
          loading="lazy"
          decoding="async"
          referrerPolicy="no-referrer"
          onLoad={() => setLoaded(current)}
          onError={() => setFailures((n) => n + 1)}
          // Transparent text and no opacity until loaded: the alt text is never drawn in the box.
          className={cn(
            'absolute inset-0 h-full w-full object-cover text-transparent transition-opacity',
            loaded === current ? 'opacity-100' : 'opacity-0',
          )}
        />
      )}
    </span>
  );
}
