import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { LogOut, Shield } from 'lucide-react';
import { AbuseReportsTab } from '../components/admin/AbuseReportsTab';
import { AdminGate } from '../components/admin/AdminGate';
import { AdvertisementsTab } from '../components/admin/AdvertisementsTab';
import { AppLogsTab, ExceptionsTab } from '../components/admin/AppLogsTab';
import { ClanBannerTab } from '../components/admin/ClanBannerTab';
import { DashboardTab } from '../components/admin/DashboardTab';
import { LoginLogsTab } from '../components/admin/LoginLogsTab';
import { ServerStatusBadge } from '../components/admin/ServerStatusBadge';
import { SettingsTab } from '../components/admin/SettingsTab';
import { UsersTab } from '../components/admin/UsersTab';
import { Button } from '../components/ui/Button';
import { Tabs, type TabDef } from '../components/ui/Tabs';
import { useAdminCheck, useAdminSignOut, useVerifyKey } from '../lib/admin/access';
import { useAdminActiveBanner, useAdminAdvertisements } from '../lib/admin/advertisements';
import { useAdminStats } from '../lib/admin/dashboard';
import { ADMIN_KEYS } from '../lib/admin/queries';
import { ApiError, errorSentence } from '../lib/api';
import { useSite } from '../lib/site';
import { toast } from '../lib/toast';
import { takeCapturedAdminKey } from '../lib/admin/urlKey';

const DEFAULT_COLORS = { backgroundColor: '#7c3aed', textColor: '#ffffff', borderColor: '#8b5cf6' };

export default function Admin() {
  const qc = useQueryClient();
  const check = useAdminCheck();
  const verify = useVerifyKey();
  // Here, not in the panel: the panel unmounts as soon as the access check is cleared.
  const signOut = useAdminSignOut();
  const [unlocked, setUnlocked] = useState(false);
  const [urlKey, setUrlKey] = useState<string | null>(null);

  const isAdmin = unlocked || !!check.data?.admin;

  function submit(raw: string) {
    const key = raw.trim();
    if (!key) {
      toast({ title: 'Error', description: 'Please enter an admin key', variant: 'destructive' });
      return;
    }
    verify.mutate(key, {
      onSuccess: () => setUnlocked(true),
      onError: (err) => {
        if (err instanceof ApiError && err.status < 500) {
          toast({ title: 'Access Denied', description: errorSentence(err, 'Invalid admin key'), variant: 'destructive' });
        } else {
          toast({ title: 'Error', description: 'Failed to verify admin key', variant: 'destructive' });
        }
      },
    });
  }

  // ?key= (from the key creation screens): take it out of the address at once...
  useEffect(() => {
    setUrlKey(takeCapturedAdminKey());
  }, []);
  // ...and submit it once we know this browser is not already an admin.
  useEffect(() => {
    if (urlKey === null || check.isLoading) return;
    setUrlKey(null);
    if (!check.data?.admin) submit(urlKey);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [urlKey, check.isLoading, check.data]);

  if (!isAdmin) {
    if (check.isLoading && !verify.isPending) {
      return (
        <div role="status" className="flex min-h-[60vh] items-center justify-center text-slate-400">
          Checking admin access...
        </div>
      );
    }
    // A signed-in admin account the server refused (403): the site requires a second factor.
    const refused = check.error instanceof ApiError && check.error.status === 403 ? check.error : null;
    return (
      <AdminGate
        pending={verify.isPending || urlKey !== null}
        onSubmit={submit}
        refusal={refused ? { error: refused.serverError ?? 'Admin access refused.', message: refused.serverMessage } : undefined}
      />
    );
  }

  return (
    <AdminPanel
      signingOut={signOut.isPending}
      onSignOut={() =>
        signOut.mutate(check.data?.via, {
          onSuccess: () => {
            setUnlocked(false);
            toast({ title: 'Signed out', description: 'You left the admin panel.' });
          },
          onError: (err) =>
            toast({ title: 'Sign out failed', description: errorSentence(err, 'Please try again.'), variant: 'destructive' }),
        })
      }
      onSessionLost={() => {
        setUnlocked(false);
        qc.setQueryData(ADMIN_KEYS.check, null);
        toast({ title: 'Session expired', description: 'Enter your admin key again.', variant: 'destructive' });
      }}
    />
  );
}

/** Ends this browser's admin access: the admin session, or the admin account's sign-in. */
function SignOutButton({ pending, onClick }: { pending: boolean; onClick: () => void }) {
  return (
    <Button variant="outline" size="sm" className="order-last" disabled={pending} onClick={onClick}>
      <LogOut size={16} aria-hidden="true" /> {pending ? 'Signing out...' : 'Sign out'}
    </Button>
  );
}

function AdminPanel({
  signingOut,
  onSignOut,
  onSessionLost,
}: {
  signingOut: boolean;
  onSignOut: () => void;
  onSessionLost: () => void;
}) {
  const { data: site } = useSite();
  const stats = useAdminStats();
  const ads = useAdminAdvertisements();
  const banner = useAdminActiveBanner();
  const [tab, setTab] = useState('dashboard');

  const lost = stats.error instanceof ApiError && stats.error.status === 401;
  useEffect(() => {
    if (lost) onSessionLost();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [lost]);

  if (stats.isLoading || ads.isLoading || banner.isLoading) {
    return (
      <div role="status" className="flex min-h-[60vh] flex-col items-center justify-center gap-3 text-slate-300">
        <span aria-hidden="true" className="h-8 w-8 animate-spin rounded-full border-2 border-violet-500 border-t-transparent" />
        Loading Admin Panel...
      </div>
    );
  }

  const clanName = site?.clan.name ?? 'Clan';
  const tabs: TabDef[] = [
    { id: 'dashboard', label: 'Dashboard' },
    { id: 'advertisements', label: 'Advertisements' },
    { id: 'users', label: 'Users' },
    { id: 'reports', label: 'Reports' },
    { id: 'logs', label: 'Login Logs' },
    { id: 'app-logs', label: 'App Logs' },
    { id: 'except', label: 'Exceptions' },
    { id: 'alexoria', label: `${clanName} Banner` },
    { id: 'settings', label: 'Settings' },
  ];

  return (
    <div className="mx-auto w-full max-w-7xl px-4 py-8">
      <header className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <SignOutButton pending={signingOut} onClick={onSignOut} />
        <div className="flex items-center gap-3">
          <Shield size={32} aria-hidden="true" className="shrink-0 text-violet-400" />
          <div>
            <h1 className="text-2xl font-bold text-white sm:text-3xl">Admin Control Center</h1>
            {site && <p className="text-sm text-slate-400">{site.name}</p>}
          </div>
        </div>
        <ServerStatusBadge />
      </header>
      <Tabs tabs={tabs} value={tab} onChange={setTab} label="Admin sections" idPrefix="admin">
        {tab === 'dashboard' && <DashboardTab clanName={clanName} />}
        {tab === 'advertisements' && <AdvertisementsTab defaultColors={site?.defaultBanner ?? DEFAULT_COLORS} />}
        {tab === 'users' && <UsersTab />}
        {tab === 'reports' && <AbuseReportsTab />}
        {tab === 'logs' && <LoginLogsTab />}
        {tab === 'app-logs' && <AppLogsTab />}
        {tab === 'except' && <ExceptionsTab />}
        {tab === 'alexoria' && <ClanBannerTab site={site} />}
        {tab === 'settings' && <SettingsTab site={site} />}
      </Tabs>
    </div>
  );
}
