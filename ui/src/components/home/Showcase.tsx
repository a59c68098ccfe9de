import { Card } from '../ui/Card';
import type { SiteSettings } from '../../lib/types';

/** The player-build showcase cards (site.showcase). */
export function Showcase({ items }: { items: SiteSettings['showcase'] }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      {items.map((s) => (
        <Card key={s.title} className="overflow-hidden" data-testid="showcase-card">
          <div className="h-24 bg-gradient-to-br from-violet-700/40 via-slate-800 to-slate-900" aria-hidden="true" />
          <div className="p-5">
            <h3 className="font-semibold">{s.title}</h3>
            <p className="text-sm text-violet-300">by {s.builder}</p>
            <p className="mt-2 text-sm text-slate-400">{s.description}</p>
          </div>
        </Card>
      ))}
    </div>
  );
}
