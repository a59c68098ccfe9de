import { BadgeCheck } from 'lucide-react';
import type { Generation, Rarity } from '../../lib/roblox';
import { Badge, type BadgeVariant } from '../ui/Badge';

/** The generation pill (names from site.toml's eras); its colour says veteran, newgen or in between. */
export function GenerationBadge({ generation, veteran, newgen }: { generation: Generation; veteran?: boolean; newgen?: boolean }) {
  const variant: BadgeVariant = veteran ? 'success' : newgen ? 'destructive' : 'warning';
  return (
    <Badge variant={variant} data-testid="generation">
      {generation}
    </Badge>
  );
}

const RARITY_VARIANT: Record<string, BadgeVariant> = {
  impossible: 'destructive',
  insane: 'destructive',
  'extremely hard': 'warning',
  hard: 'warning',
  medium: 'default',
  easy: 'success',
};

/** The rarity pill (the reference's win-rate bands, named by the server). */
export function RarityBadge({ rarity }: { rarity: Rarity }) {
  return (
    <Badge variant={RARITY_VARIANT[rarity] ?? 'secondary'} className="capitalize" data-testid="rarity">
      {rarity}
    </Badge>
  );
}

/** Roblox's verified mark, with its meaning for screen readers. */
export function VerifiedMark() {
  return (
    <span className="inline-flex items-center text-sky-400" title="Verified" data-testid="verified">
      <BadgeCheck className="h-5 w-5" aria-hidden="true" />
      <span className="sr-only">Verified</span>
    </span>
  );
}
