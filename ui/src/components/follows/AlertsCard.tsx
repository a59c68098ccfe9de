import { useId, useRef, useState } from 'react';
import { AlertTriangle, Bell, Trash2 } from 'lucide-react';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Checkbox } from '../ui/Switch';
import { FormField } from '../auth/FormField';
import { errorSentence } from '../../lib/api';
import { formatDateTime } from '../../lib/format';
import {
  alertFieldErrors,
  errorWithDetail,
  kindLabel,
  momentText,
  orderedKinds,
  toggleKind,
  useAlerts,
  useChooseAlerts,
  useRemoveAlerts,
  useSaveAlerts,
  type AlertWebhook,
} from '../../lib/follows';
import { toast } from '../../lib/toast';
import { LoadErrorCard, LoadingCard } from '../account/CardStates';

/** The three kinds a fan may hear about, as checkboxes; `error` (the server's `fields.kinds`) under them. */
function KindChoices({
  offered,
  chosen,
  onChange,
  disabled,
  error,
}: {
  offered: string[];
  chosen: string[];
  onChange: (kind: string, on: boolean) => void;
  disabled?: boolean;
  error?: string;
}) {
  const id = useId();
  return (
    <fieldset className="min-w-0" aria-describedby={error ? `${id}-error` : undefined} data-testid="alert-kinds">
      <legend className="text-sm font-medium text-slate-200">Tell me about</legend>
      <div className="mt-1 flex flex-col gap-x-5 sm:flex-row sm:flex-wrap">
        {offered.map((kind) => (
          <label key={kind} className="inline-flex min-h-10 cursor-pointer items-center gap-2 text-sm text-slate-200">
            <Checkbox checked={chosen.includes(kind)} onCheckedChange={(on) => onChange(kind, on)} disabled={disabled} name={`kind-${kind}`} />
            {kindLabel(kind)}
          </label>
        ))}
      </div>
      {error && (
        <p id={`${id}-error`} className="text-sm text-red-400" data-testid="kinds-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** Where the URL is in Discord, step by step. */
function HowTo() {
  return (
    <div className="rounded-lg border border-slate-800 bg-slate-950/40 p-3 text-sm text-slate-300" data-testid="webhook-how-to">
      <p className="font-medium text-slate-100">Where to find the URL in Discord</p>
      <ol className="mt-1 list-decimal space-y-1 pl-5">
        <li>Open your channel&apos;s settings: Edit Channel (the gear next to its name).</li>
        <li>Go to Integrations, then Webhooks (New Webhook if it has none).</li>
        <li>Press Copy Webhook URL and paste it here.</li>
      </ol>
      <p className="mt-1 text-xs text-slate-400">You need the Manage Webhooks permission on that server.</p>
    </div>
  );
}

/** The URL form: a new webhook (with its kinds) or another URL for the one saved (its kinds kept). */
function WebhookForm({
  offered,
  savedKinds,
  onDone,
  onCancel,
}: {
  offered: string[];
  /** The saved webhook's kinds: the form then asks for the URL only. */
  savedKinds?: string[];
  onDone?: () => void;
  onCancel?: () => void;
}) {
  const [url, setUrl] = useState('');
  const [kinds, setKinds] = useState<string[]>(savedKinds ?? offered);
  const [errors, setErrors] = useState<{ url?: string; kinds?: string }>({});
  const [failure, setFailure] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const save = useSaveAlerts();
  const noteId = useId();

  function submit(e: Event) {
    e.preventDefault();
    setErrors({});
    setFailure(null);
    // mutateAsync, not mutate's callbacks: once saved this form is gone (the saved webhook replaces it), and
    // TanStack Query does not call the callbacks of a component that is gone.
    save.mutateAsync({ url: url.trim(), kinds: orderedKinds(savedKinds ?? kinds, offered) }).then(
      () => {
        setUrl('');
        toast({ title: 'Discord alerts are on', description: 'The test message is in your channel.' });
        onDone?.();
      },
      (err: unknown) => {
        const fields = alertFieldErrors(err);
        if (fields.url || fields.kinds) {
          setErrors(fields);
          // The field that was refused gets the focus: its message is read with it.
          const field = fields.url ? 'input[name="webhook-url"]' : 'input[type="checkbox"]';
          requestAnimationFrame(() => form.current?.querySelector<HTMLElement>(field)?.focus());
        } else {
          setFailure(errorWithDetail(err, 'The webhook was not saved. Try again in a minute.'));
        }
      },
    );
  }

  return (
    <form ref={form} noValidate onSubmit={submit} className="flex flex-col gap-4" aria-label="Discord webhook" aria-describedby={noteId} data-testid="webhook-form">
      <HowTo />
      <FormField
        label="Webhook URL"
        name="webhook-url"
        value={url}
        onInput={(v) => {
          setUrl(v);
          if (errors.url) setErrors((x) => ({ ...x, url: undefined }));
        }}
        placeholder="https://discord.com/api/webhooks/..."
        autoComplete="off"
        maxLength={256}
        error={errors.url}
        disabled={save.isPending}
      />
      {!savedKinds && (
        <KindChoices
          offered={offered}
          chosen={kinds}
          disabled={save.isPending}
          error={errors.kinds}
          onChange={(kind, on) => {
            setKinds((k) => toggleKind(k, kind, on, offered));
            if (errors.kinds) setErrors((x) => ({ ...x, kinds: undefined }));
          }}
        />
      )}
      <p id={noteId} className="text-sm text-slate-400">
        Saving sends a test message to that channel: when it arrives, the alerts are on.
      </p>
      {failure && (
        <p role="alert" className="rounded-lg border border-red-500/40 bg-red-950/30 p-3 text-sm text-red-200" data-testid="alerts-failure">
          {failure}
        </p>
      )}
      <div className="flex flex-col gap-2 sm:flex-row">
        <Button type="submit" disabled={save.isPending}>
          <Bell className="h-4 w-4" aria-hidden="true" />
          {save.isPending ? 'Sending a test message...' : 'Save and send a test message'}
        </Button>
        {onCancel && (
          <Button variant="outline" onClick={onCancel} disabled={save.isPending}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  );
}

/** A saved webhook: its masked URL, whether it works, what it hears about, and the way to remove it. */
function SavedWebhook({
  webhook,
  offered,
  onReplace,
  onRemoved,
}: {
  webhook: AlertWebhook;
  offered: string[];
  onReplace?: () => void;
  onRemoved?: () => void;
}) {
  const choose = useChooseAlerts();
  const remove = useRemoveAlerts();
  const [kindsError, setKindsError] = useState<string | undefined>();
  const chosen = choose.isPending && choose.variables ? choose.variables : webhook.kinds;

  return (
    <div className="flex flex-col gap-4" data-testid="saved-webhook">
      {webhook.broken && (
        <div role="alert" className="flex gap-3 rounded-lg border border-red-500/40 bg-red-950/30 p-3 text-sm text-red-200" data-testid="webhook-broken">
          <AlertTriangle size={18} aria-hidden="true" className="mt-0.5 shrink-0 text-red-300" />
          <div className="min-w-0">
            <p className="font-semibold text-red-200">Broken: Discord has refused this webhook{webhook.brokenSince ? ` since ${formatDateTime(webhook.brokenSince)}` : ''}.</p>
            <p className="mt-1">
              It was deleted in Discord or its URL changed, so no alert is sent. Paste a new webhook URL below and save it to turn the
              alerts back on.
            </p>
          </div>
        </div>
      )}
      <dl className="grid grid-cols-2 gap-3 text-sm">
        <div className="col-span-2 min-w-0">
          <dt className="text-xs text-slate-400">Webhook</dt>
          <dd className="break-all font-mono text-xs text-slate-200" data-testid="webhook-url">
            {webhook.url}
          </dd>
        </div>
        <div className="min-w-0">
          <dt className="text-xs text-slate-400">Last delivered</dt>
          <dd className="text-slate-200" data-testid="webhook-last-delivered">
            {momentText(webhook.lastDeliveredAt, 'Nothing yet')}
          </dd>
        </div>
        <div className="min-w-0">
          <dt className="text-xs text-slate-400">Waiting to send</dt>
          <dd className="text-slate-200" data-testid="webhook-pending">
            {webhook.pending === 0 ? 'Nothing' : `${webhook.pending.toLocaleString('en-US')} ${webhook.pending === 1 ? 'alert' : 'alerts'}`}
          </dd>
        </div>
      </dl>
      <KindChoices
        offered={offered}
        chosen={chosen}
        disabled={choose.isPending || remove.isPending}
        error={kindsError}
        onChange={(kind, on) => {
          setKindsError(undefined);
          choose.mutate(toggleKind(chosen, kind, on, offered), {
            onError: (err) => setKindsError(alertFieldErrors(err).kinds ?? errorSentence(err, 'Your choice was not saved. Try again.')),
          });
        }}
      />
      <div className="flex flex-col gap-2 sm:flex-row">
        {onReplace && (
          <Button variant="outline" onClick={onReplace} disabled={remove.isPending}>
            Use another webhook URL
          </Button>
        )}
        <Button
          variant="outline"
          disabled={remove.isPending}
          onClick={() =>
            // Once removed this part is gone: mutateAsync's promise still settles (mutate's callbacks would not run).
            remove.mutateAsync().then(
              () => {
                toast({ title: 'Discord alerts removed', description: 'Nothing more is sent to that channel.' });
                onRemoved?.();
              },
              (err: unknown) => toast({ title: 'Not removed', description: errorSentence(err, 'Try again in a moment.'), variant: 'destructive' }),
            )
          }
        >
          <Trash2 className="h-4 w-4" aria-hidden="true" /> Remove
        </Button>
      </div>
    </div>
  );
}

/** The account page's Discord alerts: a channel's webhook that hears about the followed players' changes. */
export function AlertsCard() {
  const { data, isLoading, isError, error } = useAlerts();
  const [replacing, setReplacing] = useState(false);
  // A save or a removal replaces the part that had the focus: it moves to the card's heading.
  const heading = useRef<HTMLHeadingElement>(null);
  const focusHeading = () => requestAnimationFrame(() => heading.current?.focus());

  if (isLoading || (!data && !isError)) {
    return <LoadingCard />;
  }
  if (isError || !data) {
    return <LoadErrorCard sentence={errorSentence(error, 'Your Discord alerts could not be loaded.')} testId="alerts-error" />;
  }

  const webhook = data.webhook ?? null;
  return (
    <Card className="p-4 sm:p-6" data-testid="alerts-card">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 ref={heading} tabIndex={-1} className="flex items-center gap-2 text-lg font-semibold text-white focus:outline-none focus-visible:outline-2">
          <Bell size={20} aria-hidden="true" className="text-violet-300" /> Discord alerts
        </h2>
        {webhook &&
          (webhook.broken ? (
            <Badge variant="destructive" data-testid="alerts-status">Broken</Badge>
          ) : (
            <Badge variant="success" data-testid="alerts-status">On</Badge>
          ))}
      </div>
      <p className="mt-1 text-sm text-slate-400">A message in your Discord channel when a player you follow changes.</p>
      <div className="mt-4 flex flex-col gap-6">
        {webhook && (
          <SavedWebhook
            webhook={webhook}
            offered={data.kinds}
            onReplace={webhook.broken || replacing ? undefined : () => setReplacing(true)}
            onRemoved={focusHeading}
          />
        )}
        {(!webhook || webhook.broken || replacing) && (
          <WebhookForm
            offered={data.kinds}
            savedKinds={webhook?.kinds}
            onDone={() => {
              setReplacing(false);
              focusHeading();
            }}
            onCancel={replacing && !webhook?.broken ? () => setReplacing(false) : undefined}
          />
        )}
      </div>
    </Card>
  );
}
