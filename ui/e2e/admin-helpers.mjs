// Helpers shared by accounts.test.mjs, admin.test.mjs and admin-access.test.mjs. For admin keys made with the
// CLI, those files use the harness's `useSuite({ withDataDir: true })` and `env.adminKey()`.
import assert from 'node:assert/strict';
import { eventually, visible } from './harness.mjs';

/** Chromium's console line for a response that failed with one of `codes` (expected in the test that allows it). */
export function failedLoad(...codes) {
  return new RegExp(`^Failed to load resource: the server responded with a status of (${codes.join('|')}) `);
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

/** The open toast whose text contains `title` (at most one toast is shown at a time). */
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
  // A toast can close by itself (or slide) while it is being clicked: count again and retry, a bounded number of times.
  for (let tries = 0; tries < 20 && (await buttons.count()) > 0; tries++) {
    await buttons
      .first()
      .click({ timeout: 2000 })
      .catch(() => {});
  }
  assert.equal(await buttons.count(), 0, 'every toast is dismissed');
}

/** The document does not scroll sideways (nothing is wider than the viewport). */
export async function assertNoHorizontalOverflow(page, what = page.url()) {
  // Against the screen's width (the root's clientWidth), not innerWidth: with mobile emulation
  // Chromium widens the layout viewport to the content, so innerWidth grows with an overflow and
  // the check could never fail on a phone.
  const { scrollWidth, screenWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    screenWidth: document.documentElement.clientWidth,
  }));
  assert.ok(scrollWidth <= screenWidth, `${what}: the page is ${scrollWidth}px wide on a ${screenWidth}px screen`);
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
