import { useState } from 'react';
import { useLocation } from 'wouter';
import { KeyRound } from 'lucide-react';
import { KeyDisplay } from '../components/admin/KeyDisplay';
import { Button } from '../components/ui/Button';
import { CenteredPage, FormCard } from '../components/ui/FormCard';
import { ApiError, apiRequest } from '../lib/api';

/** /generate-key: the direct key screen (the server allows it only from the machine it runs on). */
export default function GenerateKey() {
  const [, navigate] = useLocation();
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [pending, setPending] = useState(false);

  async function generate() {
    if (pending) return;
    setPending(true);
    setError('');
    setKey('');
    try {
      const res = await apiRequest<{ success: boolean; key: string }>('POST', '/api/admin/generate-direct-key');
      if (!res?.success || !res.key) throw new Error('No key in the response');
      setKey(res.key);
    } catch (err) {
      console.error('Failed to generate admin key', err);
      if (err instanceof ApiError && err.serverError) setError(err.serverError);
    } finally {
      setPending(false);
    }
  }

  return (
    <CenteredPage>
      <FormCard
        icon={KeyRound}
        title="Generate Admin Key"
        subtitle="Creates an admin key directly. This only works on the machine the site runs on."
        wide
      >
        <div className="flex flex-col gap-4">
          <Button size="lg" onClick={generate} disabled={pending} className="w-full">
            {pending ? 'Generating...' : 'Generate Admin Key'}
          </Button>
          {error && (
            <p role="alert" data-testid="direct-key-error" className="rounded-lg border border-red-500/40 bg-red-500/10 p-3 text-sm text-red-300">
              {error}
            </p>
          )}
          {key && (
            <>
              <KeyDisplay value={key} label="Your admin key (shown only once)" />
              <Button size="lg" className="w-full" onClick={() => navigate(`/admin?key=${encodeURIComponent(key)}`)}>
                Access Admin Panel
              </Button>
            </>
          )}
        </div>
      </FormCard>
    </CenteredPage>
  );
}
