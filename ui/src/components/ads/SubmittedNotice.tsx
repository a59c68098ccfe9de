import { forwardRef } from 'react';
import { CircleCheck } from 'lucide-react';
import { DURATIONS, REJECTED_IMAGE_KEPT, type AdDuration } from '../../lib/ads';
import { useSite } from '../../lib/site';
import { safeHref } from '../adImage';

export interface SubmittedRequest {
  /** The application's id, as the server gave it. */
  id: number;
  duration: AdDuration;
}

/**
 * What the advertiser sees after a submission: the request's reference and what happens next, only what the server
 * does (a manual review; approval makes it the banner at once; no e-mail: the site keeps no contact details).
 */
export const SubmittedNotice = forwardRef<HTMLDivElement, { request: SubmittedRequest }>(function SubmittedNotice({ request }, ref) {
  const { data: site } = useSite();
  const community = safeHref(site?.links.community);
  const runs = DURATIONS.find((d) => d.value === request.duration)?.runs;
  const headingId = `ad-submitted-${request.id}`;
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role="region"
      aria-labelledby={headingId}
      data-testid="ad-submitted"
      data-app-id={request.id}
      className="rounded-xl border border-emerald-500/50 bg-emerald-500/10 p-4 outline-none focus-visible:ring-2 focus-visible:ring-emerald-400 sm:p-5"
    >
      <h3 id={headingId} className="flex items-center gap-2 font-semibold text-white">
        <CircleCheck size={20} aria-hidden="true" className="shrink-0 text-emerald-400" />
        Request received: reference <span data-testid="ad-reference">#{request.id}</span>
      </h3>
      <p className="mt-2 text-sm text-slate-200">Keep this reference: it is how we find your request. What happens next:</p>
      <ol className="mt-2 grid list-decimal gap-1.5 pl-5 text-sm text-slate-200">
        <li>Your request waits as pending until an admin reviews it by hand.</li>
        <li>
          If it is approved, it becomes the sponsored banner at the bottom of every page at once
          {runs ? ` and runs for ${runs} from then` : ''}
          {request.duration === '10-fullscreen' ? ', with the full-screen ad' : ''}.
        </li>
        <li>If it is rejected, it is not shown, and its image is deleted after {REJECTED_IMAGE_KEPT}.</li>
        <li>
          This site sends no e-mail and keeps no contact details: to ask about your request, quote #{request.id} in our{' '}
          {community ? (
            <a href={community} target="_blank" rel="noopener noreferrer" className="font-medium text-emerald-300 underline hover:text-emerald-200">
              chat community
            </a>
          ) : (
            'chat community'
          )}
          , or look for your banner on the site.
        </li>
      </ol>
    </div>
  );
});
