import { Check, Copy, Heart, Star } from 'lucide-react';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import { cn } from '../ui/cn';
import { ShareButton } from '../share/ShareButton';
import { commandLink, MAX_EXAMPLES } from '../../lib/commands';
import type { Command } from '../../lib/types';
import { PermissionBadge } from './PermissionBadge';
import { RatingDisplay } from './RatingDisplay';
import { UsageText } from './UsageText';

export interface CommandCardProps {
  command: Command;
  /** The command a link named (/commands?command=NAME): marked, and focusable so the page can focus it. */
  highlighted?: boolean;
  /** The meaning of the command's permission level (site.permissions). */
  permissionMeaning?: string;
  /** Copy a text (usage or example); `key` identifies what was copied for the check mark. */
  onCopy: (text: string, key: string) => void;
  /** The key last copied (shows a check mark for 2 s). */
  copiedKey?: string | null;
  // Favorites and rating (for a signed-in visitor): nothing is rendered while these are absent.
  isFavorite?: boolean;
  onToggleFavorite?: (command: Command) => void;
  onRate?: (command: Command, rating: number) => void;
}

export function CommandCard({ command, highlighted, permissionMeaning, onCopy, copiedKey, isFavorite, onToggleFavorite, onRate }: CommandCardProps) {
  const usageKey = `usage:${command.id}`;
  const examples = command.examples.slice(0, MAX_EXAMPLES);
  const headingId = `command-${command.id}-name`;
  return (
    <Card
      className={cn(
        'flex min-w-0 scroll-mt-24 flex-col p-5',
        highlighted && 'border-violet-400 shadow-lg shadow-violet-900/40 outline-2 outline-offset-2 outline-violet-400',
      )}
      data-testid="command-card"
      data-command-id={command.id}
      data-highlighted={highlighted ? 'true' : undefined}
      role={highlighted ? 'region' : undefined}
      aria-labelledby={highlighted ? headingId : undefined}
      tabIndex={highlighted ? -1 : undefined}
    >
      {highlighted && (
        <p className="mb-2 text-xs font-semibold uppercase tracking-wide text-violet-300" data-testid="linked-command-label">
          Linked command
        </p>
      )}
      <div className="flex items-start justify-between gap-3">
        <h3 id={headingId} className="min-w-0 break-words font-mono text-lg font-semibold text-white">
          {command.name}
        </h3>
        <div className="flex shrink-0 items-center gap-2">
          <PermissionBadge permission={command.permission} meaning={permissionMeaning} />
          {onToggleFavorite && (
            <button
              type="button"
              onClick={() => onToggleFavorite(command)}
              aria-pressed={!!isFavorite}
              aria-label={isFavorite ? `Remove ${command.name} from favorites` : `Add ${command.name} to favorites`}
              className="rounded-md p-1 text-slate-400 hover:bg-slate-800 hover:text-rose-400"
            >
              <Heart className={cn('h-4 w-4', isFavorite && 'fill-current text-rose-400')} aria-hidden="true" />
            </button>
          )}
        </div>
      </div>
      <p className="mt-2 text-sm text-slate-300">{command.description}</p>

      <div className="mt-4">
        <div className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-400">Usage</div>
        <div className="flex items-center gap-2 rounded-lg border border-slate-800 bg-slate-950 py-1 pl-3 pr-1">
          <code className="min-w-0 flex-1 font-mono text-sm text-violet-200" data-testid="command-usage">
            <UsageText text={command.usage} />
          </code>
          <button
            type="button"
            onClick={() => onCopy(command.usage, usageKey)}
            aria-label="Copy usage"
            title="Copy usage"
            className="shrink-0 rounded-md p-2 text-slate-400 hover:bg-slate-800 hover:text-white"
          >
            {copiedKey === usageKey ? (
              <Check className="h-4 w-4 text-emerald-400" aria-hidden="true" />
            ) : (
              <Copy className="h-4 w-4" aria-hidden="true" />
            )}
          </button>
        </div>
      </div>

      {examples.length > 0 && (
        <div className="mt-3">
          <div className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-400">Examples</div>
          <ul className="flex flex-col gap-1">
            {examples.map((ex, i) => {
              const key = `example:${command.id}:${i}`;
              return (
                <li key={key}>
                  <button
                    type="button"
                    onClick={() => onCopy(ex, key)}
                    aria-label={`Copy example: ${ex}`}
                    title="Click to copy"
                    className="flex w-full items-center gap-2 rounded-md bg-slate-800/60 px-2.5 py-1.5 text-left font-mono text-xs text-slate-200 hover:bg-slate-800"
                  >
                    <span className="min-w-0 flex-1">
                      <UsageText text={ex} />
                    </span>
                    {copiedKey === key ? (
                      <Check className="h-3.5 w-3.5 shrink-0 text-emerald-400" aria-hidden="true" />
                    ) : (
                      <Copy className="h-3.5 w-3.5 shrink-0 text-slate-400" aria-hidden="true" />
                    )}
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      )}

      <div className="mt-auto flex flex-wrap items-center gap-x-3 gap-y-2 pt-4">
        <Badge variant="secondary" data-testid="command-category">
          {command.category}
        </Badge>
        {permissionMeaning && <span className="text-xs text-slate-400">{permissionMeaning}</span>}
        <span className="ml-auto flex items-center gap-2">
          <RatingDisplay avgRating={command.avgRating} ratingCount={command.ratingCount} />
          <ShareButton title={command.name} text={command.description} url={commandLink(command.name)} variant="ghost" />
        </span>
      </div>

      {onRate && (
        <div className="mt-3 flex items-center gap-1 border-t border-slate-800 pt-3" role="group" aria-label={`Rate ${command.name}`}>
          <span className="mr-1 text-xs text-slate-400">Rate:</span>
          {[1, 2, 3, 4, 5].map((n) => (
            <button
              key={n}
              type="button"
              onClick={() => onRate(command, n)}
              aria-label={`Rate ${n} ${n === 1 ? 'star' : 'stars'}`}
              className="rounded p-0.5 text-slate-400 hover:text-amber-300"
            >
              <Star className="h-4 w-4" aria-hidden="true" />
            </button>
          ))}
        </div>
      )}
    </Card>
  );
}

/** A loading placeholder of the same shape. */
export function CommandCardSkeleton() {
  return (
    <div className="rounded-xl border border-slate-800 bg-slate-900 p-5" data-testid="command-skeleton" aria-hidden="true">
      <div className="flex justify-between">
        <Skeleton className="h-6 w-28" />
        <Skeleton className="h-5 w-10 rounded-full" />
      </div>
      <Skeleton className="mt-3 h-4 w-full" />
      <Skeleton className="mt-2 h-4 w-2/3" />
      <Skeleton className="mt-5 h-9 w-full rounded-lg" />
      <Skeleton className="mt-3 h-7 w-full" />
      <Skeleton className="mt-4 h-5 w-24 rounded-full" />
    </div>
  );
}
