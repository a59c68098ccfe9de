import { LogOut } from 'lucide-react';
import { Button } from '../ui/Button';
import { useLogout } from '../../lib/auth';
import { toast } from '../../lib/toast';

/** Signs the account out (and out of the admin panel), with its toast; `onSignedOut` after. */
export function SignOutButton({ onSignedOut }: { onSignedOut?: () => void }) {
  const logout = useLogout();
  return (
    <Button
      variant="outline"
      disabled={logout.isPending}
      onClick={() =>
        logout.mutate(undefined, {
          onSuccess: () => {
            toast({ title: 'Signed out' });
            onSignedOut?.();
          },
          onError: () => toast({ title: 'Error', description: 'Failed to sign out', variant: 'destructive' }),
        })
      }
    >
      <LogOut size={16} aria-hidden="true" /> {logout.isPending ? 'Signing out...' : 'Sign out'}
    </Button>
  );
}
