// Helpers shared by accounts.test.mjs, admin.test.mjs and admin-access.test.mjs.
//
// The harness starts the server with --temp (its data dir is private), but `fanhub admin-key` has to write into the
// server's database, so `useDataDirSuite` starts the same binary the same way with an explicit --data-dir in a
// mkdtemp directory, and `env.adminKey()` runs the CLI against it.
import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { before, after, afterEach } from 'node:test';
import {
  UI_DIR,
  DEFAULT_BIN,
  launchBrowser,
  newPage,
  gotoApp,
  assertNoConsoleErrors,
  eventually,
  visible,
} from './harness.mjs';

export const BIN = process.env.FANHUB_BIN ? path.resolve(UI_DIR, process.env.FANHUB_BIN) : DEFAULT_BIN;

const LISTEN_RE = /^fanhub listening on (http:\/\/127\.0\.0\.1:(\d+))\s*$/;

/** Chromium's console line for a response that failed with one of `codes` (expected in the test that allows it). */
export function failedLoad(...codes) {
  return new RegExp(`^Failed to load resource: the server responded with a status of (${codes.join('|')}) `);
}

// ------------------------------------------------------------------------------------------------
// A server with a known data dir

const live = new Set();
process.on('exit', () => {
  for (const c of live) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
});

/** `fanhub serve --addr 127.0.0.1:0 --data-dir DIR` (same environment as the harness), resolved when listening. */
export async function startServerInDir(dataDir, { env = {} } = {}) {
  assert.ok(existsSync(BIN), `fanhub binary not found at ${BIN}`);
  const child = spawn(BIN, ['serve', '--addr', '127.0.0.1:0', '--data-dir', dataDir], {
    cwd: UI_DIR,
    env: {
      ...process.env,
      FANHUB_ROBLOX_API: process.env.FANHUB_ROBLOX_API ?? 'http://127.0.0.1:9/{service}',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    err = (err + d).slice(-64_000);
  });
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const baseUrl = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`fanhub did not start within 15 s.\nstdout:\n${out}\nstderr:\n${err}`));
    }, 15_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-64_000);
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const m = LISTEN_RE.exec(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`fanhub exited (${code}, ${signal}) before listening.\nstderr:\n${err}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    const res = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 10_000))]);
    if (res) return res;
    child.kill('SIGKILL');
    await exited;
    throw new Error(`fanhub did not exit within 10 s of SIGTERM.\nstderr:\n${err}`);
  };
  return { baseUrl, stop, stderr: () => err };
}

/** Runs `fanhub admin-key --data-dir DIR --name NAME` and returns the printed key. */
export function createAdminKey(dataDir, name) {
  return new Promise((resolve, reject) => {
    execFile(BIN, ['admin-key', '--data-dir', dataDir, '--name', name], { timeout: 15_000 }, (e, stdout, stderr) => {
      if (e) return reject(new Error(`fanhub admin-key failed: ${e.message}\n${stderr}`));
      const m = /\b(fha_[0-9a-f]{16,})\b/.exec(stdout) ?? /^(\S{20,})$/m.exec(stdout);
      if (!m) return reject(new Error(`fanhub admin-key printed no key:\n${stdout}\n${stderr}`));
      resolve(m[1]);
    });
  });
}

/**
 * Like the harness's useSuite, but the server keeps its data in a known directory (env.dataDir) so that
 * env.adminKey(name) can create CLI admin keys in it.
 */
export function useDataDirSuite({ serverEnv = {} } = {}) {
  const env = {
    baseUrl: '',
    dataDir: '',
    browser: null,
    server: null,
    contexts: [],
    async open(vp, pathname = '/', opts = {}) {
      const { context, page } = await newPage(env.browser, env.baseUrl, vp, opts);
      env.contexts.push(context);
      if (opts.setup) await opts.setup(page, context);
      if (pathname !== null) await gotoApp(page, pathname);
      return page;
    },
    assertNoConsoleErrors,
    adminKey: (name = 'e2e') => createAdminKey(env.dataDir, name),
    async api(p, init) {
      const res = await fetch(env.baseUrl + p, init);
      assert.ok(res.ok, `${init?.method ?? 'GET'} ${p} answered ${res.status}`);
      return res.json();
    },
    fetch: (p, init) => fetch(env.baseUrl + p, init),
  };

  before(async () => {
    env.dataDir = mkdtempSync(path.join(os.tmpdir(), 'fanhub-e2e-admin-'));
    const [server, browser] = await Promise.all([startServerInDir(env.dataDir, { env: serverEnv }), launchBrowser()]);
    env.server = server;
    env.baseUrl = server.baseUrl;
    env.browser = browser;
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
        assert.deepEqual(res, { code: 0, signal: null }, `fanhub should exit 0 on SIGTERM; stderr:\n${env.server.stderr().slice(-4000)}`);
      }
    } finally {
      if (env.dataDir) rmSync(env.dataDir, { recursive: true, force: true });
    }
  });

  return env;
}

// ------------------------------------------------------------------------------------------------
// API shortcuts (each login / register / verify-key counts against the server's 10-a-minute limit)

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export async function registerUser(env, username, password) {
  const res = await env.fetch('/api/auth/register', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ username, password }) });
  assert.equal(res.status, 201, `register ${username}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()).user;
}

export async function loginStatus(env, username, password) {
  const res = await env.fetch('/api/auth/login', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ username, password }) });
  await res.arrayBuffer();
  return res.status;
}

/** GET an admin endpoint with X-Admin-Key. */
export async function adminApi(env, key, p) {
  const res = await env.fetch(p, { headers: { 'X-Admin-Key': key } });
  assert.ok(res.ok, `GET ${p} (X-Admin-Key) answered ${res.status}`);
  return res.json();
}

/** POST verify-key once and return the cookies it set, ready for context.addCookies(). */
export async function adminSessionCookies(env, key) {
  const res = await env.fetch('/api/admin/verify-key', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ key }) });
  assert.equal(res.status, 200, `verify-key answered ${res.status}`);
  await res.arrayBuffer();
  const cookies = res.headers.getSetCookie().map((line) => {
    const [pair] = line.split(';');
    const i = pair.indexOf('=');
    return { name: pair.slice(0, i).trim(), value: pair.slice(i + 1).trim(), url: env.baseUrl, sameSite: 'Strict' };
  });
  assert.ok(cookies.some((c) => c.name === 'fanhub_admin'), 'verify-key sets the fanhub_admin session cookie');
  return cookies;
}

// ------------------------------------------------------------------------------------------------
// Page helpers

/** The open toast whose text contains `title` (at most one toast is shown, spec 9). */
export function toastLocator(page, title) {
  return page.getByRole('region', { name: 'Notifications' }).locator('[role="status"], [role="alert"]').filter({ hasText: title });
}

/**
 * Waits for a toast with `title` (exact title line), optionally its description and variant
 * (destructive toasts are role=alert, others role=status).
 */
export async function expectToast(page, title, { description, destructive } = {}) {
  const t = toastLocator(page, title);
  await visible(t);
  await eventually(async () => {
    const lines = (await t.first().locator('p').allInnerTexts()).map((s) => s.trim());
    assert.equal(lines[0], title, `toast title (toast reads ${JSON.stringify(lines)})`);
    if (description !== undefined) assert.equal(lines[1], description, `toast "${title}" description`);
    if (destructive !== undefined) {
      assert.equal(await t.first().getAttribute('role'), destructive ? 'alert' : 'status', `toast "${title}" variant`);
    }
  });
  return t;
}

/** Dismisses every open toast (so the next assertion cannot see a stale one). */
export async function dismissToasts(page) {
  const buttons = page.getByRole('region', { name: 'Notifications' }).getByRole('button', { name: 'Dismiss notification' });
  for (let n = await buttons.count(); n > 0; n = await buttons.count()) await buttons.first().click();
}

/** The document does not scroll sideways (nothing is wider than the viewport). */
export async function assertNoHorizontalOverflow(page, what = page.url()) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  assert.ok(scrollWidth <= innerWidth, `${what}: the page is ${scrollWidth}px wide in a ${innerWidth}px viewport`);
}

/** Paints a CSS colour and reads it back as #rrggbb. */
export async function cssColorToHex(page, css) {
  return page.evaluate((c) => {
    const cv = document.createElement('canvas');
    cv.width = cv.height = 1;
    const ctx = cv.getContext('2d');
    ctx.fillStyle = c;
    ctx.fillRect(0, 0, 1, 1);
    return '#' + Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3), (v) => v.toString(16).padStart(2, '0')).join('');
  }, css);
}

/** The computed background colour of an element as #rrggbb. */
export async function backgroundHex(locator) {
  const bg = await locator.evaluate((el) => getComputedStyle(el).backgroundColor);
  return cssColorToHex(locator.page(), bg);
}
