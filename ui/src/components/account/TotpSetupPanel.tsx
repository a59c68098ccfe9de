import { useEffect, useState } from 'react';
import { Check, Copy } from 'lucide-react';
import { Button } from '../ui/Button';
import { Skeleton } from '../ui/Skeleton';
import { FormField } from '../auth/FormField';
import { ApiError, errorSentence } from '../../lib/api';
import { copyText } from '../../lib/clipboard';
import { groupSecret, useConfirmTotp, useStartTotp, type FactorAdded } from '../../lib/secondFactor';

/** Setting up an authenticator app: the QR code and the secret (shown once), then a code to confirm. */
export function TotpSetupPanel({ onAdded, onCancel }: { onAdded: (result: FactorAdded) => void; onCancel: () => void }) {
  const start = useStartTotp();
  const confirm = useConfirmTotp();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    start.mutate();
    // Once per opening of the panel: each start makes a new secret.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  if (start.isError) {
    return (
      <div role="alert" className="mt-4 rounded-lg border border-red-500/40 bg-red-950/30 p-3 text-sm text-red-200">
        {errorSentence(start.error, 'The set-up could not start.')}{' '}
        <button type="button" className="cursor-pointer underline" onClick={onCancel}>
          Close
        </button>
      </div>
    );
  }
  const setup = start.data;

  function submit(e: Event) {
    e.preventDefault();
    if (!code.trim()) {
      setError('Enter the 6-digit code the app shows');
      return;
    }
    confirm.mutate(code, {
      onSuccess: onAdded,
      onError: (err) => {
        const field = err instanceof ApiError ? err.fields?.code : undefined;
        if (err instanceof ApiError && err.status === 409) {
          // The five minutes passed: a new secret, scanned again.
          start.mutate();
          setCode('');
        }
        setError(field ?? errorSentence(err, 'That code did not work.'));
      },
    });
  }

  return (
    <div className="mt-4 flex flex-col gap-4 rounded-lg border border-slate-700 bg-slate-950/40 p-3 sm:p-4" data-testid="totp-setup">
      <ol className="flex list-decimal flex-col gap-1 pl-5 text-sm text-slate-300">
        <li>Open your authenticator app and add an account.</li>
        <li>Scan the QR code, or type the key under it.</li>
        <li>Type the 6-digit code the app shows.</li>
      </ol>
      <div className="flex flex-col items-center gap-3 sm:flex-row sm:items-start">
        {setup ? (
          <img
            src={setup.qrCode}
            alt="QR code to scan with your authenticator app"
            width={176}
            height={176}
            className="h-44 w-44 shrink-0 rounded-md bg-white p-2 [image-rendering:pixelated]"
          />
        ) : (
          <Skeleton className="h-44 w-44 shrink-0" />
        )}
        <div className="flex w-full min-w-0 flex-col gap-2">
          <p className="text-sm text-slate-300">Can't scan? Type this key (letters and digits only, spaces don't matter):</p>
          {setup ? (
            <code data-testid="totp-secret" className="break-words rounded-md border border-slate-700 bg-slate-950 px-3 py-2 font-mono text-sm text-slate-100">
              {groupSecret(setup.secret)}
            </code>
          ) : (
            <Skeleton className="h-10 w-full" />
          )}
          <Button
            variant="outline"
            size="sm"
            className="self-start"
            disabled={!setup}
            onClick={async () => {
              if (setup && (await copyText(setup.secret))) {
                setCopied(true);
                setTimeout(() => setCopied(false), 2000);
              }
            }}
          >
            {copied ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />} {copied ? 'Copied!' : 'Copy key'}
          </Button>
          <p className="text-xs text-slate-400">This key is shown once. Anyone who has it can make your codes: don't share it.</p>
        </div>
      </div>
      <form noValidate onSubmit={submit} className="flex flex-col gap-3 sm:flex-row sm:items-start" aria-label="Confirm the authenticator app">
        <FormField
          label="6-digit code from the app"
          name="totp-code"
          value={code}
          onInput={(v) => {
            setCode(v);
            setError(undefined);
          }}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={7}
          error={error}
          disabled={!setup || confirm.isPending}
          className="flex-1"
        />
        <div className="flex gap-2 sm:mt-7">
          <Button type="submit" disabled={!setup || confirm.isPending}>
            {confirm.isPending ? 'Checking...' : 'Turn on'}
          </Button>
          <Button variant="ghost" onClick={onCancel} disabled={confirm.isPending}>
            Cancel
          </Button>
        </div>
      </form>
    </div>
  );
}
