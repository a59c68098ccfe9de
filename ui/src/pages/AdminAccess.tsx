import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { KeyRound, ShieldCheck, Terminal } from 'lucide-react';
import { FormField } from '../components/auth/FormField';
import { KeyDisplay } from '../components/admin/KeyDisplay';
import { installConsoleHelper } from '../components/admin/consoleHelper';
import { Button } from '../components/ui/Button';
import { CenteredPage, FormCard } from '../components/ui/FormCard';
import { cn } from '../components/ui/cn';
import { ApiError, apiRequest, errorSentence } from '../lib/api';

type Step = 1 | 2 | 3;
const STEPS: { n: Step; label: string }[] = [
  { n: 1, label: 'Secret Phrase' },
  { n: 2, label: 'Verification Challenge' },
  { n: 3, label: 'Admin Key Created' },
];

/** /admin-access: secret phrase -> single-use challenge -> lifetime admin key bound to this IP. */
export default function AdminAccess() {
  const [, navigate] = useLocation();
  const [step, setStep] = useState<Step>(1);
  const [phrase, setPhrase] = useState('');
  const [challenge, setChallenge] = useState('');
  const [ip, setIp] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [pending, setPending] = useState(false);

  useEffect(() => installConsoleHelper(), []);

  async function generateChallenge(e: Event) {
    e.preventDefault();
    if (!phrase || pending) return;
    setPending(true);
    setError('');
    try {
      const res = await apiRequest<{ success: boolean; challenge: string; ip?: string; error?: string }>(
        'POST',
        '/api/admin/generate-challenge',
        { phrase },
      );
      if (!res?.success || !res.challenge) {
        setError(res?.error || 'Invalid secret phrase');
        return;
      }
      setChallenge(res.challenge);
      setIp(res.ip ?? '');
      setStep(2);
    } catch (err) {
      setError(err instanceof ApiError ? errorSentence(err, 'Invalid secret phrase') : 'Failed to generate challenge. Try again.');
    } finally {
      setPending(false);
    }
  }

  async function createKey() {
    if (pending) return;
    setPending(true);
    setError('');
    try {
      const res = await apiRequest<{ success: boolean; key: string; ip?: string; error?: string }>(
        'POST',
        '/api/admin/create-lifetime-key',
        { phrase, challenge },
      );
      if (!res?.success || !res.key) {
        setError(res?.error || 'Failed to create admin key');
        return;
      }
      setKey(res.key);
      if (res.ip) setIp(res.ip);
      setPhrase('');
      setStep(3);
    } catch (err) {
      setError(err instanceof ApiError ? errorSentence(err, 'Failed to create admin key') : 'Failed to create admin key. Try again.');
    } finally {
      setPending(false);
    }
  }

  return (
    <CenteredPage>
      <FormCard icon={KeyRound} title="Admin Key Creation" wide>

        <ol className="mb-6 grid grid-cols-3 gap-2 text-center text-xs" aria-label="Steps">
          {STEPS.map((s) => (
            <li
              key={s.n}
              aria-current={s.n === step ? 'step' : undefined}
              className={cn(
                'rounded-lg border px-2 py-2',
                s.n === step
                  ? 'border-violet-500 bg-violet-600/20 text-white'
                  : s.n < step
                    ? 'border-emerald-500/40 text-emerald-300'
                    : 'border-slate-800 text-slate-400',
              )}
            >
              <span className="block font-bold">{s.n}</span>
              {s.label}
            </li>
          ))}
        </ol>

        {step === 1 && (
          <form noValidate onSubmit={generateChallenge} className="flex flex-col gap-4">
            <h2 className="text-lg font-semibold text-white">Secret Phrase</h2>
            <FormField
              label="Secret Phrase"
              name="phrase"
              type="password"
              value={phrase}
              onInput={setPhrase}
              autoComplete="off"
              autoFocus
              disabled={pending}
              hint="The secret phrase is set by this site's operator (FANHUB_ADMIN_PHRASE on the server). Ask them for it."
            />
            <Button type="submit" size="lg" disabled={!phrase || pending} className="w-full">
              {pending ? 'Verifying...' : 'Generate Challenge'}
            </Button>
          </form>
        )}

        {step === 2 && (
          <div className="flex flex-col gap-4">
            <h2 className="text-lg font-semibold text-white">Verification Challenge</h2>
            <code data-testid="challenge" className="block break-all rounded-lg border border-slate-700 bg-slate-950 p-3 font-mono text-sm text-violet-200">
              {challenge}
            </code>
            <p className="text-sm text-slate-300">
              Your IP address{ip && <span className="font-mono text-white"> {ip}</span>} has been registered. The key you create
              will only work from this address. The challenge is valid for a few minutes and can be used once.
            </p>
            <Button size="lg" onClick={createKey} disabled={pending} className="w-full">
              {pending ? 'Creating Key...' : 'Create Lifetime Key'}
            </Button>
          </div>
        )}

        {step === 3 && (
          <div className="flex flex-col gap-4">
            <h2 className="inline-flex items-center gap-2 text-lg font-semibold text-white">
              <ShieldCheck size={20} aria-hidden="true" className="text-emerald-400" /> Admin Key Created
            </h2>
            <KeyDisplay value={key} label="Your lifetime admin key (shown only once)" />
            <p className="text-sm text-slate-300">
              This key is tied to your IP address{ip && <span className="font-mono text-white"> {ip}</span>}. Store it somewhere safe.
            </p>
            <Button size="lg" className="w-full" onClick={() => navigate(`/admin?key=${encodeURIComponent(key)}`)}>
              Access Admin Panel
            </Button>
          </div>
        )}

        {error && (
          <p role="alert" className="mt-4 rounded-lg border border-red-500/40 bg-red-500/10 p-3 text-sm text-red-300">
            {error}
          </p>
        )}
      </FormCard>

      <p className="flex max-w-lg items-start gap-2 text-xs text-slate-400">
        <Terminal size={14} aria-hidden="true" className="mt-0.5 shrink-0" />
        <span>
          Admins: on this page the browser console has a helper. Run{' '}
          <code className="font-mono text-slate-400">fanhubAdmin.verify("your-key")</code> to check a key and open an admin session.
        </span>
      </p>
    </CenteredPage>
  );
}
