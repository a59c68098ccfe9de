import { useQuery } from '@tanstack/react-query';
import { Heart, TrendingUp } from 'lucide-react';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import type { Command } from '../../lib/types';
import { PermissionBadge } from './PermissionBadge';
import { RatingDisplay } from './RatingDisplay';

/** GET /api/commands/popular: at most 6, by favorites and ratings; empty until someone rates or favorites. */
export function PopularCommands({ onPick }: { onPick: (name: string) => void }) {
  const { data, isLoading, isError } = useQuery<Command[]>({ queryKey: ['/api/commands/popular'] });
  return (
    <Card className="p-5" data-testid="popular-commands">
      <h2 className="flex items-center gap-2 text-xl font-bold text-white">
        <TrendingUp className="h-5 w-5 text-violet-400" aria-hidden="true" />
        Popular Commands
      </h2>
      <div className="mt-4">
        {isLoading ? (
          <div className="space-y-2" aria-hidden="true">
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} className="h-10" />
            ))}
          </div>
        ) : isError ? (
          <p className="text-sm text-red-300">Failed to load popular commands.</p>
        ) : !data || data.length === 0 ? (
          <div className="text-sm">
            <p className="font-medium text-slate-300">No popular commands yet</p>
            <p className="mt-1 text-slate-400">Rate or favorite commands to see them here.</p>
          </div>
        ) : (
          <ol className="space-y-1">
            {data.map((c, i) => (
              <li key={c.id}>
                <button
                  type="button"
                  onClick={() => onPick(c.name)}
                  className="flex w-full items-center gap-3 rounded-lg px-2 py-2 text-left hover:bg-slate-800"
                  aria-label={`Show ${c.name}`}
                >
                  <span className="w-5 text-right text-sm text-slate-400">{i + 1}</span>
                  <span className="min-w-0 flex-1 truncate font-mono text-sm text-slate-100">{c.name}</span>
                  <RatingDisplay avgRating={c.avgRating} ratingCount={c.ratingCount} />
                  {c.favoriteCount > 0 && (
                    <span className="inline-flex items-center gap-1 text-xs text-rose-300" aria-label={`${c.favoriteCount} favorites`}>
                      <Heart className="h-3.5 w-3.5" aria-hidden="true" />
                      {c.favoriteCount}
                    </span>
                  )}
                  <PermissionBadge permission={c.permission} />
                </button>
              </li>
            ))}
          </ol>
        )}
      </div>
    </Card>
  );
}
