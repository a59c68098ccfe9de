import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { UserSearch } from 'lucide-react';
import { errorSentence } from '../../lib/api';
import { cleanUsername, fetchNewgenCheck, newgenPath, type NewgenCheck } from '../../lib/roblox';
import { SectionCard } from '../admin/shared';
import { Button } from '../ui/Button';
import { Input, Label } from '../ui/Input';

/** Both username and key are required. Returns the message to show, or null. */
export function newgenTestError(username: string, key: string): string | null {
  return cleanUsername(username) && key.trim() ? null : 'Please enter both username and API key';
}

/**
 * Testing tab: GET /api/newgen-check/{username} with a key (prefilled with the current key until edited); shows the
 * JSON the server answered, the call counted against that key.
 */
export function NewgenTest({ currentKey }: { currentKey: string }) {
  const [username, setUsername] = useState('');
  const [edited, setEdited] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const key = edited ?? currentKey;
  const check = useMutation<NewgenCheck, unknown, { username: string; key: string }>({
    mutationFn: (v) => fetchNewgenCheck(v.username, v.key),
  });

  function submit(e: Event) {
    e.preventDefault();
    const invalid = newgenTestError(username, key);
    setProblem(invalid);
    if (invalid) {
      check.reset();
      return;
    }
    check.mutate({ username: cleanUsername(username) as string, key: key.trim() });
  }

  const error = problem ?? (check.isError ? errorSentence(check.error, 'Failed to check player') : null);
  return (
    <SectionCard
      icon={UserSearch}
      title="Newgen check"
      description={`Calls GET ${newgenPath('{username}')} with the key below in the X-API-Key header; the call counts against that key.`}
    >
      <form onSubmit={submit} className="grid gap-2 sm:grid-cols-[1fr_1fr_auto] sm:items-end" noValidate>
        <div className="flex min-w-0 flex-col gap-1.5">
          <Label htmlFor="newgen-test-username">Roblox username</Label>
          <Input
            id="newgen-test-username"
            value={username}
            autoComplete="off"
            spellcheck={false}
            maxLength={64}
            aria-describedby={error ? 'newgen-test-error' : undefined}
            onInput={(e) => {
              setUsername((e.currentTarget as HTMLInputElement).value);
              setProblem(null);
            }}
          />
        </div>
        <div className="flex min-w-0 flex-col gap-1.5">
          <Label htmlFor="newgen-test-key">Key (X-API-Key)</Label>
          <Input
            id="newgen-test-key"
            value={key}
            autoComplete="off"
            spellcheck={false}
            className="font-mono"
            aria-describedby={error ? 'newgen-test-error' : undefined}
            onInput={(e) => {
              setEdited((e.currentTarget as HTMLInputElement).value);
              setProblem(null);
            }}
          />
        </div>
        <Button type="submit" disabled={check.isPending}>
          {check.isPending ? 'Checking...' : 'Check player'}
        </Button>
      </form>

      {error && (
        <p id="newgen-test-error" role="alert" className="mt-3 rounded-lg border border-red-500/40 bg-red-950/40 p-3 text-sm text-red-200">
          {error}
        </p>
      )}
      {!problem && check.data && (
        <div className="mt-4" data-testid="newgen-test-result">
          <p className="mb-2 text-sm text-slate-200">
            <strong className="text-white">{check.data.username}</strong>: {check.data.classification} ({check.data.generationLabel || check.data.generation}). Key “
            {check.data.apiKey.name}” has made {check.data.apiKey.requests.toLocaleString('en-US')} requests.
          </p>
          <pre className="max-h-80 overflow-auto rounded-lg border border-slate-800 bg-slate-950 p-3 text-xs text-slate-200" tabIndex={0} aria-label="Response JSON">
            {JSON.stringify(check.data, null, 2)}
          </pre>
        </div>
      )}
    </SectionCard>
  );
}
