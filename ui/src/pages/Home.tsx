import { useQuery } from '@tanstack/react-query';
import { useAfterFirstPaint } from '../lib/firstPaint';
import { useSite } from '../lib/site';
import type { Guide, PublicStats } from '../lib/types';
import { CreatorVideos } from '../components/home/CreatorVideos';
import { Features } from '../components/home/Features';
import { Hero } from '../components/home/Hero';
import { QuickStart } from '../components/home/QuickStart';
import { Section } from '../components/home/Section';
import { Showcase } from '../components/home/Showcase';
import { PageSkeleton, SiteError } from '../components/home/SiteState';

export default function Home() {
  const { data: site, isError } = useSite();
  const { data: stats } = useQuery<PublicStats>({ queryKey: ['/api/stats'] });
  // The first screen (hero, features) renders at once; the rest right after it is painted.
  const later = useAfterFirstPaint();
  // Home loads the guides too (the result is unused here) to warm the Guides page's cache.
  useQuery<Guide[]>({ queryKey: ['/api/guides'], enabled: later });

  return (
    <div className="mx-auto max-w-6xl space-y-14 px-4 py-8 sm:px-6 sm:py-10">
      {site ? (
        <>
          <Hero site={site} commandCount={stats?.commands} />
          <Section id="features" title="Features" lead={site.description}>
            <Features features={site.features} />
          </Section>
          {later && (
            <>
              <Section id="quick-start" title="Quick Start">
                <QuickStart />
              </Section>
              <Section id="showcase" title="Player Builds">
                <Showcase items={site.showcase} />
              </Section>
              <Section id="creator-videos" title="Creator Videos">
                <CreatorVideos site={site} />
              </Section>
            </>
          )}
        </>
      ) : isError ? (
        <SiteError />
      ) : (
        <PageSkeleton />
      )}
    </div>
  );
}
