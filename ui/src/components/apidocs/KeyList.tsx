import type { ComponentChildren } from 'preact';
import { useState } from 'react';
import { KeySquare, List, RefreshCw } from 'lucide-react';
import { formatDateTime } from '../../lib/format';
import { keyPrefix, useApiKeys, useRevokeKey, type ApiKey } from '../../lib/apiKeys';
import { toast } from '../../lib/toast';
import { ConfirmDialog, SectionCard, SkeletonList, failToast } from '../admin/shared';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { StatePanel } from '../ui/StatePanel';

function Figure({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-400">{term}</dt>
      <dd className="mt-0.5 break-words text-sm text-slate-100">{children}</dd>
    </div>
  );
}

function KeyCard({ apiKey, onRevoke }: { apiKey: ApiKey; onRevoke: (key: ApiKey) => void }) {
  const prefix = keyPrefix(apiKey.key);
  return (
    <Card className="flex min-w-0 flex-col gap-3 p-4" data-key-prefix={prefix}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h3 className="break-words font-semibold text-white">{apiKey.name}</h3>
          <code className="font-mono text-sm text-emerald-300">
            {prefix}…
          </code>
        </div>
        <Button variant="outline" size="sm" onClick={() => onRevoke(apiKey)} aria-label={`Revoke ${apiKey.name} (${prefix})`}>
          Revoke
        </Button>
      </div>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
        <Figure term="Created">{formatDateTime(apiKey.created)}</Figure>
        <Figure term="Requests">
          <span data-testid="key-requests">{apiKey.requests.toLocaleString('en-US')}</span>
        </Figure>
        <Figure term="Last used">{formatDateTime(apiKey.lastUsed)}</Figure>
        <Figure term="Last IP">{apiKey.lastUsedFromIp ?? '-'}</Figure>
        <Figure term="Unique IPs">{apiKey.uniqueIps.toLocaleString('en-US')}</Figure>
      </dl>
    </Card>
  );
}

/** The caller's keys by 12-character prefix with their usage, each revocable after a confirmation. */
export function KeyList({ onRevoked }: { onRevoked: (prefix: string) => void }) {
  const keys = useApiKeys();
  const revoke = useRevokeKey();
  const [pending, setPending] = useState<ApiKey | null>(null);

  function confirmRevoke() {
    if (!pending) return;
    const prefix = keyPrefix(pending.key);
    revoke.mutate(prefix, {
      onSuccess: () => {
        setPending(null);
        onRevoked(prefix);
        toast({ title: 'API key revoked' });
      },
      onError: (err) => {
        setPending(null);
        failToast('Failed to revoke API key', err);
      },
    });
  }

  return (
    <SectionCard
      icon={List}
      title="Your API keys"
      description="Usage as the server counted it. Refresh after calling the API to see the new figures."
      actions={
        <Button variant="outline" size="sm" onClick={() => keys.refetch()} disabled={keys.isFetching}>
          <RefreshCw size={14} aria-hidden="true" className={keys.isFetching ? 'animate-spin' : undefined} />
          Refresh
        </Button>
      }
    >
      {keys.isLoading ? (
        <SkeletonList />
      ) : keys.isError ? (
        <StatePanel icon={KeySquare} tone="error" title="Error" text="Failed to load your API keys" />
      ) : !keys.data?.keys.length ? (
        <StatePanel icon={KeySquare} tone="empty" title="No keys yet" text="Keys you generate here are listed with their usage." />
      ) : (
        <ul className="grid gap-3" data-testid="key-list">
          {keys.data.keys.map((k) => (
            <li key={k.key}>
              <KeyCard apiKey={k} onRevoke={setPending} />
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={pending !== null}
        title="Revoke this API key?"
        description={
          pending
            ? `“${pending.name}” (${keyPrefix(pending.key)}…) stops working at once: calls with it get 401 Invalid API key. This cannot be undone.`
            : undefined
        }
        confirmLabel={revoke.isPending ? 'Revoking...' : 'Revoke'}
        destructive
        pending={revoke.isPending}
        onConfirm={confirmRevoke}
        onClose={() => setPending(null)}
      />
    </SectionCard>
  );
}
