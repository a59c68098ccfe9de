import { Server } from 'lucide-react';
import { Card } from '../ui/Card';
import type { SiteSettings } from '../../lib/types';

export function ServerTypes({ types }: { types: SiteSettings['serverTypes'] }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      {types.map((t) => (
        <Card key={t.name} className="p-5" data-testid="server-type">
          <div className="flex items-center justify-between gap-3">
            <h3 className="flex items-center gap-2 font-semibold text-white">
              <Server className="h-5 w-5 text-violet-400" aria-hidden="true" />
              {t.name}
            </h3>
            <span className="rounded-full bg-slate-800 px-2.5 py-0.5 text-xs text-slate-300">Up to {t.maxPlayers} players</span>
          </div>
          <p className="mt-2 text-sm text-slate-400">{t.description}</p>
        </Card>
      ))}
    </div>
  );
}
