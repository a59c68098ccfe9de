import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';
import { X } from 'lucide-react';
import { cn } from './cn';

export interface DialogProps {
  open: boolean;
  onClose: () => void;
  /** Visible heading; also the dialog's accessible name unless ariaLabel is given. */
  title?: ComponentChildren;
  /** Accessible name when there is no visible title (or to override it). */
  ariaLabel?: string;
  description?: ComponentChildren;
  children?: ComponentChildren;
  /** 'center' = modal box; 'left'/'right' = side drawer (sheet). */
  side?: 'center' | 'left' | 'right';
  className?: string;
  /** Hide the top-right close button. */
  hideClose?: boolean;
  /** Close when the backdrop is clicked (default true). */
  closeOnBackdrop?: boolean;
}

const FOCUSABLE =
  'a[href],button:not([disabled]),input:not([disabled]),select:not([disabled]),textarea:not([disabled]),[tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog / side sheet: role="dialog", aria-modal, labelled by its title, Esc and backdrop close it,
 * focus moves inside on open, Tab stays inside, focus returns to the opener on close.
 */
export function Dialog({
  open,
  onClose,
  title,
  ariaLabel,
  description,
  children,
  side = 'center',
  className,
  hideClose,
  closeOnBackdrop = true,
}: DialogProps) {
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const descId = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    if (!open) return;
    const opener = document.activeElement as HTMLElement | null;
    const el = panel.current;
    const first = el?.querySelector<HTMLElement>('[data-autofocus]') ?? el?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? el)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        closeRef.current();
        return;
      }
      if (e.key === 'Tab' && el) {
        const items = Array.from(el.querySelectorAll<HTMLElement>(FOCUSABLE));
        if (items.length === 0) return;
        const a = items[0];
        const z = items[items.length - 1];
        if (e.shiftKey && document.activeElement === a) {
          e.preventDefault();
          z.focus();
        } else if (!e.shiftKey && document.activeElement === z) {
          e.preventDefault();
          a.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (opener && document.contains(opener)) opener.focus();
    };
  }, [open]);

  if (!open) return null;

  const position =
    side === 'center'
      ? 'left-1/2 top-1/2 w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 rounded-xl max-h-[calc(100dvh-2rem)]'
      : cn('top-0 h-full w-72 max-w-[85vw]', side === 'left' ? 'left-0 border-r' : 'right-0 border-l');

  return createPortal(
    <div className="fixed inset-0 z-50">
      <div
        aria-hidden="true"
        data-testid="dialog-backdrop"
        className="absolute inset-0 bg-black/70"
        onClick={() => closeOnBackdrop && onClose()}
      />
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-label={ariaLabel}
        aria-labelledby={ariaLabel || !title ? undefined : titleId}
        aria-describedby={description ? descId : undefined}
        tabIndex={-1}
        className={cn('absolute overflow-y-auto border border-slate-800 bg-slate-900 p-5 text-slate-100 shadow-2xl', position, className)}
      >
        {title && (
          <h2 id={titleId} className="pr-10 text-lg font-semibold">
            {title}
          </h2>
        )}
        {description && (
          <p id={descId} className="mt-1 text-sm text-slate-400">
            {description}
          </p>
        )}
        {!hideClose && (
          <button
            type="button"
            aria-label="Close"
            onClick={onClose}
            className="absolute right-3 top-3 inline-flex h-9 w-9 cursor-pointer items-center justify-center rounded-lg text-slate-400 hover:bg-slate-800 hover:text-slate-100 pointer-coarse:h-11 pointer-coarse:w-11"
          >
            <X size={18} aria-hidden="true" />
          </button>
        )}
        {children}
      </div>
    </div>,
    document.body,
  );
}
