import type { ButtonHTMLAttributes } from 'preact';
import { forwardRef } from 'react';
import { cn } from './cn';

export type ButtonVariant = 'default' | 'outline' | 'ghost' | 'destructive';
export type ButtonSize = 'sm' | 'md' | 'lg' | 'icon';

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  size?: ButtonSize;
};

const VARIANTS: Record<ButtonVariant, string> = {
  default: 'bg-violet-600 text-white hover:bg-violet-700',
  outline: 'border border-slate-700 bg-transparent text-slate-100 hover:bg-slate-800',
  ghost: 'bg-transparent text-slate-200 hover:bg-slate-800',
  destructive: 'bg-red-600 text-white hover:bg-red-700',
};

const SIZES: Record<ButtonSize, string> = {
  sm: 'h-8 px-3 text-sm',
  md: 'h-10 px-4 text-sm',
  lg: 'h-12 px-6 text-base',
  icon: 'h-10 w-10',
};

const BASE =
  'inline-flex shrink-0 items-center justify-center gap-2 rounded-lg font-medium transition-colors cursor-pointer disabled:pointer-events-none disabled:opacity-50';

/** Class names of a button look, for links styled as buttons. */
export function buttonClass(variant: ButtonVariant = 'default', size: ButtonSize = 'md', extra?: unknown): string {
  return cn(BASE, VARIANTS[variant], SIZES[size], extra);
}

/** A <button> (type="button" unless told). */
export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  { variant = 'default', size = 'md', type = 'button', className, class: klass, ...rest },
  ref,
) {
  return <button ref={ref} type={type} className={buttonClass(variant, size, cn(klass, className))} {...rest} />;
});
