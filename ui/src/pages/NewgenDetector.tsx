import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Search, UserSearch } from 'lucide-react';
import { NewgenResult } from '../components/roblox/NewgenResult';
import { Button } from '../components/ui/Button';
import { UsernameField } from '../components/roblox/UsernameField';
import { errorSentence } from '../lib/api';
import { cleanUsername, fetchNewgenCheck, type NewgenCheck } from '../lib/roblox';
import { useSite } from '../lib/site';
import { toast } from '../lib/toast';

export default function NewgenDetector() {
  const { data: site, isLoading: siteLoading } = useSite();
  const [username, setUsername] = useState('');
  const publicKey = site?.publicApiKey ?? null;
  // The key travels with the call (not through the closure): the options of useMutation update after render.
  const check = useMutation<NewgenCheck, unknown, { username: string; key: string }>({
    mutationFn: (v) => fetchNewgenCheck(v.username, v.key),
    onSuccess: () => toast({ title: 'Analysis Complete' }),
    onError: (err) => toast({ title: 'Analysis Failed', description: errorSentence(err, 'Failed to analyze player'), variant: 'destructive' }),
  });

  function submit(e: Event) {
    e.preventDefault();
    const name = cleanUsername(username);
    if (!name || check.isPending || !publicKey) return;
    check.mutate({ username: name, key: publicKey });
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
          the generation and the early-player (ELC) badges with their award dates.
        </p>
      </header>

      <form onSubmit={submit} className="mb-3 flex flex-col gap-2 sm:flex-row sm:items-end" aria-describedby="newgen-key-note">
        <UsernameField id="newgen-username" value={username} onChange={setUsername} />
        <Button type="submit" disabled={check.isPending || empty || !publicKey} data-testid="analyze">
          <Search className="h-4 w-4" aria-hidden="true" />
          {check.isPending ? 'Analyzing Player...' : 'Analyze Player'}
        </Button>
      </form>
      <p id="newgen-key-note" className="mb-6 text-xs text-slate-400" data-testid="key-note">
        {publicKey
          ? "Checks use the site's public API key; its usage is shown with each result."
          : siteLoading
            ? 'Loading the site settings...'
            : 'This server has no public API key, so the detector cannot run here. Use the API with your own key (see API docs).'}
      </p>

      {check.isError && (
        <p className="mb-6 rounded-xl border border-red-500/40 bg-red-950/30 p-4 text-sm text-red-200" data-testid="newgen-error">
          <span className="font-semibold">Analysis Failed: </span>
          {errorSentence(check.error, 'Failed to analyze player')}
        </p>
      )}
      {check.data && !check.isError && <NewgenResult result={check.data} />}
    </div>
  );
}
