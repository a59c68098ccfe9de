import { useState } from 'react';
import { KeyRound, ShieldCheck } from 'lucide-react';
import { Button } from '../ui/Button';
import { FormCard } from '../ui/FormCard';
import { apiRequest, errorSentence } from '../../lib/api';
import {
  browserSupportsPasskeys,
  passkeyErrorText,
  signInMethods,
  useSignInWithCode,
  useSignInWithPasskey,
  type SecondFactorNeeded,
} from '../../lib/secondFactor';
import { toast } from '../../lib/toast';
import { FormField } from './FormField';

/**
 * The second step of signing in, after a right password on an account with a second factor:
 * a security key, the authenticator app's code, or a recovery code.
 */
export function SecondFactorStep({
  needed,
  username,
  onSignedIn,
  onStartOver,
}: {
  needed: SecondFactorNeeded;
  username: string;
  onSignedIn: () => void;
  onStartOver: () => void;
}) {
  const methods = signInMethods(needed);
  const [useRecovery, setUseRecovery] = useState(!methods.includes('totp'));
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const withCode = useSignInWithCode();
  const withPasskey = useSignInWithPasskey();
  const pending = withCode.isPending || withPasskey.isPending;
  const canUsePasskey = methods.includes('passkey') && browserSupportsPasskeys();

  function failed(err: unknown, fallback: string) {
    const text = passkeyErrorText(err) ?? errorSentence(err, fallback);
    setError(text);
    toast({ title: 'Sign-in not finished', description: text, variant: 'destructive' });
  }

  function submitCode(e: Event) {
    e.preventDefault();
    if (pending) return;
    if (!code.trim()) {
      setError(useRecovery ? 'Enter one of your recovery codes' : 'Enter the 6-digit code');
      return;
    }
    setError(undefined);
    withCode.mutate(code, {
      onSuccess: onSignedIn,
      onError: (err) => {
        setCode('');
        failed(err, 'That code did not work.');
      },
    });
  }

  function startOver() {
    // Forgets the waiting sign-in on the server too.
    void apiRequest('POST', '/api/auth/logout').catch(() => undefined);
    onStartOver();
  }

  return (
    <FormCard icon={ShieldCheck} title="One more step" subtitle={`Prove it is you, ${username}: your password was right.`}>
      <div className="flex flex-col gap-5">
        {canUsePasskey && (
          <div className="flex flex-col gap-2">
            <Button
              size="lg"
              className="w-full"
              disabled={pending}
              onClick={() => {
                setError(undefined);
                withPasskey.mutate(undefined, { onSuccess: onSignedIn, onError: (err) => failed(err, 'The security key did not work.') });
              }}
            >
              <KeyRound size={18} aria-hidden="true" />
              {withPasskey.isPending ? 'Waiting for your key...' : 'Use your security key or passkey'}
            </Button>
            {(methods.includes('totp') || methods.includes('recovery')) && (
              <p className="text-center text-xs text-slate-400">or enter a code</p>
            )}
          </div>
        )}
        {(methods.includes('totp') || methods.includes('recovery')) && (
          <form noValidate onSubmit={submitCode} className="flex flex-col gap-4" aria-label="Enter a code">
            <FormField
              label={useRecovery ? 'Recovery code' : 'Code from your authenticator app'}
              name="code"
              value={code}
              onInput={(v) => {
                setCode(v);
                setError(undefined);
              }}
              autoComplete="one-time-code"
              inputMode={useRecovery ? 'text' : 'numeric'}
              maxLength={useRecovery ? 24 : 7}
              placeholder={useRecovery ? 'xxxx-xxxx-xxxx-xxxx' : undefined}
              hint={useRecovery ? 'Each recovery code works once.' : 'Open the app and type the 6 digits it shows for this site.'}
              error={error}
              disabled={pending}
              autoFocus={!canUsePasskey}
            />
            <Button type="submit" size="lg" variant={canUsePasskey ? 'outline' : 'default'} disabled={pending} className="w-full">
              {withCode.isPending ? 'Checking...' : 'Continue'}
            </Button>
          </form>
        )}
        {!canUsePasskey && methods.includes('passkey') && !methods.includes('totp') && (
          <p className="text-sm text-slate-300">This browser cannot use security keys. Use one of your recovery codes.</p>
        )}
        {error && canUsePasskey && !methods.includes('totp') && !methods.includes('recovery') && (
          <p className="text-sm text-red-400" role="alert">
            {error}
          </p>
        )}
        <div className="flex flex-col items-center gap-2 text-sm">
          {methods.includes('totp') && methods.includes('recovery') && (
            <button
              type="button"
              className="cursor-pointer text-violet-300 underline-offset-4 hover:text-violet-200 hover:underline"
              onClick={() => {
                setUseRecovery(!useRecovery);
                setCode('');
                setError(undefined);
              }}
            >
              {useRecovery ? 'Use the authenticator app instead' : 'Lost your phone? Use a recovery code'}
            </button>
          )}
          <button
            type="button"
            className="cursor-pointer text-slate-400 underline-offset-4 hover:text-slate-200 hover:underline"
            onClick={startOver}
          >
            Start over
          </button>
        </div>
      </div>
    </FormCard>
  );
}
