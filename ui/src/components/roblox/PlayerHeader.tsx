import type { ComponentChildren } from 'preact';
import { formatDay, initialsOf, robloxProfileUrl, type Evidence } from '../../lib/roblox';
import { ExternalLink, User } from 'lucide-react';
import { formatDaysInText } from '../../lib/format';
import { FallbackImage } from './FallbackImage';
import { VerifiedMark } from './labels';

/** Avatar (the initials when it cannot load), username with the verified mark and a link to the Roblox profile, and the display name when it differs. */
export function PlayerHeader({
  username,
  displayName,
  avatarUrl,
  verified,
  userId,
  actions,
  children,
}: {
  username: string;
  displayName: string;
  avatarUrl: string | null;
  verified: boolean;
  /** Roblox's user id: the name links to the Roblox profile. */
  userId?: number;
  /** Buttons at the end of the row (e.g. Share). */
  actions?: ComponentChildren;
  children?: ComponentChildren;
}) {
  return (
    <div className="flex flex-wrap items-start gap-4">
      <FallbackImage
        src={avatarUrl}
        alt={`${username}'s avatar`}
        placeholder={User}
        initials={initialsOf(username)}
        className="h-20 w-20 shrink-0 rounded-full text-2xl"
        testId="avatar"
      />
      <div className="min-w-0 flex-1">
        <h2 className="flex flex-wrap items-center gap-2 break-all text-2xl font-bold text-white">
          <span data-testid="username">{username}</span>
          {verified && <VerifiedMark />}
        </h2>
        {displayName && displayName !== username && (
          <p className="break-words text-slate-300" data-testid="display-name">
            {displayName}
          </p>
        )}
        {typeof userId === 'number' && (
          <a
            href={robloxProfileUrl(userId)}
            target="_blank"
            rel="noopener noreferrer"
            data-testid="profile-link"
            className="mt-1 inline-flex min-h-6 items-center gap-1 text-sm font-medium text-violet-300 underline-offset-2 hover:text-violet-200 hover:underline pointer-coarse:min-h-11"
          >
            Roblox profile
            <ExternalLink className="h-3.5 w-3.5" aria-hidden="true" />
            <span className="sr-only"> (opens in a new tab)</span>
          </a>
        )}
        {children}
      </div>
      {/* On a phone the buttons take a row of their own, so the name keeps the width beside the avatar. */}
      {actions && <div className="basis-full sm:basis-auto sm:shrink-0">{actions}</div>}
    </div>
  );
}

/** A labelled figure of a result (a <dt>/<dd> pair inside a <dl>). */
export function Fact({ label, children, testId }: { label: string; children: ComponentChildren; testId?: string }) {
  return (
    <div className="min-w-0 rounded-lg border border-slate-800 bg-slate-950/40 p-3">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-400">{label}</dt>
      <dd className="mt-1 break-words font-semibold text-white" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** The plain statement shown when Roblox refused the award dates. */
export function AwardDatesUnavailable({ reason }: { reason?: string | null }) {
  return (
    <p className="rounded-lg border border-amber-500/40 bg-amber-950/30 p-3 text-sm text-amber-100" data-testid="award-dates-unavailable">
      Award dates are unavailable: {reason || 'Roblox did not share them with this site.'} The classification comes from the
      join date alone, with a lower confidence.
    </p>
  );
}

/** The facts the classification rests on (dates, badges), as the server lists them. */
export function EvidenceList({ evidence }: { evidence: Evidence[] }) {
  if (evidence.length === 0) return null;
  return (
    <details className="rounded-lg border border-slate-800 bg-slate-950/40 p-3 text-sm text-slate-300" data-testid="evidence">
      <summary className="cursor-pointer font-semibold text-slate-100">Evidence ({evidence.length})</summary>
      <ul className="mt-2 list-disc space-y-1 pl-5">
        {evidence.map((e, i) => (
          <li key={`${e.kind}-${i}`} data-kind={e.kind}>
            {formatDaysInText(e.detail)}
            {e.date && <span className="text-slate-400"> ({formatDay(e.date)})</span>}
          </li>
        ))}
      </ul>
    </details>
  );
}
