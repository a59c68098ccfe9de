import { Activity, Award, BarChart3, Clock, Eye, Megaphone, Radar, Users } from 'lucide-react';
import { useAdminActiveBanner } from '../../lib/admin/advertisements';
import { formatUptime, uptimeSecondsAt, useAdminStats, type AdminStats } from '../../lib/admin/dashboard';
import { useNow } from '../../lib/admin/queries';
import { formatRemaining, msUntil } from '../../lib/countdown';
import { formatDateTime } from '../../lib/format';
import type { ActiveBannerResponse } from '../../lib/types';
import { Badge } from '../ui/Badge';
import { Skeleton } from '../ui/Skeleton';
import { SectionCard, StatCard } from './shared';

const n = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v.toLocaleString() : '—');

export function DashboardTab({ clanName }: { clanName: string }) {
  const { data: stats, isLoading, isError } = useAdminStats();
  const { data: banner } = useAdminActiveBanner();
  const now = useNow(1000);

  if (isLoading) {
    return (
      <div role="status" aria-label="Loading dashboard" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {Array.from({ length: 8 }, (_, i) => (
          <Skeleton key={i} className="h-28 rounded-xl" />
        ))}
      </div>
    );
  }
  if (isError || !stats) return <p className="text-sm text-red-400">Failed to load the dashboard statistics.</p>;

  return (
    <div className="flex flex-col gap-4">
      <AccessStatus stats={stats} />
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard testId="stat-total-users" label="Total Users" value={n(stats.totalUsers)} sub={`+${n(stats.newUsersToday)} today`} icon={<Users size={18} aria-hidden="true" />} />
        <StatCard testId="stat-page-views" label="Page Views" value={n(stats.pageViews)} sub={`+${n(stats.pageViewsToday)} today`} icon={<Eye size={18} aria-hidden="true" />} />
        <StatCard
          testId="stat-active-ads"
          label="Active Ads"
          value={n(stats.ads.approved)}
          sub={`approved · ${n(stats.ads.pending)} pending review`}
          icon={<Megaphone size={18} aria-hidden="true" />}
        />
        <StatCard
          testId="stat-uptime"
          label="System Uptime"
          value={formatUptime(uptimeSecondsAt(stats.startedAt, now, stats.uptimeSeconds))}
          sub={`Since ${formatDateTime(stats.startedAt)}`}
          icon={<Clock size={18} aria-hidden="true" />}
        />
        <StatCard
          testId="stat-active-scans"
          label="Active Scans"
          value={n(stats.scans.running)}
          sub={`${stats.scans.running > 0 ? 'Scanner busy' : 'Scanner idle'} · ${n(stats.scans.total)} scans in total`}
          icon={<Radar size={18} aria-hidden="true" />}
        />
        <StatCard testId="stat-elc" label="ELC Badges Found" value={n(stats.elcBadgesFound)} icon={<Award size={18} aria-hidden="true" />} />
        <ScanProgress stats={stats} />
        <StatCard
          testId="stat-ads-live"
          label="Live Ad Banners"
          value={n(stats.ads.active)}
          sub="Advertisements currently shown"
          icon={<BarChart3 size={18} aria-hidden="true" />}
        />
      </div>
      <BannerStatus data={banner} now={now} clanName={clanName} />
    </div>
  );
}

function AccessStatus({ stats }: { stats: AdminStats }) {
  const active = stats.adminSessions > 0;
  return (
    <SectionCard
      title="Admin Access Status"
      actions={
        <Badge variant={active ? 'success' : 'secondary'} data-testid="admin-access-badge">
          {active ? 'ACTIVE' : 'INACTIVE'}
        </Badge>
      }
    >
      <dl className="grid gap-3 text-sm sm:grid-cols-2">
        <div>
          <dt className="text-slate-400">Active admin sessions</dt>
          <dd className="text-xl font-semibold text-white" data-testid="admin-sessions">
            {n(stats.adminSessions)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-400">Last admin access</dt>
          <dd className="text-base font-medium text-white">{formatDateTime(stats.lastAdminAccess)}</dd>
        </div>
      </dl>
    </SectionCard>
  );
}

function ScanProgress({ stats }: { stats: AdminStats }) {
  const { processed, total } = stats.scanProgress;
  const pct = total > 0 ? Math.min(100, Math.round((processed / total) * 100)) : 0;
  return (
    <StatCard
      testId="stat-scan-progress"
      label="Scan Progress"
      value={`${n(processed)} / ${n(total)}`}
      sub={total > 0 ? `${pct}% processed` : 'No scan queued'}
      icon={<Activity size={18} aria-hidden="true" />}
    >
      <div
        className="mt-2 h-2 overflow-hidden rounded-full bg-slate-800"
        role="progressbar"
        aria-label="Scan progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
      >
        <div className="h-full bg-violet-500" style={{ width: `${pct}%` }} />
      </div>
    </StatCard>
  );
}

function BannerStatus({ data, now, clanName }: { data: ActiveBannerResponse | undefined; now: number; clanName: string }) {
  const adActive = !!data && data.banner.isActive && data.banner.advertisementId !== null;
  return (
    <SectionCard
      title="Current Banner Status"
      actions={<Badge variant={adActive ? 'success' : 'secondary'}>{adActive ? 'Active' : 'Default'}</Badge>}
    >
      {!data ? (
        <Skeleton className="h-12 w-full" />
      ) : adActive ? (
        <div className="flex flex-col gap-1 text-sm" data-testid="banner-status-ad">
          <p className="font-semibold text-white">Advertisement Banner Active</p>
          <p className="text-slate-300">Advertisement #{data.banner.advertisementId}</p>
          <p className="text-slate-300">Expires: {formatDateTime(data.banner.expiresAt)}</p>
          <p className="font-medium text-amber-300" aria-live="off" data-testid="banner-countdown">
            {formatRemaining(msUntil(data.banner.expiresAt, now))}
          </p>
        </div>
      ) : (
        <div className="flex flex-col gap-1 text-sm" data-testid="banner-status-default">
          <p className="font-semibold text-white">Default {clanName} clan banner</p>
          <p className="text-slate-400">No advertisement banner is active.</p>
        </div>
      )}
    </SectionCard>
  );
}
