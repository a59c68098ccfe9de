import { useQuery } from '@tanstack/react-query';
import { BookOpen, Eye, Terminal, Users } from 'lucide-react';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import type { IconComponent } from '../home/icons';
import type { PublicStats } from '../../lib/types';

const ITEMS: { key: keyof Pick<PublicStats, 'users' | 'monthlyVisitors' | 'commands' | 'guides'>; label: string; icon: IconComponent }[] = [
  { key: 'users', label: 'Registered Members', icon: Users as IconComponent },
  { key: 'monthlyVisitors', label: 'Monthly Visitors', icon: Eye as IconComponent },
  { key: 'commands', label: 'Commands', icon: Terminal as IconComponent },
  { key: 'guides', label: 'Guides', icon: BookOpen as IconComponent },
];

/** Measured figures from GET /api/stats (the footer keeps this query fresh). */
export function CommunityStats() {
  const { data, isLoading, isError } = useQuery<PublicStats>({ queryKey: ['/api/stats'] });
  return (
    <div>
      <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        {ITEMS.map(({ key, label, icon: Icon }) => (
          <Card key={key} className="p-4 sm:p-5" data-testid={`stat-${key}`}>
            <dt className="flex items-center gap-2 text-xs font-medium uppercase tracking-wide text-slate-400">
              <Icon className="h-4 w-4 text-violet-400" aria-hidden="true" />
              {label}
            </dt>
            <dd className="mt-2 text-2xl font-bold text-white sm:text-3xl">
              {data ? data[key].toLocaleString() : isLoading ? <Skeleton className="h-8 w-16" /> : '—'}
            </dd>
          </Card>
        ))}
      </dl>
      {isError && !data && <p className="mt-2 text-sm text-red-300">Failed to load community stats.</p>}
    </div>
  );
}
