// The colour theme: the visitor's choice (light, dark or the system's setting), kept in
// localStorage and applied as `data-theme` on <html>, which src/index.css turns into colours.
// ui/index.html carries a copy of `resolveTheme` as an inline script that sets the attribute
// before the first paint (a unit test keeps the two in step); this module takes over once the
// app runs: the control in the navigation, the system setting changing, another tab choosing.
import { useEffect, useState } from 'react';

export type ThemeChoice = 'light' | 'dark' | 'system';
export type Theme = 'light' | 'dark';

export const THEME_STORAGE_KEY = 'fanhub_theme';
export const THEME_CHOICES: readonly ThemeChoice[] = ['light', 'dark', 'system'];
const LIGHT_QUERY = '(prefers-color-scheme: light)';

/** A stored value read as a choice; anything else (absent, old, tampered with) is 'system'. */
export function parseThemeChoice(value: string | null | undefined): ThemeChoice {
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** The theme a choice shows: 'system' follows the system's setting, dark unless it asks for light. */
export function resolveTheme(choice: ThemeChoice, systemPrefersLight: boolean): Theme {
  if (choice === 'system') return systemPrefersLight ? 'light' : 'dark';
  return choice;
}

/** The choice after `choice` in the compact control's cycle (light, dark, system, light...). */
export function nextThemeChoice(choice: ThemeChoice): ThemeChoice {
  return THEME_CHOICES[(THEME_CHOICES.indexOf(choice) + 1) % THEME_CHOICES.length];
}

export function readThemeChoice(): ThemeChoice {
  try {
    return parseThemeChoice(localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return 'system'; // storage blocked (private mode, sandboxed frame)
  }
}

function systemPrefersLight(): boolean {
  return typeof matchMedia === 'function' && matchMedia(LIGHT_QUERY).matches;
}

/** Sets the theme a choice shows on <html> (the attribute the stylesheet and the inline script use). */
export function applyTheme(choice: ThemeChoice): Theme {
  const theme = resolveTheme(choice, systemPrefersLight());
  if (typeof document !== 'undefined') document.documentElement.dataset.theme = theme;
  return theme;
}

/** Keeps a choice for the next visits ('system' is stored as no choice at all) and applies it. */
export function saveThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // not kept, still applied for this page
  }
  applyTheme(choice);
}

/**
 * The current choice and a setter. While the choice is 'system' the page follows the system's
 * setting as it changes; a choice made in another tab is taken over here too. The first render
 * says 'system', as the server's prerendered first screen (made without storage) does, so the
 * app takes that screen over unchanged; the stored choice follows right after (the page already
 * shows its theme: the inline script set it).
 */
export function useThemeChoice(): [ThemeChoice, (choice: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice | null>(null);
  useEffect(() => setChoice(readThemeChoice()), []);
  useEffect(() => {
    if (choice === null) return;
    applyTheme(choice);
    if (choice !== 'system' || typeof matchMedia !== 'function') return;
    const query = matchMedia(LIGHT_QUERY);
    const follow = () => applyTheme('system');
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, [choice]);
  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === THEME_STORAGE_KEY || e.key === null) setChoice(readThemeChoice());
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);
  const choose = (next: ThemeChoice) => {
    saveThemeChoice(next);
    setChoice(next);
  };
  return [choice ?? 'system', choose];
}
