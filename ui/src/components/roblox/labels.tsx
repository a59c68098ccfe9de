import { BadgeCheck } from 'lucide-react';
import type { Generation, Rarity } from '../../lib/roblox';
import { Badge, type BadgeVariant } from '../ui/Badge';

/** The generation pill: the era's name people know (site.toml), the API's code when there is none; its colour says veteran, newgen or in between. */
export function GenerationBadge({ generation, label, veteran, newgen }: { generation: Generation; label?: string; veteran?: boolean; newgen?: boolean }) {
  const variant: BadgeVariant = veteran ? 'success' : newgen ? 'destructive' : 'warning';
  return (
    <Badge variant={variant} data-testid="generation" data-generation={generation}>
      {label || generation}
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

/** The rarity pill (the site's six levels from the win rate, named by the server); Roblox's own word in its title. */
export function RarityBadge({ rarity, difficulty }: { rarity: Rarity; difficulty?: string }) {
  return (
    <Badge
      variant={RARITY_VARIANT[rarity] ?? 'secondary'}
      className="capitalize"
      data-testid="rarity"
      data-rarity={rarity}
      title={difficulty ? `Roblox: ${difficulty}` : undefined}
    >
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
