import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { Sparkles, UserSearch, Users } from 'lucide-react';
import { Badge, type BadgeVariant } from '../ui/Badge';
import { Button, buttonClass } from '../ui/Button';
import { Card } from '../ui/Card';
import { errorSentence } from '../../lib/api';
import {
  describeEvent,
  mergeNewEvents,
  momentText,
  newestEventId,
  recheckText,
  resultPath,
  useMarkSeen,
  useUnfollow,
  useFollows,
  type Followed,
  type PlayerEvent,
} from '../../lib/follows';
import { toast } from '../../lib/toast';
import { LoadErrorCard, LoadingCard } from '../account/CardStates';

/** The verdict's colour, as the newgen result shows it. */
function verdictVariant(player: Followed['player']): BadgeVariant {
  return player.isVeteran ? 'success' : player.isNewgen ? 'destructive' : 'warning';
}

function FollowedPlayer({
  followed,
  newEvents,
  badgeWord,
  pending,
  onUnfollow,
}: {
  followed: Followed;
  newEvents: PlayerEvent[];
  badgeWord: string;
  pending: boolean;
  onUnfollow: () => void;
}) {
  const p = followed.player;
  const badges = p.elcCount === null || p.elcCount === undefined ? null : `${p.elcCount} ${badgeWord} ${p.elcCount === 1 ? 'badge' : 'badges'}`;
  return (
    <li className="rounded-lg border border-slate-800 bg-slate-950/40 p-3 sm:p-4" data-testid="followed-player" data-user-id={p.userId}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 flex-1">
          <p className="flex flex-wrap items-center gap-2">
            <Link
              href={resultPath(p.username)}
              className="inline-flex min-h-6 items-center break-all font-semibold text-violet-300 underline-offset-2 hover:text-violet-200 hover:underline pointer-coarse:min-h-11"
              data-testid="followed-name"
            >
              {p.username}
            </Link>
            <Badge variant={verdictVariant(p)} data-testid="followed-classification">
              {p.classification}
            </Badge>
            {p.banned && <Badge variant="destructive">Banned</Badge>}
          </p>
          {p.displayName && p.displayName !== p.username && <p className="break-words text-sm text-slate-300">{p.displayName}</p>}
          <p className="mt-1 text-xs text-slate-400" data-testid="followed-checked">
            {badges && <>{badges} · </>}Last checked {momentText(p.checkedAt, 'not yet')}
          </p>
        </div>
        <Button variant="outline" size="sm" onClick={onUnfollow} disabled={pending} aria-label={`Unfollow ${p.username}`}>
          Unfollow
        </Button>
      </div>
      {newEvents.length > 0 && (
        <div className="mt-3 rounded-md border border-violet-500 bg-violet-600/10 p-3" data-testid="new-events">
          <p className="flex items-center gap-2 text-sm font-semibold text-violet-200">
            <Sparkles className="h-4 w-4 shrink-0" aria-hidden="true" />
            <span>
              New <span className="font-normal text-slate-300">since your last visit</span>
            </span>
          </p>
          <ul className="mt-1 list-disc space-y-1 pl-5 text-sm text-slate-100">
            {newEvents.map((e) => (
              <li key={e.id} className="break-words" data-testid="new-event" data-kind={e.kind}>
                {describeEvent(e)}
              </li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

/** The players with changes to show first, the others after them, each group in the server's order. */
function withNewsFirst(follows: Followed[], shown: Map<number, PlayerEvent[]> | null): Followed[] {
  const hasNews = (f: Followed) => f.newEvents.length > 0 || (shown?.get(f.player.userId)?.length ?? 0) > 0;
  return [...follows.filter(hasNews), ...follows.filter((f) => !hasNews(f))];
}

/**
 * The account page's followed players: each with its verdict, its last check and what changed since the fan last
 * looked (highlighted as new). Once the list is shown the server marks the changes seen; this page keeps them
 * highlighted until the next visit.
 */
export function FollowsCard({ badgeWord = 'ELC' }: { badgeWord?: string }) {
  const { data, isLoading, isError, error, isFetchedAfterMount, isFetching } = useFollows();
  const markSeen = useMarkSeen();
  const unfollow = useUnfollow();
  const heading = useRef<HTMLHeadingElement>(null);
  // The changes as first shown on this visit, by player.
  const [shown, setShown] = useState<Map<number, PlayerEvent[]> | null>(null);
  const { mutate: seen } = markSeen;

  useEffect(() => {
    if (shown || !data || !isFetchedAfterMount || isFetching) return;
    setShown(new Map(data.follows.map((f) => [f.player.userId, f.newEvents])));
    const upTo = newestEventId(data);
    if (upTo > 0) seen(upTo);
  }, [data, shown, isFetchedAfterMount, isFetching, seen]);

  if (isLoading || (!data && !isError)) {
    return <LoadingCard />;
  }
  if (isError || !data) {
    return <LoadErrorCard sentence={errorSentence(error, 'Your followed players could not be loaded.')} testId="follows-error" />;
  }

  function onUnfollow(f: Followed) {
    unfollow.mutate(f.player.userId, {
      onSuccess: () => {
        toast({ title: `Unfollowed ${f.player.username}` });
        heading.current?.focus();
      },
      onError: (err) => toast({ title: 'Not unfollowed', description: errorSentence(err, 'Try again in a moment.'), variant: 'destructive' }),
    });
  }

  const count = data.follows.length;
  return (
    <Card className="p-4 sm:p-6" data-testid="follows-card">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 ref={heading} tabIndex={-1} className="flex items-center gap-2 text-lg font-semibold text-white focus:outline-none focus-visible:outline-2">
          <Users size={20} aria-hidden="true" className="text-violet-300" /> Followed players
        </h2>
        <Badge variant="secondary" data-testid="follow-count">
          <span className="sr-only">Following </span>
          {count} of {data.max}
        </Badge>
      </div>
      <p className="mt-1 text-sm text-slate-400">
        New badges, name changes and classification changes of the players you follow show here.{' '}
        <span data-testid="recheck-note">{recheckText(data.recheckHours)}</span>
      </p>

      {count === 0 ? (
        <div className="mt-4 rounded-lg border border-dashed border-slate-700 p-4 text-sm text-slate-300" data-testid="follows-empty">
          <p>
            You follow no one yet. Check a player on the Newgen Detector, then press <span className="font-semibold text-slate-100">Follow</span> on
            their result.
          </p>
          <Link href="/newgen-detector" className={buttonClass('outline', 'sm', 'mt-3')}>
            <UserSearch className="h-4 w-4" aria-hidden="true" /> Open the Newgen Detector
          </Link>
        </div>
      ) : (
        <ul className="mt-4 flex flex-col gap-3" aria-label="Players you follow">
          {withNewsFirst(data.follows, shown).map((f) => (
            <FollowedPlayer
              key={f.player.userId}
              followed={f}
              newEvents={mergeNewEvents(shown?.get(f.player.userId), f.newEvents)}
              badgeWord={badgeWord}
              pending={unfollow.isPending && unfollow.variables === f.player.userId}
              onUnfollow={() => onUnfollow(f)}
            />
          ))}
        </ul>
      )}
    </Card>
  );
}
