import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Lightbulb, ShieldCheck } from 'lucide-react';
import { Card } from '../components/ui/Card';
import { Section } from '../components/home/Section';
import { PageSkeleton, SiteError } from '../components/home/SiteState';
import { ExternalLinks } from '../components/guides/ExternalLinks';
import { GuideCard, GuideCardSkeleton } from '../components/guides/GuideCard';
import { GuideReader } from '../components/guides/GuideReader';
import { GuidesError } from '../components/guides/GuidesError';
import { ServerTypes } from '../components/guides/ServerTypes';
import { TipList } from '../components/guides/TipList';
import { findGuide, GUIDE_PARAM, guideParam } from '../lib/guides';
import { useQueryString } from '../lib/queryState';
import { useSite } from '../lib/site';
import type { Guide } from '../lib/types';

const SKELETONS = [0, 1, 2];

/** history.state of the entry "Read more" adds: closing the reading view then goes Back to the grid's entry. */
const OPENED_FROM_GRID = 'fanhub:guide-from-grid';

/**
 * The grid of guides and the reading view of the guide the address names (?guide=ID). "Read more" adds a
 * history entry, so Back closes the view; a pasted link opens it directly.
 */
function DetailedGuides() {
  const { data: guides, isLoading, isError } = useQuery<Guide[]>({ queryKey: ['/api/guides'] });
  const [query, setQuery] = useQueryString();
  const wanted = guideParam(query);
  const open = guides ? findGuide(guides, wanted) : undefined;
  const openId = open?.id ?? null;

  // When the view closes (its button, Escape or Back), focus goes to the card's "Read more", also when
  // the view was opened by a link and nothing on the page was focused before.
  const lastOpen = useRef<number | null>(null);
  useEffect(() => {
    const closed = lastOpen.current;
    lastOpen.current = openId;
    if (openId !== null || closed === null) return;
    const frame = requestAnimationFrame(() => {
      document.querySelector<HTMLElement>(`[data-guide-open="${closed}"]`)?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [openId]);

  const openGuide = (g: Guide) => setQuery(new URLSearchParams({ [GUIDE_PARAM]: String(g.id) }).toString(), { state: OPENED_FROM_GRID });
  const close = () => {
    if (history.state === OPENED_FROM_GRID) history.back();
    else setQuery('', { replace: true });
  };

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
    <>
      {wanted !== null && !open && (
        <p role="status" className="mb-4 rounded-lg border border-slate-700 bg-slate-900 px-4 py-3 text-sm text-slate-300" data-testid="guide-not-found">
          Sorry, the guide that link points to is not here. Every guide is listed below.
        </p>
      )}
      <div className="grid gap-4 md:grid-cols-2 lg:grid-cols-3">
        {guides.map((g) => (
          <GuideCard key={g.id} guide={g} onOpen={openGuide} />
        ))}
      </div>
      <GuideReader guide={open} onClose={close} />
    </>
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
