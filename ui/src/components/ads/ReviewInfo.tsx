import { CalendarClock, ClipboardCheck, MessageCircle } from 'lucide-react';
import { REVIEW_TIME } from '../../lib/ads';
import { safeHref } from '../adImage';

const CRITERIA = [
  'Suitable for all ages: many visitors are young players',
  'Related to gaming, building or the community',
  'A working website that matches the description',
  'An image you have the right to use, with no misleading claims',
];

/** How an advertisement is reviewed: by hand, with these criteria and this timeline. */
export function ReviewInfo({ communityUrl }: { communityUrl: string | undefined }) {
  const href = safeHref(communityUrl);
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <div className="rounded-xl border border-slate-800 bg-slate-900 p-5">
        <h3 className="flex items-center gap-2 font-semibold text-white">
          <ClipboardCheck size={18} aria-hidden="true" className="text-violet-300" /> Review criteria
        </h3>
        <p className="mt-2 text-sm text-slate-300">Every advertisement is reviewed by a person before it goes live. We check that it is:</p>
        <ul className="mt-3 grid list-disc gap-1.5 pl-5 text-sm text-slate-300">
          {CRITERIA.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </ul>
      </div>
      <div className="rounded-xl border border-slate-800 bg-slate-900 p-5">
        <h3 className="flex items-center gap-2 font-semibold text-white">
          <CalendarClock size={18} aria-hidden="true" className="text-violet-300" /> Timeline
        </h3>
        <ol className="mt-3 grid list-decimal gap-1.5 pl-5 text-sm text-slate-300">
          <li>You submit the form below; your request waits for manual review.</li>
          <li>
            The review takes <strong className="text-white">{REVIEW_TIME}</strong>.
          </li>
          <li>Once approved, your banner goes live at once and runs for the duration you chose.</li>
        </ol>
        <p className="mt-4 flex gap-2 text-sm text-slate-300">
          <MessageCircle size={18} aria-hidden="true" className="mt-0.5 shrink-0 text-violet-300" />
          <span>
            Approval is notified through our{' '}
            {href ? (
              <a href={href} target="_blank" rel="noopener noreferrer" className="font-medium text-violet-300 underline hover:text-violet-200">
                chat community
              </a>
            ) : (
              'chat community'
            )}
            : join it to hear back.
          </span>
        </p>
      </div>
    </div>
  );
}
