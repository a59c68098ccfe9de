import { useQuery } from '@tanstack/react-query';
import { Lightbulb, ShieldCheck } from 'lucide-react';
import { Card } from '../components/ui/Card';
import { Section } from '../components/home/Section';
import { PageSkeleton, SiteError } from '../components/home/SiteState';
import { ExternalLinks } from '../components/guides/ExternalLinks';
import { GuideCard, GuideCardSkeleton } from '../components/guides/GuideCard';
import { GuidesError } from '../components/guides/GuidesError';
import { ServerTypes } from '../components/guides/ServerTypes';
import { TipList } from '../components/guides/TipList';
import { useSite } from '../lib/site';
import type { Guide } from '../lib/types';

const SKELETONS = [0, 1, 2];

function DetailedGuides() {
  const { data: guides, isLoading, isError } = useQuery<Guide[]>({ queryKey: ['/api/guides'] });
  if (isLoading) {
    return (
      <div className="grid gap-4 md:grid-cols-2 lg:grid-cols-3" aria-busy="true">
        {SKELETONS.map((i) => (
          <GuideCardSkeleton key={i} />
        ))}
      </div>
    );
  }
  if (isError) return <GuidesError />;
  if (!guides || guides.length === 0) {
    return <p className="rounded-xl border border-slate-800 bg-slate-900 p-6 text-center text-slate-400">No guides yet.</p>;
  }
  return (
    <div className="grid items-start gap-4 md:grid-cols-2 lg:grid-cols-3">
      {guides.map((g) => (
        <GuideCard key={g.id} guide={g} />
      ))}
    </div>
  );
}

export default function Guides() {
  const { data: site, isError } = useSite();
  return (
    <div className="mx-auto max-w-6xl space-y-12 px-4 py-8 sm:px-6 sm:py-10">
      <header>
        <h1 className="text-3xl font-extrabold tracking-tight text-white sm:text-4xl">Guides</h1>
        <p className="mt-2 text-slate-400">
          {site ? `Getting started, building tips and strategy for ${site.name}.` : 'Getting started, building tips and strategy.'}
        </p>
      </header>

      {site ? (
        <>
          <Section id="getting-started" title="Getting Started">
            <ol className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              {site.gettingStarted.map((step, i) => (
                <li key={step.title}>
                  <Card className="h-full p-5" data-testid="getting-started-step">
                    <span
                      className="flex h-9 w-9 items-center justify-center rounded-full bg-violet-600 text-sm font-bold text-white"
                      aria-hidden="true"
                    >
                      {i + 1}
                    </span>
                    <h3 className="mt-3 font-semibold text-white">
                      <span className="sr-only">Step {i + 1}: </span>
                      {step.title}
                    </h3>
                    <p className="mt-1 text-sm text-slate-400">{step.description}</p>
                  </Card>
                </li>
              ))}
            </ol>
          </Section>

          <section aria-label="Tips" className="grid gap-4 md:grid-cols-2">
            <TipList
              title="Building Tips"
              icon={<Lightbulb className="h-5 w-5 text-amber-300" aria-hidden="true" />}
              items={site.buildingTips}
              testId="building-tips"
            />
            <TipList
              title="Admin Best Practices"
              icon={<ShieldCheck className="h-5 w-5 text-violet-400" aria-hidden="true" />}
              items={site.adminBestPractices}
              testId="admin-best-practices"
            />
          </section>
        </>
      ) : isError ? (
        <SiteError />
      ) : (
        <PageSkeleton />
      )}

      <Section id="detailed-guides" title="Detailed Guides">
        <DetailedGuides />
      </Section>

      {site && (
        <>
          <Section id="server-types" title="Server Types">
            <ServerTypes types={site.serverTypes} />
          </Section>
          <Section id="links" title="External Links">
            <ExternalLinks site={site} />
          </Section>
        </>
      )}
    </div>
  );
}
