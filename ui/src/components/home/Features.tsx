import { Card } from '../ui/Card';
import type { SiteSettings } from '../../lib/types';
import { iconFor } from './icons';

/** The features grid (six items from site.features). */
export function Features({ features }: { features: SiteSettings['features'] }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      {features.map((f) => {
        const Icon = iconFor(f.icon);
        return (
          <Card key={f.title} className="p-5" data-testid="feature-card">
            <span className="mb-3 flex h-10 w-10 items-center justify-center rounded-lg bg-violet-600/20 text-violet-300">
              <Icon className="h-5 w-5" aria-hidden="true" />
            </span>
            <h3 className="font-semibold">{f.title}</h3>
            <p className="mt-1 text-sm text-slate-400">{f.description}</p>
          </Card>
        );
      })}
    </div>
  );
}
