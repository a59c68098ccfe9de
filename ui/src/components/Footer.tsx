import type { ComponentChildren } from 'preact';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { POLL } from '../lib/queryClient';
import { formatDateTime } from '../lib/format';
import { useSite } from '../lib/site';
import { serverState, useHealth } from '../lib/health';
import type { PublicStats } from '../lib/types';
import { Skeleton } from './ui/Skeleton';

/** Public counters, polled every 5 s (shared cache with any page that shows them). */
export function usePublicStats() {
  return useQuery<PublicStats>({ queryKey: ['/api/stats'], refetchInterval: POLL.stats });
}

function Row({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div className="flex justify-between gap-4 py-1">
      <dt className="text-slate-400">{label}</dt>
      <dd className="text-right font-mono text-slate-200">{children}</dd>
    </div>
  );
}

const SERVER_TEXT = {
  online: { label: 'Online', className: 'text-emerald-400' },
  degraded: { label: 'Degraded', className: 'text-amber-300' },
  unreachable: { label: 'Unreachable', className: 'text-red-400' },
} as const;

/** System Info, Credits and the copyright line. */
export function Footer() {
  const { data: site } = useSite();
  const { data: health, isError: healthError } = useHealth();
  const { data: stats } = usePublicStats();
  const server = serverState(health, healthError);

  return (
    <footer className="mt-16 border-t border-slate-800 bg-slate-950">
      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-10 md:grid-cols-2">
        <section aria-labelledby="footer-system">
          <h2 id="footer-system" className="mb-3 text-sm font-semibold uppercase tracking-wider text-violet-300">
            System Info
          </h2>
          <dl className="max-w-sm text-sm">
            <Row label="Version">{site ? site.version.label : <Skeleton className="h-4 w-14" />}</Row>
            <Row label="Status">
              {site ? <span className="text-amber-300">{site.version.status}</span> : <Skeleton className="h-4 w-24" />}
            </Row>
            <Row label="Started">
              {health ? formatDateTime(health.startedAt) : healthError ? 'Unavailable' : <Skeleton className="h-4 w-32" />}
            </Row>
            <Row label="Build">{health ? health.build : healthError ? 'Unavailable' : <Skeleton className="h-4 w-16" />}</Row>
            <Row label="Server">
              {server === 'checking' ? (
                <Skeleton className="h-4 w-14" />
              ) : (
                <span className={SERVER_TEXT[server].className}>{SERVER_TEXT[server].label}</span>
              )}
            </Row>
            {stats && <Row label="Page views">{stats.pageViews.toLocaleString()}</Row>}
            {stats?.discordMembers != null && <Row label="Discord members">{stats.discordMembers.toLocaleString()}</Row>}
          </dl>
        </section>
        <section aria-labelledby="footer-credits">
          <h2 id="footer-credits" className="mb-3 text-sm font-semibold uppercase tracking-wider text-violet-300">
            Credits
          </h2>
          {site ? (
            <ul className="grid gap-1 text-sm">
              {site.credits.map((c) => (
                <li key={`${c.name}-${c.role}`}>
                  <span className="font-medium text-slate-200">{c.name}</span>
                  <span className="text-slate-400"> — {c.role}</span>
                </li>
              ))}
            </ul>
          ) : (
            <div className="grid gap-2">
              <Skeleton className="h-4 w-48" />
              <Skeleton className="h-4 w-40" />
            </div>
          )}
        </section>
      </div>
      <div className="flex flex-wrap items-center justify-center gap-x-4 gap-y-2 border-t border-slate-800/70 px-4 py-4 text-center text-xs text-slate-400">
        {site ? site.copyright : <span className="inline-block h-4" />}
        <Link href="/api-docs" className="text-slate-300 underline underline-offset-2 hover:text-white">
          Developer API
        </Link>
        <Link href="/advertise" className="text-slate-300 underline underline-offset-2 hover:text-white">
          Advertise
        </Link>
      </div>
    </footer>
  );
}
