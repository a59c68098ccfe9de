import type { LucideIcon } from 'lucide-react';
import { cn } from './cn';

/** The panel a list shows instead of its items: an error (announced) or an empty result. */
export function StatePanel({
  icon: Icon,
  title,
  text,
  tone,
  testId,
}: {
  icon: LucideIcon;
  title: string;
  text: string;
  tone: 'error' | 'empty';
  testId?: string;
}) {
  const error = tone === 'error';
  return (
    <div
      role={error ? 'alert' : undefined}
      data-testid={testId}
      className={cn(
        'rounded-xl border p-8 text-center',
        error ? 'border-red-500/40 bg-red-950/30' : 'border-slate-800 bg-slate-900',
      )}
    >
      <Icon className={cn('mx-auto h-8 w-8', error ? 'text-red-400' : 'text-slate-400')} aria-hidden="true" />
      <h3 className={cn('mt-3 text-lg font-semibold', error ? 'text-red-300' : 'text-slate-200')}>{title}</h3>
      <p className={cn('mt-1 text-sm', error ? 'text-red-200/80' : 'text-slate-400')}>{text}</p>
    </div>
  );
}
