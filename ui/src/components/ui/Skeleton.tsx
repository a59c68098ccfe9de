import { cn } from './cn';

/** A pulsing placeholder block; size it with className (a rounded-* class there replaces the default). */
export function Skeleton({ className }: { className?: string }) {
  const rounding = /(^|\s)rounded(-|\s|$)/.test(className ?? '') ? null : 'rounded-md';
  return <div aria-hidden="true" className={cn('animate-pulse bg-slate-800', rounding, className)} />;
}
