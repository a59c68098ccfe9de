import type { ComponentChildren } from 'preact';
import type { LucideIcon } from 'lucide-react';
import { Card } from './Card';
import { cn } from './cn';

/** A page whose content sits centred on the screen (sign-in, admin gate, key screens). */
export function CenteredPage({ children }: { children: ComponentChildren }) {
  return <div className="flex min-h-[70vh] w-full flex-col items-center justify-center gap-6 px-4 py-12">{children}</div>;
}

/** A card with a round icon, a title and an optional line under it, then its content. */
export function FormCard({
  icon: Icon,
  title,
  subtitle,
  wide = false,
  children,
}: {
  icon: LucideIcon;
  title: string;
  subtitle?: ComponentChildren;
  wide?: boolean;
  children: ComponentChildren;
}) {
  return (
    <Card className={cn('w-full p-6 sm:p-8', wide ? 'max-w-lg' : 'max-w-md')}>
      <div className="mb-6 text-center">
        <div className="mx-auto mb-3 flex h-12 w-12 items-center justify-center rounded-full bg-violet-600/20 text-violet-300">
          <Icon size={24} aria-hidden="true" />
        </div>
        <h1 className="text-2xl font-bold text-white">{title}</h1>
        {subtitle && <p className="mt-1 text-sm text-slate-400">{subtitle}</p>}
      </div>
      {children}
    </Card>
  );
}
