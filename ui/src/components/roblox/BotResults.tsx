import { AlertTriangle } from 'lucide-react';
import {
  awardDatesRefused,
  elcTerms,
  formatAccountAge,
  formatDay,
  splitShown,
  type BotAnalysis,
  type BotError,
  type BotQuickCheck,
} from '../../lib/roblox';
import { formatDaysInText } from '../../lib/format';
import { useSite } from '../../lib/site';
import { Card } from '../ui/Card';
import { GenerationBadge } from './labels';
import { AwardDatesUnavailable, EvidenceList, Fact, PlayerHeader } from './PlayerHeader';

export function BotAnalysisResult({ result }: { result: BotAnalysis }) {
  const { shown, rest } = splitShown(result.badges.elcBadges);
  const datesRefused = awardDatesRefused(result.badges);
  const terms = elcTerms(useSite().data?.classification);
  return (
    <Card className="flex flex-col gap-5 p-5 sm:p-6" data-testid="analysis-result">
      <p className="text-xs font-semibold uppercase tracking-wide text-violet-300">Full analysis</p>
      <PlayerHeader username={result.username} displayName={result.displayName} avatarUrl={result.avatarUrl} verified={result.hasVerifiedBadge} userId={result.userId}>
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <GenerationBadge generation={result.status.generation} label={result.status.generationLabel} veteran={result.status.isVeteran} newgen={result.status.isNewgen} />
        </div>
      </PlayerHeader>
      {result.description && <p className="whitespace-pre-line break-words text-sm text-slate-300" data-testid="description">{result.description}</p>}
      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Fact label="User ID" testId="user-id">{result.userId}</Fact>
        <Fact label="Account age" testId="account-age">{formatAccountAge(result.accountAge)}</Fact>
        <Fact label="Classification" testId="classification">{result.status.classification}</Fact>
        <Fact label="Confidence" testId="confidence">{result.status.confidence}%</Fact>
      </dl>
      {result.status.reason && (
        <p className="text-sm text-slate-300" data-testid="reason">
          <span className="font-semibold text-slate-100">Why: </span>
          {formatDaysInText(result.status.reason)}
        </p>
      )}
      {result.status.evidence && <EvidenceList evidence={result.status.evidence} />}
      <section aria-labelledby="bot-elc-heading">
        <h3 id="bot-elc-heading" className="mb-2 text-lg font-semibold text-white">
          {terms.label}{' '}
          <span className="text-sm font-normal text-slate-300" data-testid="elc-count">
            {datesRefused ? '(unavailable)' : `(${result.badges.elcCount} of ${result.badges.total})`}
          </span>
        </h3>
        {datesRefused ? (
          <AwardDatesUnavailable reason={result.badges.unavailableReason} />
        ) : shown.length === 0 ? (
          <p className="text-sm text-slate-400">No {terms.words} badges.</p>
        ) : (
          <ul className="divide-y divide-slate-800 rounded-lg border border-slate-800">
            {shown.map((b, i) => (
              <li key={`${b.name}-${i}`} className="p-3 text-sm" data-testid="elc-badge">
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <span className="break-words font-medium text-slate-100">{b.name}</span>
                  <span className="text-slate-300">Awarded {formatDay(b.awardedDate)}</span>
                </div>
                {b.description && <p className="mt-0.5 break-words text-slate-400">{b.description}</p>}
              </li>
            ))}
          </ul>
        )}
        {rest > 0 && (
          <p className="mt-2 text-sm text-slate-300" data-testid="elc-more">
            and {rest} more
          </p>
        )}
      </section>
    </Card>
  );
}

export function BotQuickCheckResult({ result }: { result: BotQuickCheck }) {
  const terms = elcTerms(useSite().data?.classification);
  return (
    <Card className="flex flex-col gap-5 p-5 sm:p-6" data-testid="check-result">
      <p className="text-xs font-semibold uppercase tracking-wide text-violet-300">Quick check</p>
      <PlayerHeader username={result.username} displayName={result.displayName} avatarUrl={result.avatarUrl} verified={false} />
      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <Fact label="Status" testId="status">
          {result.status}
          {typeof result.confidence === 'number' && <span className="ml-2 text-sm font-normal text-slate-300">({result.confidence}% confidence)</span>}
        </Fact>
        <Fact label={terms.label} testId="elc-count">{result.elcAvailable === false ? 'Unavailable' : result.elcBadgeCount}</Fact>
        <Fact label="Total badges" testId="total-badges">{result.totalBadgeCount}</Fact>
        <Fact label="Account age" testId="account-age">{formatAccountAge(result.accountAge)}</Fact>
        <Fact label="Earliest badge" testId="earliest-badge">
          {result.earliestBadge ? `${result.earliestBadge.name} (${formatDay(result.earliestBadge.awardedDate)})` : 'None known'}
        </Fact>
      </dl>
    </Card>
  );
}

export function BotErrorResult({ error }: { error: BotError }) {
  return (
    <div role="alert" className="flex items-start gap-3 rounded-xl border border-red-500/40 bg-red-950/30 p-5" data-testid="bot-error">
      <AlertTriangle className="mt-0.5 h-5 w-5 shrink-0 text-red-400" aria-hidden="true" />
      <div className="min-w-0">
        <p className="font-semibold text-red-200" data-testid="bot-error-title">{error.error}</p>
        {error.message && <p className="mt-1 break-words text-sm text-red-200/80" data-testid="bot-error-message">{error.message}</p>}
      </div>
    </div>
  );
}
