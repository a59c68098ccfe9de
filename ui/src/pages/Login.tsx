import { Link } from 'wouter';
import { LogOut, ShieldCheck } from 'lucide-react';
import { AuthForm } from '../components/auth/AuthForm';
import { CenteredPage } from '../components/ui/FormCard';
import { Button, buttonClass } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
import { useCurrentUser, useLogout } from '../lib/auth';
import { useSite } from '../lib/site';
import { toast } from '../lib/toast';

/** /login: sign in or create an account. A signed-in visitor sees who they are and can sign out. */
export default function Login() {
  const { data: site } = useSite();
  const { data: user } = useCurrentUser();
  const logout = useLogout();

  return (
    <CenteredPage>
      {user ? (
        <Card className="w-full max-w-md p-6 sm:p-8 text-center">
          <h1 className="text-2xl font-bold text-white">You are signed in</h1>
          <p className="mt-2 text-sm text-slate-400">
            Signed in as <span className="font-semibold text-slate-200">{user.username}</span> ({user.role}).
          </p>
          <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:justify-center">
            {user.role === 'admin' && (
              <Link href="/admin" className={buttonClass('default', 'md')}>
                <ShieldCheck size={16} aria-hidden="true" /> Admin dashboard
              </Link>
            )}
            <Button
              variant="outline"
              disabled={logout.isPending}
              onClick={() =>
                logout.mutate(undefined, {
                  onSuccess: () => toast({ title: 'Signed out' }),
                  onError: () => toast({ title: 'Error', description: 'Failed to sign out', variant: 'destructive' }),
                })
              }
            >
              <LogOut size={16} aria-hidden="true" /> {logout.isPending ? 'Signing out...' : 'Sign out'}
            </Button>
          </div>
        </Card>
      ) : (
        <AuthForm siteName={site?.name} />
      )}
    </CenteredPage>
  );
}
