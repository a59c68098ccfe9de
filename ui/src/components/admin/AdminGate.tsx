import { useState } from 'react';
import { Link } from 'wouter';
import { AlertTriangle, Lock, ShieldCheck } from 'lucide-react';
import { Button, buttonClass } from '../ui/Button';
import { CenteredPage, FormCard } from '../ui/FormCard';
import { FormField } from '../auth/FormField';

/** Why a signed-in admin account was not let in (the site requires a second factor it lacks). */
export interface AccountRefusal {
  error: string;
  message?: string;
}

/**
 * The locked screen of /admin: an Admin Key password field; Enter or the button submits. When the
 * signed-in admin account was refused (no second factor where the site requires one), it says so
 * first, with the way to the account page.
 */
export function AdminGate({
  pending,
  onSubmit,
  refusal,
}: {
  pending: boolean;
  onSubmit: (key: string) => void;
  refusal?: AccountRefusal;
}) {
  const [key, setKey] = useState('');
  return (
    <CenteredPage>
      {refusal && (
        <div role="alert" data-testid="admin-account-refused" className="w-full max-w-md rounded-xl border border-amber-500/40 bg-amber-500/10 p-4 text-sm">
          <p className="flex items-start gap-2 font-semibold text-amber-100">
            <AlertTriangle size={18} aria-hidden="true" className="mt-0.5 shrink-0 text-amber-300" /> {refusal.error}
          </p>
          {refusal.message && <p className="mt-1 text-amber-100/90">{refusal.message}</p>}
          <Link href="/account" className={buttonClass('default', 'md', 'mt-3 w-full sm:w-auto')}>
            <ShieldCheck size={16} aria-hidden="true" /> Add a second factor
          </Link>
        </div>
      )}
      <FormCard icon={Lock} title="Admin Access" subtitle="Enter your admin key to open the control center.">
        <form
          noValidate
          aria-label="Admin access"
          className="flex flex-col gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            if (!pending) onSubmit(key);
          }}
        >
          <FormField label="Admin Key" name="adminKey" type="password" value={key} onInput={setKey} autoComplete="off" autoFocus />
          <Button type="submit" size="lg" disabled={pending} className="w-full">
            {pending ? 'Verifying...' : 'Access Admin Panel'}
          </Button>
        </form>
      </FormCard>
    </CenteredPage>
  );
}
