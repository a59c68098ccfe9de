import { ExternalLink as ExternalIcon } from 'lucide-react';
import { ExternalLink } from '../home/ExternalLink';
import type { SiteSettings } from '../../lib/types';

export function OfficialLinks({ links }: { links: SiteSettings['officialLinks'] }) {
  return (
    <ul className={links.length % 3 === 0 ? 'grid gap-3 sm:grid-cols-2 lg:grid-cols-3' : 'grid gap-3 sm:grid-cols-2'}>
      {links.map((l) => (
        <li key={l.url}>
          <ExternalLink
            href={l.url}
            className="flex h-full items-start gap-3 rounded-xl border border-slate-800 bg-slate-900 p-4 transition-colors hover:border-violet-500/60 hover:bg-slate-800/60"
            testId="official-link"
          >
            <span className="min-w-0 flex-1">
              <span className="block font-medium text-slate-100">{l.label}</span>
              <span className="mt-0.5 block text-sm text-slate-400">{l.description}</span>
            </span>
            <ExternalIcon className="mt-0.5 h-4 w-4 shrink-0 text-slate-400" aria-hidden="true" />
            <span className="sr-only">(opens in a new tab)</span>
          </ExternalLink>
        </li>
      ))}
    </ul>
  );
}
