// End-to-end harness: the real fanhub binary + headless Debian Chromium through playwright-core.
//
// Every test file does:
//   import { describe, it } from 'node:test';
//   import { useSuite, VIEWPORT_NAMES } from './harness.mjs';
//   describe('thing', () => {
//     const env = useSuite();                       // one server + one browser for the file
//     for (const vp of VIEWPORT_NAMES) it(`... (${vp})`, async () => {
//       const page = await env.open(vp, '/commands'); // fresh context + page, closed after the test
//       ...
//       env.assertNoConsoleErrors(page);
//     });
//   });
//
// FANHUB_BIN overrides the binary (default ../target/release/fanhub relative to ui/).
// A suite that needs a fake upstream (Roblox, Discord...) passes `services` to useSuite: each is started first,
// its "listening" line gives the server's environment, and it is stopped after the server (see useSuite).

import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { before, after, afterEach } from 'node:test';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const UI_DIR = path.resolve(HERE, '..');
export const DEFAULT_BIN = path.resolve(UI_DIR, '../target/release/fanhub');
export const CHROMIUM_PATH = process.env.FANHUB_CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // containers often have a tiny /dev/shm; without this Chromium tabs crash under load
  '--disable-dev-shm-usage',
];

/** Viewports every public-site test runs on. */
export const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};
export const VIEWPORT_NAMES = /** @type {const} */ (['desktop', 'phone']);

const LISTEN_RE = /^fanhub listening on (http:\/\/127\.0\.0\.1:(\d+))\s*$/;
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;

// ------------------------------------------------------------------------------------------------
// Server

const liveServers = new Set();
process.on('exit', () => {
  for (const child of liveServers) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

/**
 * Spawns `command args` and waits until it prints a stdout line matching `ready` (both pipes are always drained;
 * their tails are kept for diagnostics). Rejects when the process exits first or stays silent for `timeout` ms.
 * The process is SIGKILLed if the test run exits without stopping it.
 * @returns {Promise<{match: RegExpExecArray, stop: () => Promise<{code: number|null, signal: string|null}>, stderr: () => string, stdout: () => string, child: import('node:child_process').ChildProcess}>}
 */
export async function startProcess({ command, args = [], env = {}, ready, what = 'helper process', timeout = START_TIMEOUT_MS }) {
  if (typeof command === 'function') command = command();
  const child = spawn(command, args, { cwd: UI_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  liveServers.add(child);

  let out = '';
  let err = '';
  const keep = (s) => (s.length > 64_000 ? s.slice(-64_000) : s);
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    err = keep(err + d);
  });

  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      liveServers.delete(child);
      resolve({ code, signal });
    });
  });

  const match = await new Promise((resolve, reject) => {
    let buf = '';
    let done = false;
    const finish = (fn, v) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      fn(v);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(reject, new Error(`${what} did not print a line matching ${ready} within ${timeout} ms.\nstdout:\n${out}\nstderr:\n${err}`));
    }, timeout);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out = keep(out + d);
      if (done) return;
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = ready.exec(line);
        if (m) return finish(resolve, m);
      }
    });
    child.on('error', (e) => finish(reject, new Error(`cannot start ${command}: ${e.message}`)));
    exited.then(({ code, signal }) =>
      finish(reject, new Error(`${what} exited (code ${code}, signal ${signal}) before it was ready.\nstdout:\n${out}\nstderr:\n${err}`)),
    );
  });

  let stopping;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      let timer;
      const timeoutP = new Promise((resolve) => {
        timer = setTimeout(() => resolve(null), STOP_TIMEOUT_MS);
      });
      const res = await Promise.race([exited, timeoutP]);
      clearTimeout(timer);
      if (res) return res;
      child.kill('SIGKILL');
      await exited;
      throw new Error(`${what} did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM (killed).\nstderr:\n${err}`);
    })();
    return stopping;
  };

  return { match, stop, child, stderr: () => err, stdout: () => out };
}

/**
 * Starts `fanhub serve --temp --addr 127.0.0.1:0` (or, with `dataDir`, `--data-dir DIR` so the CLI can work on
 * the same database) and waits for its listening line.
 * @returns {Promise<{baseUrl: string, port: number, stop: () => Promise<{code: number|null, signal: string|null}>, stderr: () => string, stdout: () => string}>}
 */
export async function startServer({ args = [], env = {}, dataDir = null } = {}) {
  const where = dataDir ? ['--data-dir', dataDir] : ['--temp'];
  const proc = await startProcess({
    command: fanhubBin(),
    args: ['serve', ...where, '--addr', '127.0.0.1:0', ...args],
    // keep the suite hermetic: no Roblox calls leave the machine (connection refused at once)
    env: { FANHUB_ROBLOX_API: process.env.FANHUB_ROBLOX_API ?? 'http://127.0.0.1:9/{service}', ...env },
    ready: LISTEN_RE,
    what: 'fanhub (expected "fanhub listening on http://127.0.0.1:PORT")',
  });
  const baseUrl = proc.match[1];
  return { baseUrl, port: Number(new URL(baseUrl).port), stop: proc.stop, stderr: proc.stderr, stdout: proc.stdout };
}

/** A cargo example built next to the binary under test (`cargo build --release --example NAME`). */
export function exampleBin(name) {
  const bin = path.join(path.dirname(fanhubBin()), 'examples', name);
  if (!existsSync(bin)) throw new Error(`${bin} not found: build it with \`cargo build --release --example ${name}\``);
  return bin;
}

/** The binary under test: FANHUB_BIN, else the release build. */
export function fanhubBin() {
  const bin = process.env.FANHUB_BIN ? path.resolve(UI_DIR, process.env.FANHUB_BIN) : DEFAULT_BIN;
  if (!existsSync(bin)) {
    throw new Error(`fanhub binary not found at ${bin}: build it with \`cargo build --release\` or set FANHUB_BIN`);
  }
  return bin;
}

/** Runs `fanhub admin-key --data-dir DIR --name NAME` and returns the printed key. */
export function createAdminKey(dataDir, name) {
  return new Promise((resolve, reject) => {
    execFile(fanhubBin(), ['admin-key', '--data-dir', dataDir, '--name', name], { timeout: 15_000 }, (e, stdout, stderr) => {
      if (e) return reject(new Error(`fanhub admin-key failed: ${e.message}\n${stderr}`));
      const m = /\b(fha_[0-9a-f]{16,})\b/.exec(stdout);
      if (!m) return reject(new Error(`fanhub admin-key printed no key:\n${stdout}\n${stderr}`));
      resolve(m[1]);
    });
  });
}

// ------------------------------------------------------------------------------------------------
// Browser

/**
 * Launches headless Chromium. `chromium.launch` gives every run a FRESH user-data-dir: playwright-core
 * mkdtemp()s `$TMPDIR/playwright_chromiumdev_profile-XXXXXX`, passes it as --user-data-dir and deletes it
 * on close (passing --user-data-dir ourselves is refused by playwright-core; launchPersistentContext
 * would give one single context, while every test here needs its own isolated context + viewport).
 */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install chromium (scripts/test does this)`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

const pageErrors = new WeakMap();

/** Attaches console-error and page-error collection to a page. */
export function trackErrors(page) {
  const list = [];
  pageErrors.set(page, list);
  page.on('console', (msg) => {
    if (msg.type() === 'error') {
      const loc = msg.location();
      list.push({ kind: 'console', text: msg.text(), url: loc?.url ?? '' });
    }
  });
  page.on('pageerror', (e) => list.push({ kind: 'pageerror', text: String(e?.stack || e), url: '' }));
  page.on('crash', () => list.push({ kind: 'crash', text: 'page crashed', url: '' }));
  return list;
}

const inFlight = new WeakMap();

/**
 * Counts the page's requests in flight. A request ends at its response or its failure: Chromium reports no
 * `loadingFinished` for the revalidation of a `<link rel=preload as=fetch>` answer that the app fetches with
 * `cache: 'no-cache'`, so Playwright's own `networkidle` never comes on the routes the server preloads a call
 * for (it waited out its 20 s timeout there: most of the accessibility suite's time).
 */
export function trackRequests(page) {
  const open = new Set();
  inFlight.set(page, open);
  page.on('request', (r) => open.add(r));
  page.on('response', (r) => open.delete(r.request()));
  page.on('requestfailed', (r) => open.delete(r));
  return open;
}

/** Waits until no request of the page has been in flight for `quietMs` (the pollers' next call is seconds away). */
export async function networkQuiet(page, { quietMs = 300, timeout = 10_000 } = {}) {
  const open = inFlight.get(page);
  assert.ok(open, 'networkQuiet needs a page made by newPage (or trackRequests)');
  const deadline = Date.now() + timeout;
  let quietSince = open.size === 0 ? Date.now() : 0;
  while (!quietSince || Date.now() - quietSince < quietMs) {
    if (Date.now() > deadline) {
      throw new Error(`the network did not go quiet within ${timeout} ms: ${[...open].map((r) => r.url()).join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
    if (open.size) quietSince = 0;
    else quietSince ||= Date.now();
  }
}

/** Waits until the page's data has arrived and nothing is loading any more (no request, no loading indicator). */
export async function settled(page) {
  await page.waitForLoadState('load');
  await networkQuiet(page);
  await eventually(async () => {
    const busy = await page.evaluate(
      () => document.querySelectorAll('[aria-busy="true"], [role="status"][aria-label^="Loading"]').length,
    );
    assert.equal(busy, 0, 'still loading');
  });
}

/** The console errors and page errors seen so far on this page. */
export function consoleErrors(page) {
  return pageErrors.get(page) ?? [];
}

/**
 * Fails when the page logged a console error or threw an uncaught error.
 * @param {import('playwright-core').Page} page
 * @param {{allow?: RegExp[]}} [opts] messages matching one of these (expected, e.g. a forced 500) are ignored
 */
export function assertNoConsoleErrors(page, { allow = [] } = {}) {
  const errors = consoleErrors(page).filter((e) => !allow.some((re) => re.test(e.text)));
  assert.deepEqual(
    errors.map((e) => `[${e.kind}] ${e.text}${e.url ? ` (${e.url})` : ''}`),
    [],
    `page ${page.url()} logged errors`,
  );
}

/**
 * New isolated context + page for one viewport. Relative URLs resolve against the server.
 * @param {import('playwright-core').Browser} browser
 */
export async function newPage(browser, baseUrl, vp = 'desktop', { permissions = [], contextOptions = {} } = {}) {
  const device = VIEWPORTS[vp];
  assert.ok(device, `unknown viewport ${vp}`);
  const context = await browser.newContext({
    ...device,
    baseURL: baseUrl,
    locale: 'en-US',
    timezoneId: 'UTC',
    reducedMotion: 'reduce',
    // The site follows the system's light or dark setting; the suites run in the dark theme unless a
    // test asks for light (contextOptions.colorScheme, or page.emulateMedia).
    colorScheme: 'dark',
    ...contextOptions,
  });
  if (permissions.length) await context.grantPermissions(permissions, { origin: baseUrl });
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(20_000);
  const page = await context.newPage();
  trackErrors(page);
  trackRequests(page);
  return { context, page };
}

/**
 * Registers before/after hooks (call it inside a describe): one server and one browser for the file,
 * and a fresh context per `env.open(...)`, closed after each test.
 */
/**
 * `services`: helper processes (fake upstreams) started before the server, stopped after it. Each is
 * `{name, command, args?, env?, ready: RegExp, serverEnv: (match) => ({...})}` (`command` may be a function, called at
 * start, e.g. `() => exampleBin('fake_roblox')`, so a missing build fails the suite, not the file's loading): `ready` matches the stdout line that
 * says it listens; `serverEnv` turns that match into the server's environment (e.g. FANHUB_ROBLOX_API).
 * They are reachable in tests as `env.services[name]` ({match, url, stop, stdout, stderr}; url = match[1]).
 */
export function useSuite({ serverArgs = [], serverEnv = {}, withDataDir = false, services = [] } = {}) {
  const env = {
    /** @type {string} */ baseUrl: '',
    /** The server's data dir when `withDataDir` (so `env.adminKey()` can run the CLI on its database). */
    dataDir: '',
    adminKey: (name = 'e2e') => createAdminKey(env.dataDir, name),
    /** @type {import('playwright-core').Browser} */ browser: null,
    server: null,
    /** @type {Record<string, {match: RegExpExecArray, url: string, stop: Function, stdout: () => string, stderr: () => string}>} */
    services: {},
    contexts: [],
    /**
     * Opens `pathname` in a new context of viewport `vp` (desktop | phone) and waits for the app shell.
     * Pass `path: null` to get a blank page (e.g. to install routes first).
     */
    async open(vp, pathname = '/', opts = {}) {
      const { context, page } = await newPage(env.browser, env.baseUrl, vp, opts);
      env.contexts.push(context);
      if (opts.setup) await opts.setup(page, context);
      if (pathname !== null) await gotoApp(page, pathname);
      return page;
    },
    assertNoConsoleErrors,
    /** GET an API path on the server, parsed as JSON. */
    async api(p, init) {
      const res = await fetch(env.baseUrl + p, init);
      assert.ok(res.ok, `GET ${p} answered ${res.status}`);
      return res.json();
    },
    async fetch(p, init) {
      return fetch(env.baseUrl + p, init);
    },
  };

  before(async () => {
    if (withDataDir) env.dataDir = mkdtempSync(path.join(os.tmpdir(), 'fanhub-e2e-'));
    let fromServices = {};
    for (const svc of services) {
      const proc = await startProcess({ command: svc.command, args: svc.args, env: svc.env, ready: svc.ready, what: svc.name });
      env.services[svc.name] = { ...proc, url: proc.match[1] };
      fromServices = { ...fromServices, ...(svc.serverEnv ? svc.serverEnv(proc.match) : {}) };
    }
    const [server, browser] = await Promise.allSettled([
      startServer({ args: serverArgs, env: { ...fromServices, ...serverEnv }, dataDir: env.dataDir || null }),
      launchBrowser(),
    ]);
    // Keep what did start, so that `after` closes it: a browser left open when the server failed to
    // start kept the file's process alive for ever (the run hung instead of failing).
    if (browser.status === 'fulfilled') env.browser = browser.value;
    if (server.status === 'fulfilled') {
      env.server = server.value;
      env.baseUrl = server.value.baseUrl;
    }
    if (server.status === 'rejected') throw server.reason;
    if (browser.status === 'rejected') throw browser.reason;
  });

  afterEach(async () => {
    const open = env.contexts.splice(0);
    await Promise.all(open.map((c) => c.close().catch(() => {})));
  });

  after(async () => {
    await env.browser?.close().catch(() => {});
    try {
      if (env.server) {
        const res = await env.server.stop();
        assert.deepEqual(
          res,
          { code: 0, signal: null },
          `fanhub should exit 0 on SIGTERM (a clean shutdown); stderr tail:\n${env.server.stderr().slice(-4000)}`,
        );
      }
    } finally {
      await Promise.all(Object.values(env.services).map((svc) => svc.stop().catch(() => {})));
      if (env.dataDir) rmSync(env.dataDir, { recursive: true, force: true });
    }
  });

  return env;
}

/** Navigates and waits until the app has rendered its shell (the top navigation) and handles input. */
export async function gotoApp(page, pathname) {
  const res = await page.goto(pathname, { waitUntil: 'domcontentloaded' });
  await page.locator('nav').first().waitFor({ state: 'attached' });
  await appReady(page);
  return res;
}

/** Waits until the app has started (src/main.tsx marks it): a page with a first screen is painted before. */
export async function appReady(page) {
  await page.waitForFunction(() => document.documentElement.dataset.app === 'ready', null, { timeout: 10_000 });
}

// ------------------------------------------------------------------------------------------------
// Assertion helpers (playwright-core has no `expect`; these poll until true or time out)

/** Retries `fn` (which throws on failure) until it passes or `timeout` ms elapse; rethrows the last error. */
export async function eventually(fn, { timeout = 10_000, interval = 100 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, interval));
    }
  }
}

/** Waits until the locator is visible. */
export async function visible(locator, timeout = 10_000) {
  await locator.first().waitFor({ state: 'visible', timeout });
  return locator;
}

/** Waits until the locator is hidden or detached. */
export async function hidden(locator, timeout = 10_000) {
  await locator.first().waitFor({ state: 'hidden', timeout });
}

/** Waits until the locator matches exactly `n` elements. */
export async function hasCount(locator, n, timeout = 10_000) {
  await eventually(async () => assert.equal(await locator.count(), n), { timeout });
}

/** Waits until the locator matches at least `n` elements; returns the count. */
export async function atLeast(locator, n, timeout = 10_000) {
  return eventually(
    async () => {
      const c = await locator.count();
      assert.ok(c >= n, `expected at least ${n} elements, found ${c}`);
      return c;
    },
    { timeout },
  );
}

/** Waits until the page's pathname equals `pathname`. */
export async function atPath(page, pathname, timeout = 10_000) {
  await eventually(() => assert.equal(new URL(page.url()).pathname, pathname), { timeout });
}

/** Waits until the attribute has the value (a string, or a RegExp to match). */
export async function hasAttr(locator, name, value, timeout = 10_000) {
  await eventually(
    async () => {
      const v = await locator.getAttribute(name);
      if (value instanceof RegExp) assert.match(v ?? '', value);
      else assert.equal(v, value);
    },
    { timeout },
  );
}

/** The visible text of the whole page (normalised whitespace). */
export async function pageText(page) {
  return (await page.locator('body').innerText()).replace(/\s+/g, ' ');
}

/** Waits until the body text contains `text` (string or RegExp). */
export async function hasText(page, text, timeout = 10_000) {
  await eventually(
    async () => {
      const t = await pageText(page);
      if (text instanceof RegExp) assert.match(t, text);
      else assert.ok(t.includes(text), `page text does not contain ${JSON.stringify(text)}`);
    },
    { timeout },
  );
}

// ------------------------------------------------------------------------------------------------
// App-specific helpers

/** Delays (or fails) one API path: resolves the route only when `release()` is called. */
export async function holdRoute(page, pattern) {
  let release;
  const gate = new Promise((r) => (release = r));
  await page.route(pattern, async (route) => {
    await gate;
    await route.continue().catch(() => {});
  });
  return { release: () => release() };
}

/** Makes an API path answer 500 with a JSON error body. */
export async function failRoute(page, pattern) {
  await page.route(pattern, (route) =>
    route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"x"}' }),
  );
}

/** Console messages Chromium logs for a response we forced to fail on purpose. */
export const EXPECTED_FAILED_LOAD = /Failed to load resource: the server responded with a status of (404|500)/;

/** The navigation bar's items in order: their names and the pages they open. */
export const NAV = [
  { name: 'Home', path: '/' },
  { name: 'Commands', path: '/commands' },
  { name: 'Guides', path: '/guides' },
  { name: 'Community', path: '/community' },
  { name: 'Badges', path: '/badge-monitor' },
  { name: 'Newgen', path: '/newgen-detector' },
  { name: 'Bot API', path: '/discord-bot-api' },
  { name: 'Updates', path: '/discord-news' },
];
