import { useState } from 'react';
import { Check, ExternalLink, Megaphone, Play, Sparkles, X } from 'lucide-react';
import { activationColors, applicationsOfPages, durationLabel, statusLabel, useActivateBanner, useAdminActiveBanner, useAdminAdvertisements, useUpdateAdStatus, visibleApplications, type AdApplication, type ReviewDecision } from '../../lib/admin/advertisements';
import { useNow } from '../../lib/admin/queries';
import { useAdminSettings, type BannerColors } from '../../lib/admin/settings';
import { formatRemaining, msUntil } from '../../lib/countdown';
import { formatDate } from '../../lib/format';
import { toast } from '../../lib/toast';
import type { ActiveBannerResponse } from '../../lib/types';
import { safeHref } from '../adImage';
import { AdImage, Sponsored } from '../BottomBanner';
import { Badge, type BadgeVariant } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { cn } from '../ui/cn';
import { LoadMore, SectionCard, SkeletonList, failToast } from './shared';

const STATUS_VARIANT: Record<string, BadgeVariant> = { approved: 'success', rejected: 'destructive', pending: 'warning' };

/** Is another advertisement currently the banner (approving would replace it)? */
export function bannerConflict(active: ActiveBannerResponse | undefined, app: AdApplication): boolean {
  return !!active && active.banner.isActive && active.banner.advertisementId !== null && active.banner.advertisementId !== app.id;
}

export function AdvertisementsTab({ defaultColors }: { defaultColors: BannerColors }) {
  // Rejected applications leave the list; the filter reaches them for the audit.
  const [showRejected, setShowRejected] = useState(false);
  const query = useAdminAdvertisements(true, showRejected ? 'rejected' : undefined);
  const { data, isLoading, isError } = query;
  const { data: active } = useAdminActiveBanner();
  const { data: settings } = useAdminSettings();
  const updateStatus = useUpdateAdStatus();
  const activate = useActivateBanner();
  const [conflictFor, setConflictFor] = useState<AdApplication | null>(null);

  const loaded = applicationsOfPages(data?.pages);
  const apps = showRejected ? loaded : visibleApplications(loaded);

  function setStatus(app: AdApplication, status: ReviewDecision) {
    updateStatus.mutate(
      { id: app.id, status },
      {
        onSuccess: () =>
          toast({ title: 'Advertisement Status Updated', description: `Application #${app.id} is now ${status}.` }),
        onError: (err) => failToast('Failed to update advertisement status', err),
      },
    );
  }

  function approve(app: AdApplication) {
    if (bannerConflict(active, app)) setConflictFor(app);
    else setStatus(app, 'approved');
  }

  function activateBanner(app: AdApplication) {
    activate.mutate(
      { advertisementId: app.id, ...activationColors(app, settings?.banner ?? defaultColors) },
      {
        onSuccess: () => toast({ title: 'Banner Activated', description: `Advertisement #${app.id} is now the site banner.` }),
        onError: (err) => failToast('Failed to activate banner', err),
      },
    );
  }

  const busy = updateStatus.isPending || activate.isPending;

  return (
    <SectionCard title="Advertisement Applications" description="Review submitted advertisements. Rejected applications are hidden.">
      <div className="mb-3 flex items-center gap-2 text-sm">
        <label htmlFor="ad-status-filter" className="text-slate-400">
          Show
        </label>
        <select
          id="ad-status-filter"
          value={showRejected ? 'rejected' : 'current'}
          className="rounded-md border border-slate-600 bg-slate-900 px-2 py-1 text-sm text-white"
          onChange={(e) => setShowRejected((e.currentTarget as HTMLSelectElement).value === 'rejected')}
        >
          <option value="current">Pending and approved</option>
          <option value="rejected">Rejected (audit)</option>
        </select>
      </div>
      {isLoading ? (
        <SkeletonList />
      ) : isError ? (
        <p className="text-sm text-red-400">Failed to load advertisement applications.</p>
      ) : apps.length === 0 ? (
        <div className="flex flex-col items-center gap-2 py-10 text-center text-slate-400">
          <Megaphone size={32} aria-hidden="true" />
          <p>{showRejected ? 'No rejected applications' : 'No applications yet'}</p>
        </div>
      ) : (
        <ul className="flex flex-col gap-3" aria-label="Advertisement applications">
          {apps.map((app) => (
            <ApplicationItem
              key={app.id}
              app={app}
              busy={busy}
              onApprove={() => approve(app)}
              onReject={() => setStatus(app, 'rejected')}
              onActivate={() => activateBanner(app)}
            />
          ))}
        </ul>
      )}
      {apps.length > 0 && (
        <LoadMore
          label="applications"
          shown={apps.length}
          hasMore={!!query.hasNextPage}
          loading={query.isFetchingNextPage}
          onMore={() => query.fetchNextPage()}
        />
      )}
      <ConflictDialog
        app={conflictFor}
        active={active}
        onClose={() => setConflictFor(null)}
        onContinue={() => {
          const app = conflictFor;
          setConflictFor(null);
          if (app) setStatus(app, 'approved');
        }}
      />
    </SectionCard>
  );
}

export function ApplicationItem({
  app,
  busy,
  onApprove,
  onReject,
  onActivate,
}: {
  app: AdApplication;
  busy?: boolean;
  onApprove: () => void;
  onReject: () => void;
  onActivate: () => void;
}) {
  const href = safeHref(app.websiteUrl);
  const links = (app.links ?? []).filter((l) => l && l.trim());
  return (
    <li className="rounded-lg border border-slate-800 bg-slate-950/50 p-4" data-testid="ad-application" data-app-id={app.id}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          {href ? (
            <a href={href} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 break-all font-semibold text-violet-300 hover:underline">
              {app.websiteUrl} <ExternalLink size={14} aria-hidden="true" />
            </a>
          ) : (
            <span className="break-all font-semibold text-white">{app.websiteUrl}</span>
          )}
          <p className="text-xs text-slate-400">Application #{app.id}</p>
        </div>
        <div className="flex flex-wrap gap-2">
          {app.isActive && <Badge variant="success">Active Banner</Badge>}
          <Badge variant={STATUS_VARIANT[app.status] ?? 'warning'} data-testid="ad-status">
            {statusLabel(app.status)}
          </Badge>
        </div>
      </div>
      <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-start">
        {app.imagePath ? (
          <AdImage
            imagePath={app.imagePath}
            className="max-h-24 max-w-48 sm:max-h-28"
            placeholderClassName="h-24 w-24 sm:h-28 sm:w-28"
            iconSize={28}
          />
        ) : app.imageRemovedAt ? (
          <p className="text-xs text-slate-400" data-testid="ad-image-removed">
            Image deleted {formatDate(app.imageRemovedAt)}
          </p>
        ) : null}
        <p className="min-w-0 whitespace-pre-line break-words text-sm text-slate-300">{app.adDescription}</p>
      </div>
      <dl className="mt-3 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-xs text-slate-400">Duration</dt>
          <dd data-testid="ad-duration">{durationLabel(app.duration)}</dd>
        </div>
        <div>
          <dt className="text-xs text-slate-400">Target audience</dt>
          <dd>{app.targetAudience ? app.targetAudience : 'Not specified'}</dd>
        </div>
        <div>
          <dt className="text-xs text-slate-400">Submitted</dt>
          <dd>{formatDate(app.createdAt)}</dd>
        </div>
      </dl>
      {links.length > 0 && (
        <div className="mt-3">
          <p className="text-xs text-slate-400">Additional links</p>
          <ul className="mt-1 flex flex-col gap-1">
            {links.map((l, i) => {
              const lh = safeHref(l);
              return (
                <li key={i} className="break-all text-sm">
                  {lh ? (
                    <a href={lh} target="_blank" rel="noopener noreferrer" className="text-violet-300 hover:underline">
                      {l}
                    </a>
                  ) : (
                    <span>{l}</span>
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      )}
      {app.premiumFullscreen && (
        <p className="mt-3 text-sm text-slate-300">
          Full-screen message:{' '}
          {app.fullscreenMessageType === 'user-input' && app.fullscreenCustomMessage ? (
            <span className="break-words text-white" data-testid="ad-custom-message">
              {app.fullscreenCustomMessage}
            </span>
          ) : (
            <span className="text-white">AI-generated</span>
          )}
        </p>
      )}
      {app.aiAnalysis && <Analysis analysis={app.aiAnalysis} />}
      {app.design && app.status !== 'rejected' && (
        <div className="mt-3" data-testid="ad-banner-preview-wrap">
          <p className="text-xs text-slate-400">
            Banner preview {app.isActive ? '(live now)' : '(colours taken from the image; used when the banner is activated)'}
          </p>
          <div
            data-testid="ad-banner-preview"
            className="mt-1 rounded-lg border-2 px-4 py-2.5"
            style={{ backgroundColor: app.design.backgroundColor, color: app.design.textColor, borderColor: app.design.borderColor }}
          >
            <Sponsored ad={{ websiteUrl: app.websiteUrl, imagePath: app.imagePath ?? '', adDescription: app.adDescription, links: app.links }} />
          </div>
          <p className="mt-1 font-mono text-xs text-slate-400">
            background {app.design.backgroundColor} · text {app.design.textColor} · border {app.design.borderColor}
          </p>
        </div>
      )}
      {(app.status === 'pending' || (app.status === 'approved' && !app.isActive)) && (
        <div className="mt-4 flex flex-wrap gap-2">
          {app.status === 'pending' && (
            <>
              <Button size="sm" onClick={onApprove} disabled={busy}>
                <Check size={16} aria-hidden="true" /> Approve
              </Button>
              <Button size="sm" variant="destructive" onClick={onReject} disabled={busy}>
                <X size={16} aria-hidden="true" /> Reject
              </Button>
            </>
          )}
          {app.status === 'approved' && (
            <Button size="sm" variant="outline" onClick={onActivate} disabled={busy}>
              <Play size={16} aria-hidden="true" /> Activate Banner
            </Button>
          )}
        </div>
      )}
    </li>
  );
}

/** The analysis of an ad, with how sure it is and why: the words that pointed to each category. */
function Analysis({ analysis }: { analysis: NonNullable<AdApplication['aiAnalysis']> }) {
  const confident = analysis.certainty === 'confident';
  const rows: [string, string][] = [
    ['Main product', analysis.mainProduct],
    ['Category', analysis.category],
    ['Price range', analysis.priceRange],
    ['Call to action', analysis.callToAction],
  ];
  const evidence = analysis.evidence ?? [];
  return (
    <div className="mt-3 rounded-lg border border-violet-500/30 bg-violet-600/10 p-3 text-sm" data-testid="ad-analysis">
      <p className="flex items-center gap-1.5 font-semibold text-violet-200">
        <Sparkles size={14} aria-hidden="true" /> AI analysis
        <span className="font-normal text-slate-300">({analysis.source === 'llm' ? 'language model' : 'heuristics'})</span>
      </p>
      {analysis.summary && <p className="mt-1 break-words text-slate-200">{analysis.summary}</p>}
      <p className="mt-2 text-slate-200" data-testid="ad-analysis-certainty" data-certainty={confident ? 'confident' : 'unsure'}>
        <span
          className={cn(
            'mr-2 inline-block rounded-full border px-2 py-0.5 text-xs font-semibold',
            confident ? 'border-emerald-500/60 text-emerald-300' : 'border-amber-500/60 text-amber-200',
          )}
        >
          {confident ? 'Confident' : 'Unsure'}
          {typeof analysis.confidence === 'number' ? ` · ${analysis.confidence}% confidence` : ''}
        </span>
        {confident
          ? 'The category and call to action follow from the words below.'
          : analysis.guess
            ? `It leans to ${analysis.guess}, not enough to say so: the category and call to action stay neutral.`
            : 'Nothing in the ad pointed to a category: the category and call to action stay neutral.'}
      </p>
      <dl className="mt-2 grid gap-x-4 gap-y-1 sm:grid-cols-2">
        {rows
          .filter(([, v]) => v)
          .map(([k, v]) => (
            <div key={k} className="min-w-0">
              <dt className="text-xs text-slate-400">{k}</dt>
              <dd className="break-words text-slate-200">{v}</dd>
            </div>
          ))}
      </dl>
      {evidence.length > 0 && (
        <div className="mt-2" data-testid="ad-analysis-evidence">
          <p className="text-xs text-slate-400">Why: the words that matched</p>
          <ul className="mt-1 grid gap-1 text-slate-200">
            {evidence.map((e) => (
              <li key={e.category} className="break-words">
                <span className="font-medium">{e.category}</span>
                {e.points > 0 && <span className="text-slate-400"> ({e.points} points)</span>}: {e.matched.join(', ')}
              </li>
            ))}
          </ul>
        </div>
      )}
      {analysis.keyFeatures.length > 0 && (
        <>
          <p className="mt-2 text-xs text-slate-400">Key features</p>
          <ul className="list-disc pl-5 text-slate-200">
            {analysis.keyFeatures.map((f, i) => (
              <li key={i} className="break-words">
                {f}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function ConflictDialog({
  app,
  active,
  onClose,
  onContinue,
}: {
  app: AdApplication | null;
  active: ActiveBannerResponse | undefined;
  onClose: () => void;
  onContinue: () => void;
}) {
  // Re-render every second; read the clock at render so the dialog is exact the moment it opens.
  useNow(1000);
  const now = Date.now();
  return (
    <Dialog
      open={!!app}
      onClose={onClose}
      title="Active Banner Conflict"
      description="Approving this advertisement will delete the ongoing banner. This cannot be undone."
    >
      {active && (
        <dl className="mt-4 grid gap-2 rounded-lg border border-amber-500/40 bg-amber-500/10 p-3 text-sm">
          <div className="flex justify-between gap-2">
            <dt className="text-slate-300">Active advertisement</dt>
            <dd className="font-semibold">#{active.banner.advertisementId}</dd>
          </div>
          <div className="flex justify-between gap-2">
            <dt className="text-slate-300">Time remaining</dt>
            <dd className="font-semibold text-amber-300">{formatRemaining(msUntil(active.banner.expiresAt, now))}</dd>
          </div>
        </dl>
      )}
      <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose} data-autofocus>
          Nevermind
        </Button>
        <Button variant="destructive" onClick={onContinue}>
          Continue
        </Button>
      </div>
    </Dialog>
  );
}
