import { Play } from 'lucide-react';
import { Card } from '../ui/Card';
import { videoSearchUrl } from '../../lib/site';
import type { SiteSettings } from '../../lib/types';
import { ExternalLink } from './ExternalLink';

/** The creator-video cards; each opens a video-site search for the creator and the title (new tab). */
export function CreatorVideos({ site }: { site: SiteSettings }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      {site.creatorVideos.map((v) => (
        <Card key={`${v.creator}-${v.title}`} className="flex flex-col p-5" data-testid="creator-video-card">
          <div className="mb-3 flex items-center gap-3">
            <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-red-600/20 text-red-400">
              <Play className="h-5 w-5" aria-hidden="true" />
            </span>
            <div className="min-w-0">
              <h3 className="truncate font-semibold">{v.title}</h3>
              <p className="truncate text-sm text-violet-300">{v.creator}</p>
            </div>
          </div>
          <p className="mb-4 flex-1 text-sm text-slate-400">{v.description}</p>
          <ExternalLink
            href={videoSearchUrl(site.links.videoSearch, v.creator, v.title)}
            className="inline-flex items-center gap-1.5 text-sm font-medium text-violet-300 hover:text-violet-200"
          >
            {/* The name starts with the visible words (WCAG 2.5.3); the rest is for screen readers. */}
            Watch videos
            <span className="sr-only">
              : {v.title} by {v.creator} (opens in a new tab)
            </span>
            <span aria-hidden="true">→</span>
          </ExternalLink>
        </Card>
      ))}
    </div>
  );
}
