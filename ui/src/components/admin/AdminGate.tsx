import { useState } from 'react';
import { Lock } from 'lucide-react';
import { Button } from '../ui/Button';
import { CenteredPage, FormCard } from '../ui/FormCard';
import { FormField } from '../auth/FormField';

/** The locked screen of /admin: an Admin Key password field; Enter or the button submits. */
export function AdminGate({ pending, onSubmit }: { pending: boolean; onSubmit: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <CenteredPage>
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
