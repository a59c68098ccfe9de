import { Megaphone } from 'lucide-react';
import { AdForm } from '../components/ads/AdForm';
import { AudienceStats } from '../components/ads/AudienceStats';
import { Pricing } from '../components/ads/Pricing';
import { ReviewInfo } from '../components/ads/ReviewInfo';
import { FULLSCREEN_AUTO_CLOSE_MS, FULLSCREEN_CHANCE } from '../components/adImage';
import { usePublicStats } from '../components/Footer';
import { Section } from '../components/home/Section';
import { Card } from '../components/ui/Card';
import { useSite } from '../lib/site';

/** /advertise: audience figures, pricing, how the review works, and the request form. */
export default function Advertise() {
  const { data: site } = useSite();
  const { data: stats, isError } = usePublicStats();

  return (
    <div className="mx-auto max-w-6xl space-y-12 px-4 py-8 sm:px-6 sm:py-10">
      <header>
        <h1 className="flex items-center gap-3 text-3xl font-extrabold tracking-tight text-white sm:text-4xl">
          <Megaphone size={32} aria-hidden="true" className="shrink-0 text-violet-300" />
          Advertise
        </h1>
        <p className="mt-2 max-w-3xl text-slate-300">
          Put your project in front of {site ? `the players who visit ${site.name}` : 'our players'}: a sponsored banner at the bottom of
          every page, and for premium ads a full-screen showcase. Every request is reviewed by hand.
        </p>
      </header>

      <Section id="audience" title="Audience">
        <AudienceStats stats={stats} isError={isError} />
      </Section>

      <Section id="pricing" title="Pricing">
        <Pricing chancePercent={Math.round(FULLSCREEN_CHANCE * 100)} takeoverSeconds={FULLSCREEN_AUTO_CLOSE_MS / 1000} />
      </Section>

      <Section id="review" title="Manual Review">
        <ReviewInfo communityUrl={site?.links.community} />
      </Section>

      <Section id="submit" title="Submit Your Advertisement">
        <Card className="p-5 sm:p-8">
          <AdForm />
        </Card>
      </Section>
    </div>
  );
}
