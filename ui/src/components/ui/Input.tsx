import type { PartialInputHTMLAttributes, LabelHTMLAttributes, TextareaHTMLAttributes } from 'preact';
import { forwardRef } from 'react';
import { cn } from './cn';

export const INPUT_CLASS =
  'h-10 w-full rounded-lg border border-slate-700 bg-slate-950 px-3 text-sm text-slate-100 placeholder:text-slate-400 focus:border-violet-500 disabled:opacity-50';

export type InputProps = PartialInputHTMLAttributes<HTMLInputElement> & { 'data-search-input'?: boolean | string };

/** A text input. Add `data-search-input` to make Ctrl/Cmd+K focus it. */
export const Input = forwardRef<HTMLInputElement, InputProps>(function Input({ className, class: klass, type = 'text', ...rest }, ref) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return <input ref={ref} type={type as any} className={cn(INPUT_CLASS, klass, className)} {...(rest as any)} />;
});

export type TextareaProps = TextareaHTMLAttributes<HTMLTextAreaElement>;

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaProps>(function Textarea({ className, class: klass, ...rest }, ref) {
  return <textarea ref={ref} className={cn(INPUT_CLASS, 'h-auto min-h-24 py-2', klass, className)} {...rest} />;
});

/** A form label. */
export function Label({ className, class: klass, ...rest }: LabelHTMLAttributes<HTMLLabelElement>) {
  return <label className={cn('text-sm font-medium text-slate-200', klass, className)} {...rest} />;
}
