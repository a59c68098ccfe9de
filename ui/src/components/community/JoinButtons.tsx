import { Gamepad2, MessageCircle } from 'lucide-react';
import { buttonClass } from '../ui/Button';
import { ExternalLink } from '../home/ExternalLink';
import type { SiteSettings } from '../../lib/types';

export function JoinButtons({ site }: { site: SiteSettings }) {
  return (
    <div className="rounded-2xl border border-violet-500/30 bg-gradient-to-br from-violet-950 via-slate-900 to-slate-950 p-6 text-center sm:p-10">
      <h2 id="join-heading" className="text-2xl font-bold text-white">
        Join the Community
      </h2>
      <p className="mx-auto mt-2 max-w-xl text-slate-300">{site.tagline}</p>
      <div className="mt-6 flex flex-col items-stretch justify-center gap-3 sm:flex-row sm:items-center">
        <ExternalLink href={site.links.game} className={buttonClass('default', 'lg')}>
          <Gamepad2 className="h-5 w-5" aria-hidden="true" />
          Play the Game
        </ExternalLink>
        <ExternalLink href={site.links.community} className={buttonClass('outline', 'lg')}>
          <MessageCircle className="h-5 w-5" aria-hidden="true" />
          Join the Chat Community
        </ExternalLink>
      </div>
    </div>
  );
}
