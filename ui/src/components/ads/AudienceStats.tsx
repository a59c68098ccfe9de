import { Heart, MessageCircle, Target, Users } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import { audienceFigures, type AudienceFigure } from '../../lib/ads';
import type { PublicStats } from '../../lib/types';
import { Skeleton } from '../ui/Skeleton';

const ICONS: Record<AudienceFigure['key'], LucideIcon> = {
  monthlyVisitors: Users,
  discordMembers: MessageCircle,
  userSatisfaction: Heart,
  targetedAudience: Target,
};

/** The audience figures the server measured; a figure it could not measure says so. */
export function AudienceStats({ stats, isError }: { stats: PublicStats | undefined; isError: boolean }) {
  if (!stats) {
    return isError ? (
      <p className="text-sm text-red-400">The audience figures could not be loaded. They will appear when the server answers.</p>
    ) : (
      <div role="status" aria-label="Loading audience figures" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {Array.from({ length: 4 }, (_, i) => (
          <Skeleton key={i} className="h-28 rounded-xl" />
        ))}
      </div>
    );
  }
  return (
    <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
      {audienceFigures(stats).map(({ key, label, value, note }) => {
        const Icon = ICONS[key];
        return (
          <div key={key} className="rounded-xl border border-slate-800 bg-slate-900 p-5" data-testid={`audience-${key}`}>
            <dt className="flex items-center gap-2 text-sm font-medium text-slate-300">
              <Icon size={16} aria-hidden="true" className="text-violet-300" />
              {label}
            </dt>
            <dd className="mt-2">
              <span className={value === null ? 'text-lg font-semibold text-slate-300' : 'text-3xl font-bold text-white'}>
                {value ?? 'Not measured yet'}
              </span>
              <span className="mt-1 block text-xs text-slate-400">{note}</span>
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
