// Helpers for texts that the build renders ahead with site-setting tokens (src/prerender/firstScreen.tsx).

const OPEN = '\u27e6';
const CLOSE = '\u27e7';

/** The first character of `text`; for a build-time token, the token of that first character. */
export function initialOf(text: string): string {
  if (text.startsWith(OPEN) && text.endsWith(CLOSE)) return `${text.slice(0, -1)}|initial${CLOSE}`;
  return Array.from(text)[0] ?? '';
}

/** Every token in `html` is well formed: ⟦a.b⟧ or ⟦a.b|initial⟧, and nothing else uses the brackets. */
export function tokensWellFormed(html: string): boolean {
  const stripped = html.replace(/\u27e6[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*(?:\|initial)?\u27e7/g, '');
  return !stripped.includes(OPEN) && !stripped.includes(CLOSE);
}
