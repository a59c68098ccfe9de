import { BookOpen, ExternalLink as ExternalIcon, Gamepad2, MessageCircle } from 'lucide-react';
import { ExternalLink } from '../home/ExternalLink';
import type { SiteSettings } from '../../lib/types';

/** The wiki, the game page and the chat community (site.links), each in a new tab. */
export function ExternalLinks({ site }: { site: SiteSettings }) {
  const links = [
    { href: site.links.wiki, label: 'Official Wiki', description: 'Community-written reference pages', Icon: BookOpen },
    { href: site.links.game, label: 'Game Page', description: 'Open the game and join a server', Icon: Gamepad2 },
    { href: site.links.community, label: 'Chat Community', description: 'Talk with other players', Icon: MessageCircle },
  ];
  return (
    <ul className="grid gap-3 sm:grid-cols-3">
      {links.map(({ href, label, description, Icon }) => (
        <li key={label}>
          <ExternalLink
            href={href}
            className="flex h-full items-center gap-3 rounded-xl border border-slate-800 bg-slate-900 p-4 transition-colors hover:border-violet-500/60 hover:bg-slate-800/60"
          >
            <Icon className="h-5 w-5 shrink-0 text-violet-400" aria-hidden="true" />
            <span className="min-w-0 flex-1">
              <span className="block font-medium text-slate-100">{label}</span>
              <span className="block text-xs text-slate-400">{description}</span>
            </span>
            <ExternalIcon className="h-4 w-4 shrink-0 text-slate-400" aria-hidden="true" />
            <span className="sr-only">(opens in a new tab)</span>
          </ExternalLink>
        </li>
      ))}
    </ul>
  );
}
