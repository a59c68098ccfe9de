// Renders the first screen of the routes in src/prerender/firstScreen.tsx into dist/prerender/<Page>.html
// (run by `npm run build` after the Vite build). The app runs in a happy-dom window at the route's URL,
// compiled by Vite with the app's own config, so the HTML is exactly the app's first frame.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Window } from 'happy-dom';
import { createServer } from 'vite';

const UI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(UI, process.argv[2] ?? 'dist', 'prerender');

function installWindow(url) {
  const window = new Window({ url, width: 390, height: 844 });
  for (const key of Object.getOwnPropertyNames(window)) {
    if (!(key in globalThis)) {
      try {
        globalThis[key] = window[key];
      } catch {
        // a read-only global of Node's with the same name: keep Node's
      }
    }
  }
  // The DOM's own event classes, not Node's: the app dispatches them on the window.
  for (const key of ['Event', 'CustomEvent', 'EventTarget', 'KeyboardEvent', 'MouseEvent', 'PopStateEvent']) {
    globalThis[key] = window[key];
  }
  globalThis.window = window;
  globalThis.document = window.document;
  return window;
}

installWindow('http://localhost/');
const vite = await createServer({ root: UI, logLevel: 'error', server: { middlewareMode: true, hmr: false }, appType: 'custom' });
let failed = false;
try {
  const { PRERENDERED, renderFirstScreen } = await vite.ssrLoadModule('/src/prerender/firstScreen.tsx');
  const { tokensWellFormed } = await vite.ssrLoadModule('/src/lib/prerender.ts');
  mkdirSync(out, { recursive: true });
  for (const { page, path: route } of PRERENDERED) {
    window.happyDOM.setURL(new URL(route, 'http://localhost/').href);
    const html = renderFirstScreen();
    if (!html.includes('\u27e6')) throw new Error(`the first screen of ${route} shows no site setting: is the site seeded?`);
    // A component that cuts or reshapes a setting breaks its token: give it a filter (src/lib/prerender.ts).
    if (!tokensWellFormed(html)) throw new Error(`the first screen of ${route} has a broken site-setting token`);
    writeFileSync(path.join(out, `${page}.html`), html);
    console.log(`prerendered ${route} -> dist/prerender/${page}.html (${html.length} bytes)`);
  }
} catch (e) {
  console.error('prerender failed:', e);
  failed = true;
} finally {
  await vite.close();
}
// Queries the first frame started (e.g. /api/stats) never settle here; do not wait for them.
process.exit(failed ? 1 : 0);
