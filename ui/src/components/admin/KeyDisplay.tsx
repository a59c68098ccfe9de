import { Check, Copy } from 'lucide-react';
import { useCopy } from '../commands/useCopy';
import { Button } from '../ui/Button';

/** A freshly created key, shown once, with a Copy Key button that reads Copied! for 2 s. */
export function KeyDisplay({ value, label = 'Your admin key' }: { value: string; label?: string }) {
  const { copy, copied } = useCopy({ failDescription: 'Your browser did not allow copying. Select the key and copy it by hand.' });
  const isCopied = copied === value;

  return (
    <div className="flex flex-col gap-2">
      <p className="text-sm font-medium text-slate-300">{label}</p>
      <code data-testid="created-key" className="block select-all break-all rounded-lg border border-slate-700 bg-slate-950 p-3 font-mono text-sm text-emerald-300">
        {value}
      </code>
      <Button variant="outline" onClick={() => copy(value)} className="self-start" aria-live="polite">
        {isCopied ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
        {isCopied ? 'Copied!' : 'Copy Key'}
      </Button>
    </div>
  );
}
