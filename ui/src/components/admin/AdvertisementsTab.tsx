import { useState } from 'react';
import { Check, ExternalLink, Megaphone, Play, X } from 'lucide-react';
import {
  durationLabel,
  statusLabel,
  useActivateBanner,
  useAdminActiveBanner,
  useAdminAdvertisements,
  useAdminSettings,
  useNow,
  useUpdateAdStatus,
  visibleApplications,
  type AdApplication,
  type ApplicationStatus,
  type BannerColors,
} from '../../lib/admin';
import { formatRemaining, msUntil } from '../../lib/countdown';
import { formatDate } from '../../lib/format';
import { toast } from '../../lib/toast';
import type { ActiveBannerResponse } from '../../lib/types';
import { safeHref } from '../adImage';
import { Badge, type BadgeVariant } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { SectionCard, SkeletonList, failToast } from './shared';

const STATUS_VARIANT: Record<string, BadgeVariant> = { approved: 'success', rejected: 'destructive', pending: 'warning' };

/** Is another advertisement currently the banner (approving would replace it)? */
export function bannerConflict(active: ActiveBannerResponse | undefined, app: AdApplication): boolean {
  return !!active && active.banner.isActive && active.banner.advertisementId !== null && active.banner.advertisementId !== app.id;
}

export function AdvertisementsTab({ defaultColors }: { defaultColors: BannerColors }) {
  const { data, isLoading, isError } = useAdminAdvertisements();
  const { data: active } = useAdminActiveBanner();
  const { data: settings } = useAdminSettings();
  const updateStatus = useUpdateAdStatus();
  const activate = useActivateBanner();
  const [conflictFor, setConflictFor] = useState<AdApplication | null>(null);

  const apps = visibleApplications(data?.applications);

  function setStatus(app: AdApplication, status: ApplicationStatus) {
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
    const colors = settings?.banner ?? defaultColors;
    activate.mutate(
      { advertisementId: app.id, ...colors },
      {
        onSuccess: () => toast({ title: 'Banner Activated', description: `Advertisement #${app.id} is now the site banner.` }),
        onError: (err) => failToast('Failed to activate banner', err),
      },
    );
  }

  const busy = updateStatus.isPending || activate.isPending;

  return (
    <SectionCard title="Advertisement Applications" description="Review submitted advertisements. Rejected applications are hidden.">
      {isLoading ? (
        <SkeletonList />
      ) : isError ? (
        <p className="text-sm text-red-400">Failed to load advertisement applications.</p>
      ) : apps.length === 0 ? (
        <div className="flex flex-col items-center gap-2 py-10 text-center text-slate-400">
          <Megaphone size={32} aria-hidden="true" />
          <p>No applications yet</p>
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
      <p className="mt-3 whitespace-pre-line break-words text-sm text-slate-300">{app.adDescription}</p>
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
  const now = useNow(1000);
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
