// Global keyboard shortcuts: a pure matcher plus the hook the shell installs once.
import { useEffect, useRef } from 'react';

export type ShortcutAction =
  | { type: 'focus-search' }
  | { type: 'open-shortcuts' }
  | { type: 'navigate'; path: string }
  | { type: 'escape' };

export interface KeyLike {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** Alt+1..4 targets, in order. */
export const NAV_SHORTCUT_PATHS = ['/', '/commands', '/guides', '/community'] as const;

/** Every shortcut, for the shortcuts panel. */
export const SHORTCUT_LIST: { keys: string[]; description: string }[] = [
  { keys: ['Ctrl/Cmd', 'K'], description: 'Focus the search input' },
  { keys: ['Ctrl/Cmd', '?'], description: 'Open this shortcuts panel' },
  { keys: ['Alt', '1'], description: 'Go to Home' },
  { keys: ['Alt', '2'], description: 'Go to Commands' },
  { keys: ['Alt', '3'], description: 'Go to Guides' },
  { keys: ['Alt', '4'], description: 'Go to Community' },
  { keys: ['Esc'], description: 'Close the open panel' },
];

const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image']);

/** Whether keystrokes on this element are text entry (input, textarea, select, contenteditable). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).tagName !== 'string') return false;
  const el = target as HTMLElement;
  const tag = el.tagName.toLowerCase();
  if (tag === 'textarea' || tag === 'select') return true;
  if (tag === 'input') return !NON_TEXT_INPUTS.has(((el as HTMLInputElement).type || 'text').toLowerCase());
  if (el.isContentEditable) return true;
  const ce = el.getAttribute?.('contenteditable');
  return ce !== null && ce !== undefined && ce !== 'false';
}

/** Maps a key press to a shortcut, or null. `typing` = the event target is a text field. */
export function matchShortcut(e: KeyLike, typing: boolean): ShortcutAction | null {
  const mod = e.ctrlKey || e.metaKey;
  if (e.key === 'Escape' && !mod && !e.altKey) return { type: 'escape' };

  if (mod && !e.altKey) {
    if ((e.key === 'k' || e.key === 'K') && !e.shiftKey) return typing ? null : { type: 'focus-search' };
    if (e.key === '?' || (e.shiftKey && (e.key === '/' || e.code === 'Slash'))) return { type: 'open-shortcuts' };
    return null;
  }

  if (e.altKey && !mod && !e.shiftKey) {
    const fromCode = e.code && /^(Digit|Numpad)[1-4]$/.test(e.code) ? Number(e.code.slice(-1)) : NaN;
    const digit = Number.isNaN(fromCode) ? (/^[1-4]$/.test(e.key) ? Number(e.key) : NaN) : fromCode;
    if (!Number.isNaN(digit)) return { type: 'navigate', path: NAV_SHORTCUT_PATHS[digit - 1] };
  }
  return null;
}

/** The first visible element marked data-search-input on the page. */
export function findSearchInput(root: ParentNode = document): HTMLElement | null {
  const all = Array.from(root.querySelectorAll<HTMLElement>('[data-search-input]'));
  return all.find((el) => el.offsetParent !== null || el.getClientRects().length > 0) ?? all[0] ?? null;
}

export interface ShortcutHandlers {
  navigate: (path: string) => void;
  openShortcuts: () => void;
  /** Close every open panel. */
  closePanels: () => void;
}

/** Installs the global keydown listener. */
export function useShortcuts(handlers: ShortcutHandlers) {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented && e.key !== 'Escape') return;
      const action = matchShortcut(e, isTypingTarget(e.target));
      if (!action) return;
      switch (action.type) {
        case 'focus-search': {
          const input = findSearchInput();
          if (!input) return;
          e.preventDefault();
          input.focus();
          if (input instanceof HTMLInputElement) input.select();
          return;
        }
        case 'open-shortcuts':
          e.preventDefault();
          ref.current.openShortcuts();
          return;
        case 'navigate':
          e.preventDefault();
          ref.current.navigate(action.path);
          return;
        case 'escape':
          ref.current.closePanels();
          return;
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
