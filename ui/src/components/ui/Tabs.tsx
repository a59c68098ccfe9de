import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'react';
import { cn } from './cn';

export interface TabDef {
  id: string;
  label: ComponentChildren;
}

/**
 * An accessible tab list (ARIA tabs pattern: arrow keys, Home/End) whose single panel shows the selected tab.
 * `idPrefix` keeps the tab and panel ids unique on the page; `label` names the tab list.
 */
export function Tabs({
  tabs,
  value,
  onChange,
  label,
  idPrefix,
  children,
}: {
  tabs: TabDef[];
  value: string;
  onChange: (id: string) => void;
  label: string;
  idPrefix: string;
  children: ComponentChildren;
}) {
  const listRef = useRef<HTMLDivElement>(null);

  // Keep the selected tab visible in the scrolling tab strip (phones).
  useEffect(() => {
    const el = listRef.current?.querySelector<HTMLElement>('[aria-selected="true"]');
    el?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [value]);

  function focusTab(index: number) {
    const i = (index + tabs.length) % tabs.length;
    onChange(tabs[i].id);
    listRef.current?.querySelectorAll<HTMLButtonElement>('[role="tab"]')[i]?.focus();
  }

  function onKeyDown(e: KeyboardEvent) {
    const current = tabs.findIndex((t) => t.id === value);
    if (e.key === 'ArrowRight') focusTab(current + 1);
    else if (e.key === 'ArrowLeft') focusTab(current - 1);
    else if (e.key === 'Home') focusTab(0);
    else if (e.key === 'End') focusTab(tabs.length - 1);
    else return;
    e.preventDefault();
  }

  return (
    <div className="flex min-w-0 flex-col gap-4">
      <div
        ref={listRef}
        role="tablist"
        aria-label={label}
        onKeyDown={onKeyDown}
        className="flex gap-1 overflow-x-auto rounded-xl border border-slate-800 bg-slate-900 p-1"
      >
        {tabs.map((t) => {
          const selected = t.id === value;
          return (
            <button
              key={t.id}
              type="button"
              role="tab"
              id={`${idPrefix}-tab-${t.id}`}
              aria-selected={selected}
              aria-controls={`${idPrefix}-panel-${t.id}`}
              tabIndex={selected ? 0 : -1}
              data-tab={t.id}
              onClick={() => onChange(t.id)}
              className={cn(
                'shrink-0 cursor-pointer whitespace-nowrap rounded-lg px-3 py-2 text-sm font-medium transition-colors pointer-coarse:py-3',
                selected ? 'bg-violet-600 text-white' : 'text-slate-300 hover:bg-slate-800 hover:text-white',
              )}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      <div role="tabpanel" id={`${idPrefix}-panel-${value}`} aria-labelledby={`${idPrefix}-tab-${value}`} tabIndex={0} className="min-w-0 rounded-xl">
        {children}
      </div>
    </div>
  );
}
