import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
// Icons of this page's own (shared ones would add a chunk to the list every page's loader carries).
import { UserRoundCheck, UserRoundPlus } from 'lucide-react';
import { Button, buttonClass } from '../ui/Button';
import { signInHref, useCurrentUser } from '../../lib/auth';
import { followErrorText, useFollow, useFollows, useUnfollow } from '../../lib/follows';
import { toast } from '../../lib/toast';

/**
 * Follow on a newgen result: "Follow" when signed in, then "Following" with a one-click "Unfollow"; a link to
 * sign in otherwise. A refused follow (the account's limit, a banned player) shows the server's sentence under it.
 */
export function FollowButton({ userId, username, banned = false }: { userId: number; username: string; banned?: boolean }) {
  const { data: user, isLoading: userLoading } = useCurrentUser();
  const signedIn = !!user;
  const follows = useFollows(signedIn);
  const follow = useFollow();
  const unfollow = useUnfollow();
  const [error, setError] = useState<string | null>(null);
  // After a click the button it was on goes away: the focus moves to the one that takes its place.
  const moveFocus = useRef(false);
  const controls = useRef<HTMLDivElement>(null);
  const following = follows.data?.follows.some((f) => f.player.userId === userId) ?? false;

  useEffect(() => {
    if (!moveFocus.current) return;
    moveFocus.current = false;
    controls.current?.querySelector<HTMLElement>('button')?.focus();
  }, [following]);

  // A new result is another player: no message of the last one stays.
  useEffect(() => setError(null), [userId]);

  if (userLoading) {
    return (
      <Button variant="outline" size="sm" disabled data-testid="follow-loading">
        <UserRoundPlus className="h-4 w-4" aria-hidden="true" /> Follow
      </Button>
    );
  }
  if (!signedIn) {
    return (
      <Link href={signInHref(`/newgen-detector?username=${encodeURIComponent(username)}`)} className={buttonClass('outline', 'sm')} data-testid="follow-sign-in">
        <UserRoundPlus className="h-4 w-4" aria-hidden="true" /> Sign in to follow
      </Link>
    );
  }
  // Roblox banned the player: the server refuses a follow (one made before stays, to be undone).
  if (banned && !following) return null;

  const busy = follow.isPending || unfollow.isPending || follows.isLoading;

  function onFollow() {
    setError(null);
    moveFocus.current = true;
    follow.mutate(userId, {
      onSuccess: () => toast({ title: `Following ${username}`, description: 'Their changes show on your account page.' }),
      onError: (err) => {
        moveFocus.current = false;
        setError(followErrorText(err));
      },
    });
  }

  function onUnfollow() {
    setError(null);
    moveFocus.current = true;
    unfollow.mutate(userId, {
      onSuccess: () => toast({ title: `Unfollowed ${username}` }),
      onError: (err) => {
        moveFocus.current = false;
        setError(followErrorText(err));
      },
    });
  }

  return (
    <div className="flex min-w-0 flex-wrap items-center gap-2" data-testid="follow-controls">
      <div ref={controls} className="flex flex-wrap items-center gap-2">
        {following ? (
          <>
            <span className="inline-flex items-center gap-1 text-sm font-medium text-emerald-300" data-testid="following">
              <UserRoundCheck className="h-4 w-4" aria-hidden="true" /> Following
            </span>
            <Button variant="outline" size="sm" onClick={onUnfollow} disabled={busy} aria-label={`Unfollow ${username}`}>
              Unfollow
            </Button>
          </>
        ) : (
          <Button size="sm" onClick={onFollow} disabled={busy} aria-label={`Follow ${username}`}>
            <UserRoundPlus className="h-4 w-4" aria-hidden="true" /> Follow
          </Button>
        )}
      </div>
      {error && (
        <p role="alert" className="basis-full text-sm text-red-300" data-testid="follow-error">
          {error}
        </p>
      )}
    </div>
  );
}
