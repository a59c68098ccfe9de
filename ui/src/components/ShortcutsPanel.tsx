import { Keyboard } from 'lucide-react';
import { SHORTCUT_LIST } from '../lib/shortcuts';
import { Dialog } from './ui/Dialog';

export interface ShortcutsPanelProps {
  open: boolean;
  onClose: () => void;
}

/** Lists every keyboard shortcut. */
export function ShortcutsPanel({ open, onClose }: ShortcutsPanelProps) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard Shortcuts">
      <ul className="mt-4 divide-y divide-slate-800">
        {SHORTCUT_LIST.map((s) => (
          <li key={s.description} className="flex items-center justify-between gap-4 py-2.5 text-sm">
            <span className="text-slate-300">{s.description}</span>
            <span className="flex shrink-0 items-center gap-1">
              {s.keys.map((k, i) => (
                <span key={k} className="flex items-center gap-1">
                  {i > 0 && <span aria-hidden="true" className="text-slate-400">+</span>}
                  <kbd className="rounded-md border border-slate-700 bg-slate-800 px-2 py-0.5 font-mono text-xs text-slate-100">{k}</kbd>
                </span>
              ))}
            </span>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}

/**
 * The floating bottom-right button that opens the shortcuts panel. It sits in the bottom band (App), above the
 * banner, so the page keeps room for it at its end. Where the band has no room for it, it is hidden and the
 * navigation's menu has the entry instead: on phone widths, and below `lg` on touch screens (a coarse pointer or no
 * hover), where the menu drawer is.
 */
export function ShortcutsButton({ onClick }: { onClick: () => void }) {
  return (
    <button
      type="button"
      aria-label="Keyboard shortcuts"
      aria-haspopup="dialog"
      title="Keyboard shortcuts"
      onClick={onClick}
      data-testid="shortcuts-button"
      className="pointer-events-auto mr-4 mb-2 inline-flex h-12 w-12 cursor-pointer items-center justify-center self-end rounded-full bg-violet-600 text-white shadow-lg shadow-violet-950/50 transition-colors hover:bg-violet-700 max-sm:hidden max-lg:pointer-coarse:hidden max-lg:[@media(hover:none)]:hidden"
    >
      <Keyboard size={22} aria-hidden="true" />
    </button>
  );
}
