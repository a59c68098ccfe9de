import { Check, Copy } from 'lucide-react';
import { curlCommand, type EndpointDoc } from '../../lib/apiDocs';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';

export interface CurlContext {
  origin: string;
  /** The key every keyed example sends. */
  apiKey: string;
  copy: (text: string, key: string) => void;
  copied: string | null;
}

/** A curl command as it runs, with a copy button; `data-curl` marks it for the end-to-end test that runs it. */
export function CurlBlock({ command, id, label, ctx }: { command: string; id: string; label: string; ctx: CurlContext }) {
  const isCopied = ctx.copied === id;
  return (
    <div className="flex items-start gap-2 rounded-lg border border-slate-800 bg-slate-950 py-1 pl-3 pr-1">
      <code data-curl={id} className="min-w-0 flex-1 whitespace-pre-wrap break-all py-2 font-mono text-sm text-violet-200">
        {command}
      </code>
      <button
        type="button"
        onClick={() => ctx.copy(command, id)}
        aria-label={isCopied ? `Copied: ${label}` : `Copy curl command: ${label}`}
        title="Copy"
        className="shrink-0 cursor-pointer rounded-md p-2 text-slate-300 hover:bg-slate-800 hover:text-white pointer-coarse:p-3"
      >
        {isCopied ? <Check className="h-4 w-4 text-emerald-400" aria-hidden="true" /> : <Copy className="h-4 w-4" aria-hidden="true" />}
      </button>
    </div>
  );
}

/** One card per endpoint: what it is, its parameters, what it answers, and a runnable example. */
export function EndpointList({ endpoints, ctx }: { endpoints: EndpointDoc[]; ctx: CurlContext }) {
  return (
    <ul className="grid grid-cols-1 gap-4">
      {endpoints.map((e) => (
        <li key={e.id}>
          <Card className="flex min-w-0 flex-col gap-3 p-4 sm:p-5" data-endpoint={e.id}>
            <div className="flex flex-wrap items-center gap-2">
              <h3 className="text-base font-semibold text-white">{e.title}</h3>
              <Badge variant={e.needsKey ? 'secondary' : 'success'}>{e.needsKey ? 'Key required' : 'No key'}</Badge>
            </div>
            <p className="break-words font-mono text-sm text-emerald-300">{e.signature}</p>
            <p className="text-sm text-slate-300">{e.description}</p>
            <div className="text-sm">
              <span className="font-medium text-slate-200">Answer: </span>
              <code className="break-words font-mono text-slate-300">{e.response}</code>
            </div>
            <CurlBlock
              id={e.id}
              label={e.title}
              command={curlCommand(ctx.origin, e.example, e.needsKey ? ctx.apiKey : null)}
              ctx={ctx}
            />
          </Card>
        </li>
      ))}
    </ul>
  );
}
