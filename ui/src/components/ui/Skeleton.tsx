import { cn } from './cn';

/** A pulsing placeholder block; size it with className. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cn('animate-pulse rounded-md bg-slate-800', className)} />;
}
