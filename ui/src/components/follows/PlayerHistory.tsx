import { useId, useState } from 'react';
import type { LucideIcon } from 'lucide-react';
import { ArrowRightLeft, Award, PenLine, Sparkles } from 'lucide-react';
import { Button } from '../ui/Button';
import { describeEvent, usePlayerHistory, type PlayerEventKind } from '../../lib/follows';

/** True for what the history lists: everything but the badges owned when the site first looked. */
export function isChange(event: { kind: string; baseline: boolean }): boolean {
  return !(event.kind === 'elc_badge' && event.baseline);
}

/** Changes listed before "Show all". */
export const HISTORY_SHOWN = 5;

const ICONS: Record<PlayerEventKind, LucideIcon> = {
  first_seen: Sparkles,
  elc_badge: Award,
  classification: ArrowRightLeft,
  username: PenLine,
  display_name: PenLine,
};

/** What the site noticed about a player over time (newest first), on the newgen result; nothing when it knows nothing. */
export function PlayerHistory({ userId, checkedAt }: { userId: number; checkedAt?: string }) {
  const { data } = usePlayerHistory(userId, checkedAt);
  const [all, setAll] = useState(false);
  const listId = useId();
  // Badges the player owned before the site first read their award dates are already listed
  // under the result's early-player badges, with their dates: the history keeps what changed.
  const events = (data?.events ?? []).filter(isChange);
  if (events.length === 0) return null;
  const shown = all ? events : events.slice(0, HISTORY_SHOWN);

  return (
    <section aria-labelledby="history-heading" data-testid="player-history">
      <h3 id="history-heading" className="mb-2 text-lg font-semibold text-white">
        History
      </h3>
      <ol id={listId} className="divide-y divide-slate-800 rounded-lg border border-slate-800">
        {shown.map((event) => {
          const Icon = ICONS[event.kind] ?? Sparkles;
          return (
            <li key={event.id} className="flex items-start gap-2 px-3 py-2 text-sm text-slate-200" data-testid="history-event" data-kind={event.kind}>
              <Icon className="mt-0.5 h-4 w-4 shrink-0 text-slate-400" aria-hidden="true" />
              <span className="min-w-0 break-words">{describeEvent(event)}</span>
            </li>
          );
        })}
      </ol>
      {events.length > HISTORY_SHOWN && (
        <Button variant="outline" size="sm" className="mt-2" aria-expanded={all} aria-controls={listId} onClick={() => setAll((v) => !v)} data-testid="history-toggle">
          {all ? 'Show fewer' : `Show all (${events.length})`}
        </Button>
      )}
    </section>
  );
}
