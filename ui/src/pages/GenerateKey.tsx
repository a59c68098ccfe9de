import { useState } from 'react';
import { useLocation } from 'wouter';
import { KeyRound } from 'lucide-react';
import { KeyDisplay } from '../components/admin/KeyDisplay';
import { Button } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
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
    <div className="flex min-h-[70vh] w-full items-center justify-center px-4 py-12">
      <Card className="w-full max-w-lg p-6 sm:p-8">
        <div className="mb-6 text-center">
          <div className="mx-auto mb-3 flex h-12 w-12 items-center justify-center rounded-full bg-violet-600/20 text-violet-300">
            <KeyRound size={24} aria-hidden="true" />
          </div>
          <h1 className="text-2xl font-bold text-white">Generate Admin Key</h1>
          <p className="mt-1 text-sm text-slate-400">Creates an admin key directly. This only works on the machine the site runs on.</p>
        </div>
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
      </Card>
    </div>
  );
}
