import { Fragment, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Bot, Search, Zap } from 'lucide-react';
import { BotAnalysisResult, BotErrorResult, BotQuickCheckResult } from '../components/roblox/BotResults';
import { Button } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
import { UsernameField } from '../components/roblox/UsernameField';
import { callBot, cleanUsername, type BotAnalysis, type BotCall, type BotError, type BotQuickCheck } from '../lib/roblox';

const ENDPOINTS = [
  { path: '/api/discord-bot/analyze/{username}', text: "Full analysis: profile, classification with its confidence and reason, the ELC badges." },
  { path: '/api/discord-bot/check/{username}', text: 'Quick check: status, badge counts, account age and the earliest badge.' },
  { path: '/api/discord-bot/test', text: "The bot API's own status." },
];

/** What the page shows: one result at a time (showing one clears the other). */
type Shown =
  | { kind: 'analyze'; data: BotAnalysis }
  | { kind: 'check'; data: BotQuickCheck }
  | { kind: 'error'; call: BotCall; error: BotError };

async function run(call: BotCall, username: string): Promise<Shown> {
  if (call === 'analyze') {
    const r = await callBot<BotAnalysis>('analyze', username);
    return r.ok ? { kind: 'analyze', data: r.data } : { kind: 'error', call, error: r.error };
  }
  const r = await callBot<BotQuickCheck>('check', username);
  return r.ok ? { kind: 'check', data: r.data } : { kind: 'error', call, error: r.error };
}

export default function DiscordBotApi() {
  const [username, setUsername] = useState('');
  const lookup = useMutation<Shown, unknown, { call: BotCall; username: string }>({
    mutationFn: ({ call, username: name }) => run(call, name),
  });
  const busy = lookup.isPending ? lookup.variables?.call : null;

  function start(call: BotCall) {
    const name = cleanUsername(username);
    if (!name || lookup.isPending) return;
    lookup.mutate({ call, username: name });
  }

  const shown = lookup.isPending ? null : lookup.data;
  return (
    <div className="mx-auto w-full max-w-4xl px-4 py-8 sm:px-6 sm:py-10">
      <header className="mb-6">
        <h1 className="flex items-center gap-3 text-3xl font-extrabold tracking-tight text-white sm:text-4xl">
          <Bot className="h-8 w-8 shrink-0 text-violet-400" aria-hidden="true" />
          Bot API Test
        </h1>
        <p className="mt-2 text-slate-300">
          Try the calls the chat bot makes: a full analysis of a Roblox player or a quick check, straight from this server.
        </p>
      </header>

      <Card className="mb-6 p-5">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            start('analyze');
          }}
          className="flex flex-col gap-2 sm:flex-row sm:items-end"
        >
          <UsernameField id="bot-username" value={username} onChange={setUsername} />
          <div className="flex gap-2">
            <Button type="submit" disabled={lookup.isPending} data-testid="bot-analyze" className="flex-1 sm:flex-none">
              <Search className="h-4 w-4" aria-hidden="true" />
              {busy === 'analyze' ? 'Analyzing...' : 'Analyze'}
            </Button>
            <Button type="button" variant="outline" disabled={lookup.isPending} onClick={() => start('check')} data-testid="bot-check" className="flex-1 sm:flex-none">
              <Zap className="h-4 w-4" aria-hidden="true" />
              {busy === 'check' ? 'Checking...' : 'Quick Check'}
            </Button>
          </div>
        </form>
      </Card>

      <div aria-live="polite" className="mb-8">
        {shown?.kind === 'analyze' && <BotAnalysisResult result={shown.data} />}
        {shown?.kind === 'check' && <BotQuickCheckResult result={shown.data} />}
        {shown?.kind === 'error' && <BotErrorResult error={shown.error} />}
      </div>

      <section aria-labelledby="bot-endpoints-heading">
        <h2 id="bot-endpoints-heading" className="mb-3 text-xl font-semibold text-white">Endpoints</h2>
        <ul className="grid gap-3" data-testid="bot-endpoints">
          {ENDPOINTS.map((ep) => (
            <li key={ep.path} className="rounded-xl border border-slate-800 bg-slate-900 p-4">
              <code className="break-words font-mono text-sm text-emerald-300">
                <span className="mr-2 rounded bg-emerald-600/20 px-1.5 py-0.5 text-xs font-bold text-emerald-300">GET</span>
                {/* A long path wraps after a slash, never inside a word. */}
                {ep.path.split('/').map((part, i) => (
                  <Fragment key={i}>
                    {i > 0 && (
                      <>
                        /<wbr />
                      </>
                    )}
                    {part}
                  </Fragment>
                ))}
              </code>
              <p className="mt-1 text-sm text-slate-300">{ep.text}</p>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
