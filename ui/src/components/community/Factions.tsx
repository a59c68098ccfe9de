import { Card } from '../ui/Card';
import { iconFor } from '../home/icons';
import type { SiteSettings } from '../../lib/types';

export function Factions({ factions }: { factions: SiteSettings['factions'] }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
      {factions.map((f) => {
        const Icon = iconFor(f.icon);
        return (
          <Card key={f.name} className="p-5 text-center" data-testid="faction-card">
            <span className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-violet-600/20 text-violet-300">
              <Icon className="h-6 w-6" aria-hidden="true" />
            </span>
            <h3 className="mt-3 font-semibold text-white">{f.name}</h3>
            <p className="mt-1 text-sm text-slate-400">{f.description}</p>
          </Card>
        );
      })}
    </div>
  );
}
