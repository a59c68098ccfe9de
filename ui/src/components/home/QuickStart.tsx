import { Link } from 'wouter';
import { BookOpen, Terminal, UserCheck, Users } from 'lucide-react';
import type { IconComponent } from './icons';

interface QuickLink {
  href: string;
  title: string;
  description: string;
  icon: IconComponent;
}

const LINKS: QuickLink[] = [
  { href: '/commands', title: 'Commands', description: 'Search and filter the full command list', icon: Terminal as IconComponent },
  { href: '/guides', title: 'Guides', description: 'Getting started, building tips and strategy', icon: BookOpen as IconComponent },
  { href: '/community', title: 'Community', description: 'Creators, official links and factions', icon: Users as IconComponent },
  { href: '/newgen-detector', title: 'Player Status', description: 'Veteran or newgen? Check a player by username', icon: UserCheck as IconComponent },
];

/** The Quick Start row of four cards. */
export function QuickStart() {
  return (
    <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
      {LINKS.map(({ href, title, description, icon: Icon }) => (
        <Link
          key={title}
          href={href}
          className="group flex items-start gap-3 rounded-xl border border-slate-800 bg-slate-900 p-5 transition-colors hover:border-violet-500/60 hover:bg-slate-800/60 focus-visible:outline-2 focus-visible:outline-violet-400"
          data-testid="quick-start-card"
        >
          <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-violet-600/20 text-violet-300 group-hover:bg-violet-600/30">
            <Icon className="h-5 w-5" aria-hidden="true" />
          </span>
          <span className="min-w-0">
            <span className="block font-semibold text-slate-100">{title}</span>
            <span className="mt-0.5 block text-sm text-slate-400">{description}</span>
          </span>
        </Link>
      ))}
    </div>
  );
}
