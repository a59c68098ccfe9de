import { useEffect, useState } from 'react';
import type { LucideIcon } from 'lucide-react';
import { imageSources, sourceAfterFailures } from '../../lib/roblox';
import { cn } from '../ui/cn';

/**
 * An image that falls back through its alternative sources on load errors, then shows a placeholder icon
 * (for a badge: its image, two alternative thumbnail sources, then the placeholder).
 */
export function FallbackImage({
  src,
  fallbacks = [],
  alt,
  placeholder: Placeholder,
  className,
  testId,
}: {
  src: string | null | undefined;
  fallbacks?: readonly (string | null | undefined)[];
  alt: string;
  placeholder: LucideIcon;
  className?: string;
  testId?: string;
}) {
  const sources = imageSources(src, fallbacks);
  const key = sources.join('\n');
  const [failures, setFailures] = useState(0);
  useEffect(() => setFailures(0), [key]);
  const current = sourceAfterFailures(sources, failures);

  if (current === null) {
    return (
      <span
        role="img"
        aria-label={alt}
        data-testid={testId}
        data-fallback="placeholder"
        className={cn('flex items-center justify-center bg-slate-800 text-slate-400', className)}
      >
        <Placeholder className="h-1/2 w-1/2" aria-hidden="true" />
      </span>
    );
  }
  return (
    <img
      src={current}
      alt={alt}
      loading="lazy"
      decoding="async"
      referrerPolicy="no-referrer"
      data-testid={testId}
      data-fallback={String(failures)}
      onError={() => setFailures((n) => n + 1)}
      className={cn('bg-slate-800 object-cover', className)}
    />
  );
}
