import type { ComponentChildren } from 'preact';
import { API_KEY_HEADER, API_LIMITS, apiBaseUrl, curlCommand } from '../../lib/apiDocs';
import { SectionCard } from '../admin/shared';
import { CurlBlock, type CurlContext } from './EndpointList';

function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div className="grid gap-1 sm:grid-cols-[10rem_1fr] sm:gap-4">
      <dt className="text-sm font-medium text-slate-300">{term}</dt>
      <dd className="min-w-0 text-sm text-slate-200">{children}</dd>
    </div>
  );
}

/** Getting Started: the base URL, the auth header, the limits and what the rate-limit headers mean. */
export function ApiBasics({ ctx }: { ctx: CurlContext }) {
  const n = (v: number) => v.toLocaleString('en-US');
  return (
    <SectionCard title="Using the API" description="Everything answers JSON. Errors answer {error, message?, fields?} with a 4xx or 5xx status.">
      <dl className="grid gap-4">
        <Fact term="Base URL">
          <code data-testid="base-url" className="break-all font-mono text-emerald-300">
            {apiBaseUrl(ctx.origin)}
          </code>
        </Fact>
        <Fact term="Authentication">
          Send your key in the <code className="font-mono text-emerald-300">{API_KEY_HEADER}</code> header. Without it the
          answer is 401 “An API key is required”; an unknown or revoked key gets 401 “Invalid API key”. Only /health needs
          no key.
        </Fact>
        <Fact term="Rate limits">
          <ul className="grid gap-1" data-testid="rate-limits">
            <li>{n(API_LIMITS.perMinute)} requests per minute</li>
            <li>{n(API_LIMITS.perHour)} requests per hour</li>
            <li>{n(API_LIMITS.perDay)} requests per day</li>
          </ul>
          <p className="mt-2 text-slate-300">
            Per key, in fixed UTC windows. The site&apos;s public key is shared, so its limits count per client IP.
          </p>
        </Fact>
        <Fact term="Limit headers">
          Every keyed answer carries <code className="font-mono text-emerald-300">X-RateLimit-Limit</code> (how many calls
          the tightest window allows), <code className="font-mono text-emerald-300">X-RateLimit-Remaining</code> (calls left in it)
          and <code className="font-mono text-emerald-300">X-RateLimit-Reset</code> (the Unix time in seconds when it
          starts over). Past a limit the answer is <strong className="text-white">429</strong> with{' '}
          <code className="font-mono text-emerald-300">Retry-After</code>: the seconds to wait before calling again.
        </Fact>
        <Fact term="First call">
          <CurlBlock id="first-call" label="Site statistics" command={curlCommand(ctx.origin, '/stats', ctx.apiKey)} ctx={ctx} />
        </Fact>
        <Fact term="OpenAPI">
          The machine-readable description of every endpoint:{' '}
          <a href="/api/openapi.json" className="font-mono text-violet-300 underline hover:text-violet-200">
            /api/openapi.json
          </a>
        </Fact>
      </dl>
    </SectionCard>
  );
}
