import { useState } from 'react';
import { AlertTriangle, KeyRound, LifeBuoy, ShieldCheck, Smartphone, Trash2 } from 'lucide-react';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { FormField } from '../auth/FormField';
import { PasswordDialog } from './PasswordDialog';
import { RecoveryCodesPanel } from './RecoveryCodesPanel';
import { TotpSetupPanel } from './TotpSetupPanel';
import { errorSentence } from '../../lib/api';
import { formatDate } from '../../lib/format';
import {
  browserSupportsPasskeys,
  passkeyErrorText,
  useAddPasskey,
  useNewRecoveryCodes,
  useRemoveFactor,
  useSecondFactors,
  type RemoveRequest,
} from '../../lib/secondFactor';
import { toast } from '../../lib/toast';
import { LoadErrorCard, LoadingCard } from './CardStates';

type Removal = { label: string; request: { method: 'totp' } | { method: 'passkey'; passkeyId: number } } | null;

/** The account page's sign-in security: authenticator app, security keys, recovery codes. */
export function SecondFactorsCard({ siteName, username }: { siteName: string; username: string }) {
  const { data: status, isLoading, isError } = useSecondFactors();
  const [settingUpApp, setSettingUpApp] = useState(false);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [keyName, setKeyName] = useState('');
  const [keyError, setKeyError] = useState<string | undefined>();
  const [removal, setRemoval] = useState<Removal>(null);
  const [renewing, setRenewing] = useState(false);
  const addPasskey = useAddPasskey();
  const remove = useRemoveFactor();
  const renew = useNewRecoveryCodes();

  if (isLoading) {
    return <LoadingCard />;
  }
  if (isError || !status) {
    return <LoadErrorCard sentence="Your sign-in security could not be loaded." />;
  }

  function added(recoveryCodes: string[] | undefined, what: string, ended: number) {
    if (recoveryCodes) setCodes(recoveryCodes);
    const others = ended > 0 ? ` You were signed out on ${ended} other ${ended === 1 ? 'browser' : 'browsers'}.` : '';
    toast({ title: `${what} added`, description: `Signing in now needs it.${others}` });
  }

  function addKey(e: Event) {
    e.preventDefault();
    const name = keyName.trim();
    if (!name) {
      setKeyError('Give it a name, like "Laptop" or "Blue key"');
      return;
    }
    setKeyError(undefined);
    addPasskey.mutate(name, {
      onSuccess: (result) => {
        setKeyName('');
        added(result.recoveryCodes, 'Security key', result.otherSessionsEnded);
      },
      onError: (err) => setKeyError(passkeyErrorText(err) ?? errorSentence(err, 'The security key was not added.')),
    });
  }

  const passkeysUsable = status.passkeysSupported && browserSupportsPasskeys();

  return (
    <Card className="p-4 sm:p-6" data-testid="second-factors">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="flex items-center gap-2 text-lg font-semibold text-white">
          <ShieldCheck size={20} aria-hidden="true" className="text-violet-300" /> Sign-in security
        </h2>
        {status.enabled ? (
          <Badge variant="success">Second factor on</Badge>
        ) : (
          <Badge variant="secondary">Password only</Badge>
        )}
      </div>
      <p className="mt-1 text-sm text-slate-400">
        A second factor keeps your admin powers safe even if someone learns your password: signing in also needs your
        phone or security key.
      </p>

      {status.required && !status.enabled && (
        <div role="alert" className="mt-4 flex gap-3 rounded-lg border border-amber-500/40 bg-amber-500/10 p-3 text-sm text-amber-100">
          <AlertTriangle size={18} aria-hidden="true" className="mt-0.5 shrink-0 text-amber-300" />
          <p>This site requires a second factor for admin accounts. Add one below to open the admin panel.</p>
        </div>
      )}

      {codes && (
        <div className="mt-4">
          <RecoveryCodesPanel codes={codes} siteName={siteName} username={username} onDone={() => setCodes(null)} />
        </div>
      )}

      <div className="mt-5 flex flex-col divide-y divide-slate-800 rounded-lg border border-slate-800">
        {/* Authenticator app */}
        <section aria-labelledby="factor-app" className="p-3 sm:p-4">
          <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
            <div className="flex min-w-0 gap-3 sm:flex-1">
              <Smartphone size={20} aria-hidden="true" className="mt-0.5 shrink-0 text-slate-300" />
              <div className="min-w-0">
                <h3 id="factor-app" className="font-medium text-slate-100">
                  Authenticator app
                </h3>
                <p className="text-sm text-slate-400">
                  {status.totp
                    ? `On since ${formatDate(status.totp.addedAt)}.`
                    : 'Codes from an app like Google Authenticator, Microsoft Authenticator or 2FAS.'}
                </p>
              </div>
            </div>
            {status.totp ? (
              <Button variant="outline" size="sm" onClick={() => setRemoval({ label: 'the authenticator app', request: { method: 'totp' } })}>
                <Trash2 size={14} aria-hidden="true" /> Remove
              </Button>
            ) : (
              !settingUpApp && (
                <Button size="sm" onClick={() => setSettingUpApp(true)}>
                  Set up
                </Button>
              )
            )}
          </div>
          {settingUpApp && !status.totp && (
            <TotpSetupPanel
              onCancel={() => setSettingUpApp(false)}
              onAdded={(result) => {
                setSettingUpApp(false);
                added(result.recoveryCodes, 'Authenticator app', result.otherSessionsEnded);
              }}
            />
          )}
        </section>

        {/* Security keys and passkeys */}
        <section aria-labelledby="factor-keys" className="p-3 sm:p-4">
          <div className="flex gap-3">
            <KeyRound size={20} aria-hidden="true" className="mt-0.5 shrink-0 text-slate-300" />
            <div className="min-w-0 flex-1">
              <h3 id="factor-keys" className="font-medium text-slate-100">
                Security keys and passkeys
              </h3>
              <p className="text-sm text-slate-400">A USB or NFC key, or your phone or computer's screen lock.</p>
              {status.passkeys.length > 0 && (
                <ul className="mt-3 flex flex-col gap-2" aria-label="Your security keys">
                  {status.passkeys.map((key) => (
                    <li
                      key={key.id}
                      className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-800 bg-slate-950/50 px-3 py-2"
                    >
                      <div className="min-w-0">
                        <p className="truncate text-sm font-medium text-slate-100">{key.name}</p>
                        <p className="text-xs text-slate-400">
                          Added {formatDate(key.addedAt)} · {key.lastUsed ? `last used ${formatDate(key.lastUsed)}` : 'not used yet'}
                        </p>
                      </div>
                      <Button
                        variant="outline"
                        size="sm"
                        aria-label={`Remove ${key.name}`}
                        onClick={() => setRemoval({ label: `"${key.name}"`, request: { method: 'passkey', passkeyId: key.id } })}
                      >
                        <Trash2 size={14} aria-hidden="true" /> Remove
                      </Button>
                    </li>
                  ))}
                </ul>
              )}
              {passkeysUsable ? (
                <form noValidate onSubmit={addKey} className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-start" aria-label="Add a security key">
                  <FormField
                    label="Name for a new key"
                    name="key-name"
                    value={keyName}
                    onInput={(v) => {
                      setKeyName(v);
                      setKeyError(undefined);
                    }}
                    placeholder="Laptop, Blue key..."
                    maxLength={64}
                    error={keyError}
                    disabled={addPasskey.isPending}
                    className="flex-1"
                  />
                  <Button type="submit" size="md" disabled={addPasskey.isPending} className="sm:mt-7">
                    {addPasskey.isPending ? 'Waiting for your key...' : 'Add a key'}
                  </Button>
                </form>
              ) : (
                <p className="mt-3 text-sm text-slate-300" data-testid="passkeys-unavailable">
                  {status.passkeysSupported
                    ? 'This browser cannot use security keys. Try another browser, or use an authenticator app.'
                    : 'Security keys work only when the site is opened by its name (like localhost or its https address), not by an IP address.'}
                </p>
              )}
            </div>
          </div>
        </section>

        {/* Recovery codes */}
        <section aria-labelledby="factor-recovery" className="p-3 sm:p-4">
          <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
            <div className="flex min-w-0 gap-3 sm:flex-1">
              <LifeBuoy size={20} aria-hidden="true" className="mt-0.5 shrink-0 text-slate-300" />
              <div className="min-w-0">
                <h3 id="factor-recovery" className="font-medium text-slate-100">
                  Recovery codes
                </h3>
                <p className="text-sm text-slate-400" data-testid="recovery-codes-left">
                  {status.enabled
                    ? `${status.recoveryCodesLeft} of 10 left. Each one signs you in once if you lose your phone or key.`
                    : 'You get ten with your first second factor.'}
                </p>
              </div>
            </div>
            {status.enabled && (
              <Button variant="outline" size="sm" onClick={() => setRenewing(true)}>
                Make new codes
              </Button>
            )}
          </div>
        </section>
      </div>

      <PasswordDialog
        open={removal !== null}
        title={`Remove ${removal?.label ?? ''}?`}
        description={
          status.passkeys.length + (status.totp ? 1 : 0) <= 1
            ? 'It is your only second factor: signing in will need your password alone, and your recovery codes stop working.'
            : 'Signing in will no longer accept it.'
        }
        confirmLabel="Remove"
        destructive
        pending={remove.isPending}
        onConfirm={(password) =>
          remove.mutateAsync({ ...removal!.request, password } as RemoveRequest).then(() => {
            toast({ title: 'Removed', description: `${removal!.label.replace(/^"|"$/g, '')} no longer signs you in.` });
          })
        }
        onClose={() => setRemoval(null)}
      />
      <PasswordDialog
        open={renewing}
        title="Make new recovery codes?"
        description="Your old codes stop working at once."
        confirmLabel="Make new codes"
        pending={renew.isPending}
        onConfirm={(password) => renew.mutateAsync(password).then((result) => setCodes(result.recoveryCodes))}
        onClose={() => setRenewing(false)}
      />
    </Card>
  );
}
