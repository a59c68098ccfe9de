import { formatDateTime } from '../../lib/format';
import { awardDatesRefused, describeSources, formatAccountAge, formatDay, type NewgenCheck } from '../../lib/roblox';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';
import { GenerationBadge } from './labels';
import { AwardDatesUnavailable, EvidenceList, Fact, PlayerHeader } from './PlayerHeader';

/** The newgen check's answer: who, when they joined, the classification and its evidence, and the key used. */
export function NewgenResult({ result }: { result: NewgenCheck }) {
  const elc = result.elcBadges;
  const datesRefused = awardDatesRefused(elc);
  return (
    <Card className="flex flex-col gap-6 p-5 sm:p-6" data-testid="newgen-result">
      <PlayerHeader
        username={result.username}
        displayName={result.displayName}
        avatarUrl={result.avatarUrl}
        verified={result.hasVerifiedBadge}
      >
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <GenerationBadge generation={result.generation} label={result.generationLabel} veteran={result.isVeteran} newgen={result.isNewgen} />
          {result.isBanned && <Badge variant="destructive">Banned</Badge>}
        </div>
      </PlayerHeader>

      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <Fact label="User ID" testId="user-id">{result.userId}</Fact>
        <Fact label="Join date" testId="join-date">{formatDay(result.joinDate)}</Fact>
        <Fact label="Account age" testId="account-age">{formatAccountAge(result.accountAge)}</Fact>
        <Fact label="ELC badges" testId="elc-count">
          {datesRefused ? 'Unavailable' : `${elc.count} / ${elc.total}`}
        </Fact>
        <Fact label="Classification" testId="classification">
          {result.classification}
          {typeof result.confidence === 'number' && (
            <span className="ml-2 text-sm font-normal text-slate-300" data-testid="confidence">({result.confidence}% confidence)</span>
          )}
        </Fact>
      </dl>
      {result.reason && (
        <p className="text-sm text-slate-300" data-testid="reason">
          <span className="font-semibold text-slate-100">Why: </span>
          {result.reason}
        </p>
      )}
      {result.evidence && <EvidenceList evidence={result.evidence} />}

      <section aria-labelledby="elc-heading">
        <h3 id="elc-heading" className="mb-2 text-lg font-semibold text-white">ELC badges</h3>
        {datesRefused ? (
          <AwardDatesUnavailable reason={elc.unavailableReason} />
        ) : elc.badges.length === 0 ? (
          <p className="text-sm text-slate-400" data-testid="no-elc">This player has none of the {elc.total} ELC badges.</p>
        ) : (
          <ul className="divide-y divide-slate-800 rounded-lg border border-slate-800" data-testid="elc-list">
            {elc.badges.map((b) => (
              <li key={b.badgeId ?? b.name} className="flex flex-wrap items-baseline justify-between gap-2 p-3 text-sm" data-testid="elc-badge">
                <span className="min-w-0 break-words font-medium text-slate-100">
                  {b.name} <span className="text-xs text-slate-400">ID: {b.badgeId}</span>
                </span>
                <span className="text-slate-300">Awarded {formatDay(b.awardedDate)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="key-heading" className="rounded-lg border border-slate-800 bg-slate-950/40 p-4 text-sm text-slate-300">
        <h3 id="key-heading" className="mb-2 font-semibold text-white">API key</h3>
        <dl className="grid gap-1 sm:grid-cols-3">
          <div>
            <dt className="inline text-slate-400">Name: </dt>
            <dd className="inline" data-testid="key-name">{result.apiKey.name}</dd>
          </div>
          <div>
            <dt className="inline text-slate-400">Requests used: </dt>
            <dd className="inline tabular-nums" data-testid="key-requests">{result.apiKey.requests.toLocaleString('en-US')}</dd>
          </div>
          <div>
            <dt className="inline text-slate-400">Checked at: </dt>
            <dd className="inline" data-testid="checked-at">{formatDateTime(result.checkedAt)}</dd>
          </div>
        </dl>
        {describeSources(result.robloxSources) && (
          <p className="mt-2 text-xs text-slate-400" data-testid="roblox-sources">
            {describeSources(result.robloxSources)}.
          </p>
        )}
      </section>
    </Card>
  );
}
