import { useEffect, useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useLocation, useSearch } from 'wouter';
import { Search, UserSearch } from 'lucide-react';
import { NewgenResult } from '../components/roblox/NewgenResult';
import { Button } from '../components/ui/Button';
import { UsernameField } from '../components/roblox/UsernameField';
import { errorSentence } from '../lib/api';
import { cleanUsername, elcTerms, detectorPath, fetchNewgenCheck, usernameProblem, type NewgenCheck } from '../lib/roblox';
import { useSite } from '../lib/site';
import { toast } from '../lib/toast';

/**
 * The address is the check: /newgen-detector?username=NAME runs it when opened (a shared link, Back, Forward), and a
 * check from the form replaces the address with its name (one history entry, however many names are tried).
 */
export default function NewgenDetector() {
  const { data: site, isLoading: siteLoading } = useSite();
  const search = useSearch();
  const [, navigate] = useLocation();
  const requested = new URLSearchParams(search).get('username');
  const [username, setUsername] = useState(requested ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const publicKey = site?.publicApiKey ?? null;
  // The key travels with the call (not through the closure): the options of useMutation update after render.
  const check = useMutation<NewgenCheck, unknown, { username: string; key: string }>({
    mutationFn: (v) => fetchNewgenCheck(v.username, v.key),
    onSuccess: () => toast({ title: 'Analysis Complete' }),
    onError: (err) => toast({ title: 'Analysis Failed', description: errorSentence(err, 'Failed to analyze player'), variant: 'destructive' }),
  });
  const { mutate, reset } = check;
  // A check is on its way: running, or about to run for the name of the address (before the effect below starts it).
  const awaiting =
    check.isPending || (check.isIdle && !!publicKey && requested !== null && usernameProblem(requested.trim()) === null);

  // The name of the address, checked once per name (and again when the address changes to another).
  const ran = useRef<string | null>(null);
  useEffect(() => {
    if (requested === null) {
      ran.current = null;
      return;
    }
    const name = requested.trim();
    if (ran.current === name) return;
    const why = usernameProblem(name);
    setUsername(name);
    setProblem(why);
    if (why) {
      ran.current = name;
      reset();
      return;
    }
    if (!publicKey) return;
    ran.current = name;
    mutate({ username: name, key: publicKey });
  }, [requested, publicKey, mutate, reset]);

  function submit(e: Event) {
    e.preventDefault();
    const name = cleanUsername(username);
    if (!name || check.isPending || !publicKey) return;
    const why = usernameProblem(name);
    setProblem(why);
    if (why) return;
    ran.current = name;
    if (name !== requested) navigate(detectorPath(name), { replace: true });
    mutate({ username: name, key: publicKey });
  }

  const empty = cleanUsername(username) === null;
  return (
    <div className="mx-auto w-full max-w-4xl px-4 py-8 sm:px-6 sm:py-10">
      <header className="mb-6">
        <h1 className="flex items-center gap-3 text-3xl font-extrabold tracking-tight text-white sm:text-4xl">
          <UserSearch className="h-8 w-8 shrink-0 text-violet-400" aria-hidden="true" />
          Newgen Detector
        </h1>
        <p className="mt-2 text-slate-300">
          Enter a Roblox username to learn from Roblox&apos;s own data whether the player is a veteran or a newgen: the join date,
          the generation and the {elcTerms(site?.classification).full} with their award dates.
        </p>
      </header>

      <form onSubmit={submit} className="mb-3 flex flex-col gap-2 sm:flex-row sm:items-end" aria-describedby="newgen-key-note" noValidate>
        <UsernameField
          id="newgen-username"
          value={username}
          onChange={(v) => {
            setUsername(v);
            if (problem) setProblem(null);
          }}
          errorId={problem ? 'newgen-username-problem' : undefined}
        />
        <Button type="submit" disabled={check.isPending || empty || !publicKey} data-testid="analyze">
          <Search className="h-4 w-4" aria-hidden="true" />
          {check.isPending ? 'Analyzing Player...' : 'Analyze Player'}
        </Button>
      </form>
      {problem && (
        <p id="newgen-username-problem" role="alert" className="mb-3 text-sm font-medium text-red-300" data-testid="username-problem">
          &ldquo;{username.trim()}&rdquo; is not a Roblox username. {problem}
        </p>
      )}
      <p id="newgen-key-note" className="mb-6 text-xs text-slate-400" data-testid="key-note">
        {publicKey
          ? "Checks use the site's public API key; its usage is shown with each result."
          : siteLoading
            ? 'Loading the site settings...'
            : 'This server has no public API key, so the detector cannot run here. Use the API with your own key (see API docs).'}
      </p>

      {check.isError && !problem && (
        <p className="mb-6 rounded-xl border border-red-500/40 bg-red-950/30 p-4 text-sm text-red-200" data-testid="newgen-error">
          <span className="font-semibold">Analysis Failed: </span>
          {errorSentence(check.error, 'Failed to analyze player')}
        </p>
      )}
      {awaiting && (
        // As tall as a screen, so the footer below is out of view before the result arrives: a shared link's
        // result replaces this without moving what the visitor sees (no layout shift).
        <div
          role="status"
          aria-busy="true"
          className="flex min-h-screen flex-col gap-4 rounded-2xl border border-slate-800 bg-slate-900/50 p-5 sm:p-6"
          data-testid="newgen-pending"
        >
          <p className="text-sm text-slate-300">Checking {cleanUsername(username) || requested} on Roblox...</p>
          <div aria-hidden="true" className="flex items-center gap-4">
            <div className="h-20 w-20 shrink-0 animate-pulse rounded-full bg-slate-800" />
            <div className="h-6 w-40 animate-pulse rounded bg-slate-800" />
          </div>
          <div aria-hidden="true" className="h-32 animate-pulse rounded-xl bg-slate-800" />
        </div>
      )}
      {check.data && !check.isError && !problem && <NewgenResult result={check.data} rules={site?.classification} />}
    </div>
  );
}
