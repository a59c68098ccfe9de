import { useState } from 'react';
import { KeyRound } from 'lucide-react';
import { errorSentence } from '../../lib/api';
import { KEY_NAME_MAX, keyNameError, useGenerateKey, type ApiKey } from '../../lib/apiKeys';
import { toast } from '../../lib/toast';
import { KeyDisplay } from '../admin/KeyDisplay';
import { SectionCard } from '../admin/shared';
import { Button } from '../ui/Button';
import { Input, Label } from '../ui/Input';

/**
 * Name and generate a key. The new key is shown once in full (with a copy button) and cleared from view as soon as
 * the next generation starts.
 */
export function KeyGenerator({ generated, onGenerated }: { generated: ApiKey | null; onGenerated: (key: ApiKey | null) => void }) {
  const [name, setName] = useState('');
  const [invalid, setInvalid] = useState(false);
  const generate = useGenerateKey();

  function submit(e: Event) {
    e.preventDefault();
    const problem = keyNameError(name);
    if (problem) {
      setInvalid(true);
      toast({ title: 'Error', description: problem, variant: 'destructive' });
      return;
    }
    setInvalid(false);
    onGenerated(null);
    generate.mutate(name, {
      onSuccess: (key) => {
        onGenerated(key);
        setName('');
        toast({ title: 'API key generated successfully' });
      },
      onError: (err) => toast({ title: 'Error', description: errorSentence(err, 'Failed to generate API key'), variant: 'destructive' }),
    });
  }

  return (
    <SectionCard
      icon={KeyRound}
      title="Generate an API key"
      description="Your keys belong to your account when you are signed in, otherwise to this browser. The full key is shown only once."
    >
      <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row sm:items-end" noValidate>
        <div className="flex min-w-0 flex-1 flex-col gap-1.5">
          <Label htmlFor="api-key-name">Key name</Label>
          <Input
            id="api-key-name"
            value={name}
            maxLength={KEY_NAME_MAX}
            placeholder="e.g. my community bot"
            autoComplete="off"
            aria-invalid={invalid || undefined}
            onInput={(e) => {
              setName((e.currentTarget as HTMLInputElement).value);
              setInvalid(false);
            }}
          />
        </div>
        <Button type="submit" disabled={generate.isPending}>
          {generate.isPending ? 'Generating...' : 'Generate'}
        </Button>
      </form>
      {generated && (
        <div className="mt-4 rounded-lg border border-emerald-500/40 bg-emerald-950/30 p-4" data-testid="new-key">
          <KeyDisplay value={generated.key} label={`New key “${generated.name}”: copy it now, it is not shown again`} />
        </div>
      )}
    </SectionCard>
  );
}
