import { Share2 } from 'lucide-react';
import { Button } from '../ui';
import type { ButtonSize, ButtonVariant } from '../ui';
import { shareLink, type ShareTarget } from '../../lib/share';

export interface ShareButtonProps extends ShareTarget {
  /** The accessible name, e.g. "Share fly": says what is shared. Defaults to "Share {title}". */
  label?: string;
  variant?: ButtonVariant;
  size?: ButtonSize;
  className?: string;
}

/** A Share button: the system share sheet where there is one, else copies the link (lib/share.ts). */
export function ShareButton({ label, variant = 'outline', size = 'sm', className, ...target }: ShareButtonProps) {
  return (
    <Button type="button" variant={variant} size={size} className={className} aria-label={label ?? `Share ${target.title}`} onClick={() => void shareLink(target)}>
      <Share2 className="h-4 w-4" aria-hidden="true" />
      <span>Share</span>
    </Button>
  );
}
