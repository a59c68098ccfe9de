import { Link } from 'wouter';
import { ShieldCheck, UserRound } from 'lucide-react';
import { AuthForm } from '../components/auth/AuthForm';
import { CenteredPage } from '../components/ui/FormCard';
import { SignOutButton } from '../components/auth/SignOutButton';
import { buttonClass } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
import { useCurrentUser } from '../lib/auth';
import { useSite } from '../lib/site';

/** /login: sign in or create an account. A signed-in visitor sees who they are and can sign out. */
export default function Login() {
  const { data: site } = useSite();
  const { data: user } = useCurrentUser();

  return (
    <CenteredPage>
      {user ? (
        <Card className="w-full max-w-md p-6 sm:p-8 text-center">
          <h1 className="text-2xl font-bold text-white">You are signed in</h1>
          <p className="mt-2 text-sm text-slate-400">
            Signed in as <span className="font-semibold text-slate-200">{user.username}</span> ({user.role}).
          </p>
          <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:justify-center">
            <Link href="/account" className={buttonClass('outline', 'md')}>
              <UserRound size={16} aria-hidden="true" /> Your account
            </Link>
            {user.role === 'admin' && (
              <Link href="/admin" className={buttonClass('default', 'md')}>
                <ShieldCheck size={16} aria-hidden="true" /> Admin dashboard
              </Link>
            )}
            <SignOutButton />
          </div>
        </Card>
      ) : (
        <AuthForm siteName={site?.name} />
      )}
    </CenteredPage>
  );
}
