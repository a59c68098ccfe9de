import { useAdminActiveBanner } from '../../lib/admin/advertisements';
import { useAdminSettings } from '../../lib/admin/settings';
import type { SiteSettings } from '../../lib/types';
import { Badge } from '../ui/Badge';
import { Skeleton } from '../ui/Skeleton';
import { BannerPreview, SectionCard } from './shared';

/** The default clan banner: live state (Paused while an ad banner runs), its colours and a preview. */
export function ClanBannerTab({ site }: { site: SiteSettings | undefined }) {
  const { data, isLoading, isError } = useAdminActiveBanner();
  const clanName = site?.clan.name ?? 'Clan';
  const adActive = !!data && data.banner.isActive && data.banner.advertisementId !== null;
  const { data: settings } = useAdminSettings();
  // While an ad runs the active banner carries the ad's colours; the clan's own colours are the saved settings.
  const colors = adActive ? settings?.banner ?? site?.defaultBanner : data?.banner ?? site?.defaultBanner;

  return (
    <SectionCard
      title={`${clanName} Banner`}
      description="The default banner shown across the site whenever no advertisement banner is active."
      actions={
        data && (
          <Badge variant={adActive ? 'warning' : 'success'} data-testid="clan-banner-status">
            {adActive ? 'Paused' : 'Active'}
          </Badge>
        )
      }
    >
      {isLoading ? (
        <Skeleton className="h-24 w-full" />
      ) : isError ? (
        <p className="text-sm text-red-400">Failed to load the banner state.</p>
      ) : (
        <div className="flex flex-col gap-4">
          <p className="text-sm text-slate-300">
            Banner status: <span className="font-semibold text-white">{adActive ? 'Paused' : 'Active'}</span>
            {adActive && ` — advertisement #${data!.banner.advertisementId} is currently shown instead.`}
          </p>
          {colors && (
            <dl className="grid gap-3 sm:grid-cols-3">
              {(
                [
                  ['Background', colors.backgroundColor],
                  ['Text', colors.textColor],
                  ['Border', colors.borderColor],
                ] as const
              ).map(([label, value]) => (
                <div key={label} className="rounded-lg border border-slate-800 p-3">
                  <dt className="text-xs text-slate-400">{label}</dt>
                  <dd className="mt-1 flex items-center gap-2 font-mono text-sm">
                    <span aria-hidden="true" className="h-6 w-6 shrink-0 rounded-md border border-slate-700" style={{ backgroundColor: value }} />
                    {value}
                  </dd>
                </div>
              ))}
            </dl>
          )}
          {colors && site && (
            <div>
              <p className="mb-2 text-sm text-slate-400">Preview</p>
              <BannerPreview colors={colors} clanName={site.clan.name} message={site.clan.message} inviteUrl={site.clan.inviteUrl} />
            </div>
          )}
        </div>
      )}
    </SectionCard>
  );
}
