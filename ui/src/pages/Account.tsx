import { Link, useLocation } from 'wouter';
import { LogIn, ShieldCheck, UserRound } from 'lucide-react';
import { SecondFactorsCard } from '../components/account/SecondFactorsCard';
import { AlertsCard } from '../components/follows/AlertsCard';
import { FollowsCard } from '../components/follows/FollowsCard';
import { Badge } from '../components/ui/Badge';
import { SignOutButton } from '../components/auth/SignOutButton';
import { buttonClass } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
import { CenteredPage } from '../components/ui/FormCard';
import { Skeleton } from '../components/ui/Skeleton';
import { useCurrentUser } from '../lib/auth';
import { formatDate } from '../lib/format';
import { useSite } from '../lib/site';

/** /account: who you are, signing out, (for admins and moderators) sign-in security, the followed players and their Discord alerts. */
export default function Account() {
  const { data: site } = useSite();
  const { data: user, isLoading } = useCurrentUser();
  const [, navigate] = useLocation();

  if (isLoading) {
    return (
      <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-10" aria-busy="true">
        <Skeleton className="h-8 w-48" />
        <Skeleton className="mt-6 h-32 w-full" />
      </div>
    );
  }

  if (!user) {
    return (
      <CenteredPage>
        <Card className="w-full max-w-md p-6 text-center sm:p-8">
          <UserRound size={32} aria-hidden="true" className="mx-auto text-violet-300" />
          <h1 className="mt-3 text-2xl font-bold text-white">Your account</h1>
          <p className="mt-2 text-sm text-slate-400">Sign in to see your account.</p>
          <Link href="/login" className={buttonClass('default', 'md', 'mt-6')}>
            <LogIn size={16} aria-hidden="true" /> Sign in
          </Link>
        </Card>
      </CenteredPage>
    );
  }

  const staff = user.role === 'admin' || user.role === 'moderator';
  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-8 sm:px-6 sm:py-10">
      <h1 className="text-3xl font-bold text-white">Your account</h1>
      <Card className="p-5 sm:p-6">
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0">
            <p className="flex flex-wrap items-center gap-2 text-xl font-semibold text-white">
              <span className="truncate">{user.username}</span>
              <Badge variant={user.role === 'admin' ? 'destructive' : user.role === 'moderator' ? 'warning' : 'secondary'}>{user.role}</Badge>
            </p>
            <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="text-slate-400">Member since</dt>
              <dd className="text-slate-200">{formatDate(user.createdAt)}</dd>
              <dt className="text-slate-400">Last sign-in</dt>
              <dd className="text-slate-200">{formatDate(user.lastLogin)}</dd>
            </dl>
          </div>
          <div className="flex flex-col gap-2 sm:flex-row">
            {user.role === 'admin' && (
              <Link href="/admin" className={buttonClass('outline', 'md')}>
                <ShieldCheck size={16} aria-hidden="true" /> Admin dashboard
              </Link>
            )}
            <SignOutButton onSignedOut={() => navigate('/')} />
          </div>
        </div>
      </Card>
      {staff && <SecondFactorsCard siteName={site?.name ?? 'Site'} username={user.username} />}
      <FollowsCard badgeWord={site?.classification?.elcName?.trim() || 'ELC'} />
      <AlertsCard />
      {!staff && (
        <p className="text-sm text-slate-400">
          Your favorite commands and ratings are kept with this account. Admins and moderators also protect their sign-in
          here with a second factor.
        </p>
      )}
    </div>
  );
}
