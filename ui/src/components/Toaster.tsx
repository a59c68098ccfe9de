import { X } from 'lucide-react';
import { useToast } from '../lib/toast';
import { cn } from './ui/cn';

/**
 * Renders the open toasts (at most one) in a polite live region where they cover neither a page's title nor its
 * result: on phones at the bottom, just above the bottom banner (its height is --banner-h, at most 120 px), where
 * the page's title and a result brought into view are not; from `sm` up at the top right, under the top bar,
 * beside the title (a narrow column until `lg`, so a title on the left stays clear).
 */
export function Toaster() {
  const { toasts, dismiss } = useToast();
  const open = toasts.filter((t) => t.open);
  return (
    <div
      role="region"
      aria-label="Notifications"
      aria-live="polite"
      aria-atomic="false"
      className="pointer-events-none fixed inset-x-0 bottom-[var(--banner-h,0px)] z-[100] flex flex-col items-center gap-2 p-4 sm:bottom-auto sm:left-auto sm:right-0 sm:top-16 sm:w-full sm:max-w-sm sm:items-stretch lg:max-w-md"
    >
      {open.map((t) => (
        <div
          key={t.id}
          role={t.variant === 'destructive' ? 'alert' : 'status'}
          className={cn(
            'toast-enter pointer-events-auto relative flex w-full items-start gap-3 rounded-xl border p-4 pr-10 shadow-2xl',
            t.variant === 'destructive' ? 'border-red-500/60 bg-red-950 text-red-50' : 'border-slate-700 bg-slate-900 text-slate-100',
          )}
        >
          <div className="grid gap-1">
            <p className="text-sm font-semibold">{t.title}</p>
            {t.description && <p className="text-sm opacity-90">{t.description}</p>}
          </div>
          <button
            type="button"
            aria-label="Dismiss notification"
            onClick={() => dismiss(t.id)}
            className="absolute right-2 top-2 inline-flex h-7 w-7 cursor-pointer items-center justify-center rounded-md opacity-70 hover:bg-white/10 hover:opacity-100 pointer-coarse:h-11 pointer-coarse:w-11"
          >
            <X size={16} aria-hidden="true" />
          </button>
        </div>
      ))}
    </div>
  );
}
