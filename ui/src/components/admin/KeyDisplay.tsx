import { useEffect, useRef, useState } from 'react';
import { Check, Copy } from 'lucide-react';
import { copyText } from '../../lib/clipboard';
import { toast } from '../../lib/toast';
import { Button } from '../ui/Button';

/** Spec section 9: the copied indicator shows for 2 s. */
export const COPIED_MS = 2000;

/** A freshly created key, shown once, with a Copy Key button that reads Copied! for 2 s. */
export function KeyDisplay({ value, label = 'Your admin key' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  async function copy() {
    if (await copyText(value)) {
      setCopied(true);
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(false), COPIED_MS);
    } else {
      toast({ title: 'Copy failed', description: 'Your browser did not allow copying. Select the key and copy it by hand.', variant: 'destructive' });
    }
  }

  return (
    <div className="flex flex-col gap-2">
      <p className="text-sm font-medium text-slate-300">{label}</p>
      <code data-testid="created-key" className="block select-all break-all rounded-lg border border-slate-700 bg-slate-950 p-3 font-mono text-sm text-emerald-300">
        {value}
      </code>
      <Button variant="outline" onClick={copy} className="self-start" aria-live="polite">
        {copied ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
        {copied ? 'Copied!' : 'Copy Key'}
      </Button>
    </div>
  );
}
