import type { HTMLAttributes } from 'preact';
import { cn } from './cn';

export type BadgeVariant = 'default' | 'secondary' | 'outline' | 'destructive' | 'success' | 'warning';

const VARIANTS: Record<BadgeVariant, string> = {
  default: 'bg-violet-600/20 text-violet-300 border-violet-500/40',
  secondary: 'bg-slate-800 text-slate-200 border-slate-700',
  outline: 'bg-transparent text-slate-300 border-slate-600',
  destructive: 'bg-red-600/20 text-red-300 border-red-500/40',
  success: 'bg-emerald-600/20 text-emerald-300 border-emerald-500/40',
  warning: 'bg-amber-500/20 text-amber-300 border-amber-500/40',
};

export type BadgeProps = HTMLAttributes<HTMLSpanElement> & { variant?: BadgeVariant };

/** A small pill label. */
export function Badge({ variant = 'default', className, class: klass, ...rest }: BadgeProps) {
  return (
    <span
      className={cn('inline-flex items-center gap-1 rounded-full border px-2.5 py-0.5 text-xs font-medium', VARIANTS[variant], klass, className)}
      {...rest}
    />
  );
}
