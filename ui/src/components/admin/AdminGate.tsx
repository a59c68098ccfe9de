import { useState } from 'react';
import { Lock } from 'lucide-react';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { FormField } from '../auth/FormField';

/** The locked screen of /admin: an Admin Key password field; Enter or the button submits. */
export function AdminGate({ pending, onSubmit }: { pending: boolean; onSubmit: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <div className="flex min-h-[70vh] w-full items-center justify-center px-4 py-12">
      <Card className="w-full max-w-md p-6 sm:p-8">
        <div className="mb-6 text-center">
          <div className="mx-auto mb-3 flex h-12 w-12 items-center justify-center rounded-full bg-violet-600/20 text-violet-300">
            <Lock size={24} aria-hidden="true" />
          </div>
          <h1 className="text-2xl font-bold text-white">Admin Access</h1>
          <p className="mt-1 text-sm text-slate-400">Enter your admin key to open the control center.</p>
        </div>
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
      </Card>
    </div>
  );
}
