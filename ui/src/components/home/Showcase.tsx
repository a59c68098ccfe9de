import { useState } from 'react';
import { Card } from '../ui/Card';
import type { SiteSettings } from '../../lib/types';

type ShowcaseItem = SiteSettings['showcase'][number];

/** The size the bundled pictures are drawn at (scripts/showcase-pictures); others are cropped to it. */
export const SHOWCASE_PICTURE = { width: 480, height: 270 } as const;

/** The card's picture (site.toml's `image`), or a plain gradient without one or when it fails to load. */
function ShowcasePicture({ item }: { item: ShowcaseItem }) {
  const [failed, setFailed] = useState(false);
  if (!item.image || failed) {
    return <div className="aspect-video bg-gradient-to-br from-violet-700/40 via-slate-800 to-slate-900" aria-hidden="true" />;
  }
  return (
    // Width and height reserve the box before the file arrives; the section is below the fold.
    <img
      src={item.image}
      alt={item.alt ?? ''}
      width={SHOWCASE_PICTURE.width}
      height={SHOWCASE_PICTURE.height}
      loading="lazy"
      decoding="async"
      onError={() => setFailed(true)}
      className="aspect-video h-auto w-full bg-slate-800 object-cover"
      data-testid="showcase-picture"
    />
  );
}

/** The player-build showcase cards (site.showcase). */
export function Showcase({ items }: { items: SiteSettings['showcase'] }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      {items.map((s) => (
        <Card key={s.title} className="overflow-hidden" data-testid="showcase-card">
          <ShowcasePicture item={s} />
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
