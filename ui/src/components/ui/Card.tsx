import type { HTMLAttributes, HeadingHTMLAttributes } from 'preact';
import { cn } from './cn';

type P<T extends EventTarget> = HTMLAttributes<T>;

/** A rounded slate-900 panel with a slate-800 border. */
export function Card({ className, class: klass, ...rest }: P<HTMLDivElement>) {
  return <div className={cn('rounded-xl border border-slate-800 bg-slate-900 text-slate-100', klass, className)} {...rest} />;
}

export function CardHeader({ className, class: klass, ...rest }: P<HTMLDivElement>) {
  return <div className={cn('flex flex-col gap-1.5 p-5 pb-3', klass, className)} {...rest} />;
}

export function CardTitle({ className, class: klass, ...rest }: HeadingHTMLAttributes<HTMLHeadingElement>) {
  return <h3 className={cn('text-lg font-semibold leading-tight', klass, className)} {...rest} />;
}

export function CardDescription({ className, class: klass, ...rest }: P<HTMLParagraphElement>) {
  return <p className={cn('text-sm text-slate-400', klass, className)} {...rest} />;
}

export function CardContent({ className, class: klass, ...rest }: P<HTMLDivElement>) {
  return <div className={cn('p-5 pt-0', klass, className)} {...rest} />;
}

export function CardFooter({ className, class: klass, ...rest }: P<HTMLDivElement>) {
  return <div className={cn('flex items-center gap-2 p-5 pt-0', klass, className)} {...rest} />;
}
