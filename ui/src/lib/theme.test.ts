import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  THEME_STORAGE_KEY,
  applyTheme,
  nextThemeChoice,
  parseThemeChoice,
  readThemeChoice,
  resolveTheme,
  saveThemeChoice,
  type ThemeChoice,
} from './theme';

function stubSystem(light: boolean) {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: query === '(prefers-color-scheme: light)' ? light : false,
    addEventListener: () => {},
    removeEventListener: () => {},
  }));
}

describe('theme', () => {
  afterEach(() => {
    localStorage.clear();
    vi.unstubAllGlobals();
    delete document.documentElement.dataset.theme;
  });

  it('reads only light and dark as a stored choice; anything else is system', () => {
    expect(parseThemeChoice('light')).toBe('light');
    expect(parseThemeChoice('dark')).toBe('dark');
    for (const other of [null, undefined, '', 'system', 'LIGHT', '"dark"', 'blue']) expect(parseThemeChoice(other)).toBe('system');
  });

  it('resolves system from the system setting, dark when it says nothing', () => {
    expect(resolveTheme('system', true)).toBe('light');
    expect(resolveTheme('system', false)).toBe('dark');
    expect(resolveTheme('light', false)).toBe('light');
    expect(resolveTheme('dark', true)).toBe('dark');
  });

  it('cycles light, dark, system', () => {
    expect(nextThemeChoice('light')).toBe('dark');
    expect(nextThemeChoice('dark')).toBe('system');
    expect(nextThemeChoice('system')).toBe('light');
  });

  it('keeps a choice in localStorage (system as none) and sets data-theme on <html>', () => {
    stubSystem(true);
    saveThemeChoice('dark');
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(readThemeChoice()).toBe('dark');
    saveThemeChoice('system');
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBeNull();
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(readThemeChoice()).toBe('system');
    expect(applyTheme('light')).toBe('light');
  });

  it("index.html's pre-paint script picks the theme this module would, for every stored value and system setting", () => {
    const html = readFileSync(path.resolve(__dirname, '../../index.html'), 'utf8');
    const script = /<script>([^<]*)<\/script>/.exec(html)?.[1];
    expect(script).toBeTruthy();
    expect(script).toContain(`"${THEME_STORAGE_KEY}"`);
    const stored: (string | null)[] = ['light', 'dark', null, 'bogus'];
    for (const value of stored) {
      for (const light of [true, false]) {
        localStorage.clear();
        if (value !== null) localStorage.setItem(THEME_STORAGE_KEY, value);
        stubSystem(light);
        delete document.documentElement.dataset.theme;
        new Function(script!)();
        const choice: ThemeChoice = parseThemeChoice(value);
        expect(document.documentElement.dataset.theme, `${value}, system light ${light}`).toBe(resolveTheme(choice, light));
      }
    }
  });
});
