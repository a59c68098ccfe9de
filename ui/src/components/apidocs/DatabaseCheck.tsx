import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Database } from 'lucide-react';
import { errorSentence } from '../../lib/api';
import { formatBytes } from '../../lib/apiDocs';
import { apiKeyError, fetchDatabaseInfo, type DatabaseInfo } from '../../lib/apiKeys';
import { SectionCard } from '../admin/shared';
import { Button } from '../ui/Button';
import { Input, Label } from '../ui/Input';

/**
 * Testing tab: GET /api/database with a key (prefilled with the current key until the visitor edits it) and the
 * answer: schema version, file size, journal mode (row counts and backups are the admin panel's).
 */
export function DatabaseCheck({ currentKey }: { currentKey: string }) {
  const [edited, setEdited] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const check = useMutation<DatabaseInfo, unknown, string>({ mutationFn: fetchDatabaseInfo });
  const key = edited ?? currentKey;

  function submit(e: Event) {
    e.preventDefault();
    const invalid = apiKeyError(key);
    setProblem(invalid);
    if (invalid) {
      check.reset();
      return;
    }
    check.mutate(key);
  }

  const error = problem ?? (check.isError ? errorSentence(check.error, 'Failed to load database info') : null);
  const info = !problem && check.data ? check.data : null;

  return (
    <SectionCard icon={Database} title="Database status" description="Calls GET /api/database with the key below in the X-API-Key header.">
      <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row sm:items-end" noValidate>
        <div className="flex min-w-0 flex-1 flex-col gap-1.5">
          <Label htmlFor="db-check-key">API key</Label>
          <Input
            id="db-check-key"
            value={key}
            autoComplete="off"
            spellcheck={false}
            className="font-mono"
            aria-invalid={problem ? true : undefined}
            aria-describedby={error ? 'db-check-error' : undefined}
            onInput={(e) => {
              setEdited((e.currentTarget as HTMLInputElement).value);
              setProblem(null);
            }}
          />
        </div>
        <Button type="submit" disabled={check.isPending}>
          {check.isPending ? 'Checking...' : 'Check database'}
        </Button>
      </form>

      {error && (
        <p id="db-check-error" role="alert" className="mt-3 rounded-lg border border-red-500/40 bg-red-950/40 p-3 text-sm text-red-200">
          {error}
        </p>
      )}

      {info && (
        <div className="mt-4 flex flex-col gap-4" data-testid="db-info">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            <div>
              <dt className="text-xs font-medium uppercase tracking-wide text-slate-400">Schema version</dt>
              <dd data-testid="db-schema" className="text-lg font-semibold text-white">{info.schemaVersion}</dd>
            </div>
            <div>
              <dt className="text-xs font-medium uppercase tracking-wide text-slate-400">Size</dt>
              <dd data-testid="db-size" className="text-lg font-semibold text-white" title={`${info.sizeBytes.toLocaleString('en-US')} bytes`}>
                {formatBytes(info.sizeBytes)}
              </dd>
            </div>
            <div>
              <dt className="text-xs font-medium uppercase tracking-wide text-slate-400">Journal mode</dt>
              <dd data-testid="db-journal" className="text-sm font-semibold uppercase text-white">{info.journalMode}</dd>
            </div>
            <div>
              <dt className="text-xs font-medium uppercase tracking-wide text-slate-400">Schema</dt>
              <dd data-testid="db-status" className="text-sm font-semibold text-white">
                {info.schemaVersion === info.latestSchemaVersion ? 'Up to date' : `Version ${info.latestSchemaVersion} expected`}
              </dd>
            </div>
          </dl>
        </div>
      )}
    </SectionCard>
  );
}
