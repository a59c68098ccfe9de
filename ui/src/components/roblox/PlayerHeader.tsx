import type { ComponentChildren } from 'preact';
import { formatDay, type Evidence } from '../../lib/roblox';
import { User } from 'lucide-react';
import { FallbackImage } from './FallbackImage';
import { VerifiedMark } from './labels';

/** Avatar, username with the verified mark, and the display name when it differs. */
export function PlayerHeader({
  username,
  displayName,
  avatarUrl,
  verified,
  children,
}: {
  username: string;
  displayName: string;
  avatarUrl: string | null;
  verified: boolean;
  children?: ComponentChildren;
}) {
  return (
    <div className="flex items-start gap-4">
      <FallbackImage
        src={avatarUrl}
        alt={`${username}'s avatar`}
        placeholder={User}
        className="h-20 w-20 shrink-0 rounded-full"
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
        {children}
      </div>
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
            {e.detail}
            {e.date && <span className="text-slate-400"> ({formatDay(e.date)})</span>}
          </li>
        ))}
      </ul>
    </details>
  );
}
