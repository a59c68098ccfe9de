import { Link } from 'wouter';
import { Gamepad2, Terminal } from 'lucide-react';
import { buttonClass } from '../ui/Button';
import { Skeleton } from '../ui/Skeleton';
import { cn } from '../ui/cn';
import { commandClaim } from '../../lib/commands';
import type { SiteSettings } from '../../lib/types';
import { ExternalLink } from './ExternalLink';

/** The hero: title, subtitle, the two calls to action and claims built from live data. */
export function Hero({ site, commandCount }: { site: SiteSettings; commandCount: number | undefined }) {
  const claims = [
    commandCount === undefined ? null : `${commandClaim(commandCount)} commands`,
    `${site.hero.buildingTools} building tools`,
    `${site.hero.largeServerPlayers}-player large servers`,
  ];
  return (
    <section className="relative overflow-hidden rounded-2xl border border-slate-800 bg-gradient-to-br from-violet-950 via-slate-900 to-slate-950 px-5 py-12 text-center sm:px-10 sm:py-20">
      <h1 className="text-3xl font-extrabold tracking-tight text-white sm:text-5xl">{site.hero.title}</h1>
      <p className="mx-auto mt-4 max-w-2xl text-base text-slate-300 sm:text-lg">{site.hero.subtitle}</p>
      <div className="mt-8 flex flex-col items-stretch justify-center gap-3 sm:flex-row sm:items-center">
        <ExternalLink href={site.links.game} className={buttonClass('default', 'lg')} testId="play-now">
          <Gamepad2 className="h-5 w-5" aria-hidden="true" />
          Play Now
        </ExternalLink>
        <Link href="/commands" className={buttonClass('outline', 'lg')}>
          <Terminal className="h-5 w-5" aria-hidden="true" />
          Browse Commands
        </Link>
      </div>
      <ul className="mt-8 flex flex-wrap justify-center gap-2 sm:gap-3" aria-label="Highlights">
        {claims.map((claim, i) =>
          claim === null ? (
            // The same box as the claim it stands for, so nothing moves when the count arrives.
            <li key={i}>
              <Skeleton className="h-[34px] w-36 rounded-full" />
            </li>
          ) : (
            <li
              key={i}
              className={cn(
                'rounded-full border border-violet-500/40 bg-violet-600/15 px-4 py-1.5 text-sm font-medium text-violet-200',
                i === 0 && 'min-w-36',
              )}
              data-testid="hero-claim"
            >
              {claim}
            </li>
          ),
        )}
      </ul>
    </section>
  );
}
