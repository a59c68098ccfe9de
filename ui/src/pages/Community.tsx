import { useEffect } from 'react';
import { CreatorVideos } from '../components/home/CreatorVideos';
import { Section } from '../components/home/Section';
import { PageSkeleton, SiteError } from '../components/home/SiteState';
import { CommunityStats } from '../components/community/CommunityStats';
import { Factions } from '../components/community/Factions';
import { FunFacts } from '../components/community/FunFacts';
import { JoinButtons } from '../components/community/JoinButtons';
import { OfficialLinks } from '../components/community/OfficialLinks';
import { useSite } from '../lib/site';

export default function Community() {
  const { data: site, isError } = useSite();

  // Links such as /community#factions: scroll to the section once it is rendered.
  useEffect(() => {
    if (!site || typeof window === 'undefined') return;
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id) document.getElementById(id)?.scrollIntoView?.({ block: 'start' });
  }, [site]);

  return (
    <div className="mx-auto max-w-6xl space-y-12 px-4 py-8 sm:px-6 sm:py-10">
      <header>
        <h1 className="text-3xl font-extrabold tracking-tight text-white sm:text-4xl">Community</h1>
        <p className="mt-2 text-slate-400">
          {site ? `Creators, official links, factions and fun facts from the ${site.name} community.` : 'Creators, official links, factions and fun facts.'}
        </p>
      </header>

      <Section id="stats" title="Community Stats">
        <CommunityStats />
      </Section>

      {site ? (
        <>
          <Section id="creator-videos" title="Creator Videos">
            <CreatorVideos site={site} />
          </Section>
          <Section id="official-links" title="Official Links">
            <OfficialLinks links={site.officialLinks} />
          </Section>
          <Section id="factions" title="Factions">
            <Factions factions={site.factions} />
          </Section>
          <Section id="fun-facts" title="Fun Facts">
            <FunFacts facts={site.funFacts} />
          </Section>
          <section aria-labelledby="join-heading">
            <JoinButtons site={site} />
          </section>
        </>
      ) : isError ? (
        <SiteError />
      ) : (
        <PageSkeleton />
      )}
    </div>
  );
}
