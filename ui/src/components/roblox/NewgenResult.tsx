import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'react';
import { formatAge, formatDateTime } from '../../lib/format';
import {
  elcTerms,
  awardDatesRefused,
  buildVerdict,
  describeSources,
  detectorPath,
  formatDay,
  formatDays,
  type ClassificationRules,
  type NewgenCheck,
  type VerdictFact,
} from '../../lib/roblox';
import { FollowButton } from '../follows/FollowButton';
import { PlayerHistory } from '../follows/PlayerHistory';
import { ShareButton } from '../share/ShareButton';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';
import { cn } from '../ui/cn';
import { GenerationBadge } from './labels';
import { AwardDatesUnavailable, Fact, PlayerHeader } from './PlayerHeader';

/** One of the two facts the verdict rests on: its label, its value and what it means. */
function ReasonFact({ fact, testId, children }: { fact: VerdictFact; testId: string; children?: ComponentChildren }) {
  return (
    <div className="min-w-0 rounded-lg border border-slate-800 bg-slate-950/40 p-3" data-testid={testId}>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-400">{fact.label}</dt>
      <dd className="mt-1">
        <span className="font-semibold text-white">{children ?? fact.value}</span>
        <p className="mt-1 text-sm text-slate-300" data-testid={`${testId}-explanation`}>
          {fact.explanation}
        </p>
      </dd>
    </div>
  );
}

/** Brings the verdict on screen when it is not (a phone shows the player's figures first) and gives it focus. */
function revealVerdict(section: HTMLElement | null, heading: HTMLElement | null) {
  if (!section || !heading) return;
  const rect = section.getBoundingClientRect();
  const top = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
  const banner = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--banner-h')) || 0;
  if (rect.top < top || rect.bottom > window.innerHeight - banner) section.scrollIntoView({ block: 'center' });
  heading.focus({ preventScroll: true });
}

/** The newgen check's answer: who, the one verdict with its sentence, the two facts it rests on, the figures, the badges and the key used. */
export function NewgenResult({ result, rules }: { result: NewgenCheck; rules?: ClassificationRules }) {
  const elc = result.elcBadges;
  const datesRefused = awardDatesRefused(elc);
  const verdict = buildVerdict(result, rules);
  const terms = elcTerms(rules);
  const era = rules?.generations.find((g) => g.code === result.generation);
  const section = useRef<HTMLElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => revealVerdict(section.current, heading.current), [result]);
  const tone = result.isVeteran ? 'border-emerald-500/40 bg-emerald-950/30' : result.isNewgen ? 'border-red-500/40 bg-red-950/30' : 'border-amber-500/40 bg-amber-950/30';

  return (
    <Card className="flex flex-col gap-6 p-5 sm:p-6" data-testid="newgen-result">
      <PlayerHeader
        username={result.username}
        displayName={result.displayName}
        avatarUrl={result.avatarUrl}
        verified={result.hasVerifiedBadge}
        userId={result.userId}
        actions={
          <div className="flex flex-wrap items-center gap-2 sm:max-w-sm sm:justify-end">
            <FollowButton userId={result.userId} username={result.username} banned={result.isBanned} />
            <ShareButton title={verdict.title} text={verdict.sentence} url={detectorPath(result.username)} />
          </div>
        }
      >
        {result.isBanned && (
          <div className="mt-2">
            <Badge variant="destructive">Banned</Badge>
          </div>
        )}
      </PlayerHeader>

      <section ref={section} aria-labelledby="verdict-heading" className={cn('rounded-xl border p-4', tone)} data-testid="verdict">
        <h3
          id="verdict-heading"
          ref={heading}
          tabIndex={-1}
          className="text-3xl font-extrabold tracking-tight text-white focus:outline-none focus-visible:outline-2"
          data-testid="verdict-headline"
        >
          <span className="sr-only">Verdict: </span>
          {verdict.headline}
        </h3>
        <p className="mt-2 text-base text-slate-100" data-testid="verdict-sentence">
          {verdict.sentence}
        </p>
        <p className="mt-2 text-xs text-slate-300">
          Classification: <span data-testid="classification">{result.classification}</span>
          {typeof result.confidence === 'number' && <span data-testid="confidence">, {result.confidence}% confidence</span>}
        </p>
      </section>

      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <ReasonFact fact={verdict.generation} testId="generation-fact">
          {/* The era's own colour (a Midgen pill stays amber beside a Veteran made by badges). */}
          <GenerationBadge generation={result.generation} label={result.generationLabel} veteran={era ? !!era.veteran : result.isVeteran} newgen={era ? !!era.newgen : result.isNewgen} />
        </ReasonFact>
        <ReasonFact fact={verdict.badges} testId="elc-fact">
          <span data-testid="elc-count">{verdict.badges.value}</span>
        </ReasonFact>
      </dl>

      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Fact label="User ID" testId="user-id">{result.userId}</Fact>
        <Fact label="Join date" testId="join-date">
          {formatDay(result.joinDate)}{' '}
          <span className="text-sm font-normal text-slate-300">({formatAge(result.joinDate, { utc: true })})</span>
        </Fact>
        <Fact label="Account age" testId="account-age">{formatDays(result.accountAge)}</Fact>
      </dl>

      <section aria-labelledby="elc-heading">
        <h3 id="elc-heading" className="mb-2 text-lg font-semibold text-white">
          {terms.capitalised} badges owned
        </h3>
        {datesRefused ? (
          <AwardDatesUnavailable reason={elc.unavailableReason} />
        ) : elc.badges.length === 0 ? (
          <p className="text-sm text-slate-300" data-testid="no-elc">This player has none of the {elc.total} {terms.words} badges.</p>
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

      <PlayerHistory userId={result.userId} checkedAt={result.checkedAt} />

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
