import { useState } from 'react';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { FormField } from '../auth/FormField';
import { ApiError, errorSentence } from '../../lib/api';

/**
 * Asks for the account's password again before a change to its sign-in security (removing a
 * factor, new recovery codes), so a session left open on a shared computer is not enough.
 */
export function PasswordDialog({
  open,
  title,
  description,
  confirmLabel,
  destructive = false,
  pending,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  description: string;
  confirmLabel: string;
  destructive?: boolean;
  pending: boolean;
  /** Resolves when done; rejects with the server's error. */
  onConfirm: (password: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>();

  function close() {
    setPassword('');
    setError(undefined);
    onClose();
  }

  async function submit(e: Event) {
    e.preventDefault();
    if (pending) return;
    if (!password) {
      setError('Enter your password');
      return;
    }
    try {
      await onConfirm(password);
      close();
    } catch (err) {
      const field = err instanceof ApiError ? err.fields?.password : undefined;
      setError(field ?? errorSentence(err, 'That did not work. Try again.'));
    }
  }

  return (
    <Dialog open={open} onClose={close} title={title} description={description}>
      <form noValidate onSubmit={submit} className="mt-4 flex flex-col gap-4">
        <FormField
          label="Your password"
          name="confirm-password"
          type="password"
          value={password}
          onInput={(v) => {
            setPassword(v);
            setError(undefined);
          }}
          autoComplete="current-password"
          error={error}
          disabled={pending}
          autoFocus
        />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={close} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" variant={destructive ? 'destructive' : 'default'} disabled={pending}>
            {pending ? 'Checking...' : confirmLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
