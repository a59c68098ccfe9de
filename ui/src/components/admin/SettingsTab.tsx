import { useEffect, useId, useState } from 'react';
import { Database, Download, HardDrive, KeyRound, Palette, Power, RotateCcw, Save, Trash2 } from 'lucide-react';
import { isHexColor, useAdminHealth, useAdminKeys, useAdminSettings, useClearCache, useRevertBanner, useRevokeKey, useSaveSettings, type AdminKey, type BannerColors } from '../../lib/admin/settings';
import { formatDate, formatDateTime } from '../../lib/format';
import { toast } from '../../lib/toast';
import type { SiteSettings } from '../../lib/types';
import { Badge, type BadgeVariant } from '../ui/Badge';
import { Button, buttonClass } from '../ui/Button';
import { Skeleton } from '../ui/Skeleton';
import { cn } from '../ui/cn';
import { useHealth } from '../../lib/health';
import { BackupsCard } from './BackupsCard';
import { BannerPreview, ConfirmDialog, SectionCard, SkeletonTableRows, TD, TH, TableScroll, failToast } from './shared';

const FALLBACK: BannerColors = { backgroundColor: '#7c3aed', textColor: '#ffffff', borderColor: '#8b5cf6' };

export function SettingsTab({ site }: { site: SiteSettings | undefined }) {
  return (
    <div className="flex flex-col gap-4">
      <BannerSettings site={site} />
      <div className="grid gap-4 lg:grid-cols-2">
        <SystemActions />
        <SystemHealth />
      </div>
      <BackupsCard />
      <AdminKeys />
    </div>
  );
}

function ColorField({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  const id = useId();
  return (
    <div className="flex items-center gap-3 rounded-lg border border-slate-800 p-3">
      <input
        id={id}
        type="color"
        value={value}
        onInput={(e) => onChange((e.currentTarget as HTMLInputElement).value)}
        className="h-10 w-14 shrink-0 cursor-pointer rounded border border-slate-700 bg-slate-950"
      />
      <div className="min-w-0">
        <label htmlFor={id} className="block text-sm font-medium text-slate-200">
          {label}
        </label>
        <span className="font-mono text-xs text-slate-400">{value}</span>
      </div>
    </div>
  );
}

function BannerSettings({ site }: { site: SiteSettings | undefined }) {
  const { data: settings, isLoading, dataUpdatedAt } = useAdminSettings();
  const save = useSaveSettings();
  const revert = useRevertBanner();
  const [colors, setColors] = useState<BannerColors>(site?.defaultBanner ?? FALLBACK);

  // Load (and re-load after save/revert) the saved colours into the pickers.
  useEffect(() => {
    if (settings) setColors(settings.banner);
  }, [settings, dataUpdatedAt]);

  const set = (k: keyof BannerColors) => (v: string) => setColors((c) => ({ ...c, [k]: v }));
  const valid = isHexColor(colors.backgroundColor) && isHexColor(colors.textColor) && isHexColor(colors.borderColor);
  const clanName = site?.clan.name ?? 'clan';

  return (
    <SectionCard
      icon={Palette} title="Banner Customization"
      description={`Colours of the default ${clanName} banner.`}
    >
      {isLoading ? (
        <Skeleton className="h-40 w-full" />
      ) : (
        <div className="flex flex-col gap-4">
          <div className="grid gap-3 sm:grid-cols-3">
            <ColorField label="Background" value={colors.backgroundColor} onChange={set('backgroundColor')} />
            <ColorField label="Text" value={colors.textColor} onChange={set('textColor')} />
            <ColorField label="Border" value={colors.borderColor} onChange={set('borderColor')} />
          </div>
          <div>
            <p className="mb-2 text-sm text-slate-400">Live preview</p>
            <BannerPreview
              colors={colors}
              clanName={site?.clan.name ?? ''}
              message={site?.clan.message ?? ''}
              inviteUrl={site?.clan.inviteUrl}
            />
          </div>
          <div className="flex flex-wrap gap-2">
            <Button
              disabled={!valid || save.isPending}
              onClick={() =>
                save.mutate(colors, {
                  onSuccess: () => toast({ title: 'Settings Saved', description: 'The banner colours were saved.' }),
                  onError: (err) => failToast('Failed to save settings', err),
                })
              }
            >
              <Save size={16} aria-hidden="true" /> {save.isPending ? 'Saving...' : 'Save'}
            </Button>
            <Button
              variant="outline"
              disabled={revert.isPending}
              onClick={() =>
                revert.mutate(undefined, {
                  onSuccess: (res) => {
                    if (res && typeof res === 'object' && res.banner) setColors(res.banner);
                    toast({ title: 'Banner Reverted', description: `The default ${clanName} clan banner is restored.` });
                  },
                  onError: (err) => failToast('Failed to revert banner', err),
                })
              }
            >
              <RotateCcw size={16} aria-hidden="true" /> {revert.isPending ? 'Reverting...' : 'Revert to Default Banner'}
            </Button>
            {settings && (
              <Button variant="ghost" onClick={() => setColors(settings.defaults)}>
                Use default colours
              </Button>
            )}
          </div>
        </div>
      )}
    </SectionCard>
  );
}

function SystemActions() {
  const clear = useClearCache();
  return (
    <SectionCard
      icon={HardDrive} title="System Actions"
    >
      <div className="flex flex-col gap-4">
        <div>
          <Button
            variant="outline"
            className="w-full sm:w-auto"
            disabled={clear.isPending}
            onClick={() =>
              clear.mutate(undefined, {
                onSuccess: (res) => toast({ title: 'Cache Cleared', description: res?.message }),
                onError: (err) => failToast('Failed to clear cache', err),
              })
            }
          >
            <Trash2 size={16} aria-hidden="true" /> {clear.isPending ? 'Clearing...' : 'Clear System Cache'}
          </Button>
          <p className="mt-1 text-xs text-slate-400">Empties the server's in-memory caches.</p>
        </div>
        <div>
          <a href="/api/admin/backup" download className={buttonClass('outline', 'md', 'w-full sm:w-auto')}>
            <Download size={16} aria-hidden="true" /> Create Backup
          </a>
          <p className="mt-1 text-xs text-slate-400">Downloads a consistent copy of the database.</p>
        </div>
        <div>
          <Button variant="outline" disabled className="w-full sm:w-auto" aria-describedby="restart-note">
            <Power size={16} aria-hidden="true" /> Restart System
          </Button>
          <p id="restart-note" className="mt-1 text-xs text-slate-400">
            Restarting is not available from the panel: the site runs as a single binary. Restart it with your service manager,
            e.g. <code className="font-mono text-slate-300">systemctl restart fanhub</code>.
          </p>
        </div>
      </div>
    </SectionCard>
  );
}

const HEALTH_VARIANT: Record<string, BadgeVariant> = { ok: 'success', error: 'destructive', not_configured: 'secondary' };
const HEALTH_LABEL: Record<string, string> = { ok: 'OK', error: 'Error', not_configured: 'Not configured' };

/** The server's checks; a full disk (from /api/health) is said above them. */
export function SystemHealth() {
  const { data, isLoading, isError } = useAdminHealth();
  const { data: live } = useHealth();
  return (
    <SectionCard
      icon={Database} title="System Health"
    >
      {live?.disk === 'full' && (
        <p role="alert" className="mb-3 rounded-md border border-red-800 bg-red-950/60 p-3 text-sm text-red-200">
          The server&apos;s disk is full: every write answers 507 and nothing is saved until space is freed. Pages and
          reads keep working.
        </p>
      )}
      {isLoading ? (
        <div className="flex flex-col gap-2">
          {[0, 1, 2, 3].map((i) => (
            <Skeleton key={i} className="h-8 w-full" />
          ))}
        </div>
      ) : isError || !data ? (
        <p className="text-sm text-red-400">Failed to load the health checks.</p>
      ) : (
        <ul className="flex flex-col divide-y divide-slate-800">
          {data.checks.map((c) => (
            <li key={c.name} className="flex items-start justify-between gap-3 py-2" data-testid="health-check">
              <div className="min-w-0">
                <p className="text-sm font-medium text-white">{c.name}</p>
                {c.detail && <p className="break-words text-xs text-slate-400">{c.detail}</p>}
              </div>
              <Badge variant={HEALTH_VARIANT[c.status] ?? 'secondary'}>{HEALTH_LABEL[c.status] ?? c.status}</Badge>
            </li>
          ))}
        </ul>
      )}
    </SectionCard>
  );
}

function AdminKeys() {
  const { data, isLoading, isError } = useAdminKeys();
  const revoke = useRevokeKey();
  const [target, setTarget] = useState<AdminKey | null>(null);
  const keys = data?.keys ?? [];
  return (
    <SectionCard
      icon={KeyRound} title="Admin Keys"
      description="Keys that open this panel. Only a short prefix of each key is stored for display."
    >
      {isError ? (
        <p className="text-sm text-red-400">Failed to load admin keys.</p>
      ) : !isLoading && keys.length === 0 ? (
        <p className="py-6 text-center text-slate-400">No admin keys</p>
      ) : (
        <TableScroll label="Admin keys">
          <table className="w-full min-w-[720px] border-collapse">
            <thead className="border-b border-slate-800">
              <tr>
                <th scope="col" className={TH}>Key</th>
                <th scope="col" className={TH}>Name</th>
                <th scope="col" className={TH}>Created</th>
                <th scope="col" className={TH}>Last Used</th>
                <th scope="col" className={TH}>Bound IP</th>
                <th scope="col" className={TH}>Actions</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-800">
              {isLoading ? (
                <SkeletonTableRows columns={6} />
              ) : (
                keys.map((k) => (
                  <tr key={k.id} data-testid="admin-key-row">
                    <td className={cn(TD, 'whitespace-nowrap font-mono text-xs')}>{k.prefix}…</td>
                    <td className={TD}>
                      {k.name}
                      <span className="ml-2 text-xs text-slate-400">({k.source})</span>
                    </td>
                    <td className={cn(TD, 'whitespace-nowrap text-slate-300')}>{formatDate(k.createdAt)}</td>
                    <td className={cn(TD, 'whitespace-nowrap text-slate-300')}>{formatDateTime(k.lastUsed)}</td>
                    <td className={cn(TD, 'whitespace-nowrap font-mono text-xs text-slate-300')}>{k.boundIp ?? 'Any IP'}</td>
                    <td className={TD}>
                      <Button size="sm" variant="destructive" onClick={() => setTarget(k)} aria-label={`Revoke key ${k.prefix}`}>
                        Revoke
                      </Button>
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </TableScroll>
      )}
      <ConfirmDialog
        open={!!target}
        title="Revoke admin key?"
        description={
          target
            ? `The key ${target.prefix}… (${target.name}) will stop working at once. Sessions opened with it may end. This cannot be undone.`
            : undefined
        }
        confirmLabel={revoke.isPending ? 'Revoking...' : 'Revoke'}
        destructive
        pending={revoke.isPending}
        onClose={() => setTarget(null)}
        onConfirm={() => {
          const k = target;
          if (!k) return;
          revoke.mutate(k.id, {
            onSuccess: () => {
              setTarget(null);
              toast({ title: 'Key Revoked', description: `Admin key ${k.prefix}… was revoked.` });
            },
            onError: (err) => {
              setTarget(null);
              failToast('Failed to revoke key', err);
            },
          });
        }}
      />
    </SectionCard>
  );
}
