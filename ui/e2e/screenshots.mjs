// Screenshots of every route and the main states, at 1440, 1280 and 390 px, in the dark and the light theme,
// into one folder (target/screenshots/ unless SCREENSHOTS_DIR says otherwise): for looking at the site, not a
// test (its name is not *.test.mjs, so the suite does not run it). Run through scripts/screenshots, which
// builds the binary first; the server, the fake Roblox and Chromium are the e2e harness's.
//
//   FANHUB_BIN=... node e2e/screenshots.mjs [--only SUBSTRING] [--widths 1440,390] [--themes light]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pngFromPixels } from './png.mjs';
import { UI_DIR, createAdminKey, exampleBin, launchBrowser, settled, startProcess, startServer, trackRequests } from './harness.mjs';
import { adminSessionCookies } from './admin-helpers.mjs';
import { FAKE, QUICK_RECHECKS, setFakeModes, siteFile } from './roblox-fake.mjs';
import { stepNow, totp } from './totp.mjs';

const OUT = path.resolve(process.env.SCREENSHOTS_DIR || path.join(UI_DIR, '../target/screenshots'));
const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : null);
const only = arg('--only');

const WIDTHS = {
  1440: { viewport: { width: 1440, height: 900 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
  1280: { viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
  390: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};
const THEMES = (arg('--themes') ?? 'dark,light').split(',');
for (const w of (arg('--widths') ?? '').split(',').filter(Boolean)) if (!WIDTHS[w]) throw new Error(`--widths: one of ${Object.keys(WIDTHS)}`);
const SHOWN_WIDTHS = arg('--widths') ? arg('--widths').split(',') : Object.keys(WIDTHS);

// ------------------------------------------------------------------------------------------------
// A wide banner picture (PNG written here: no image library), for the sponsored banner state.

/** A w x h RGB PNG: diagonal stripes of two colours. */
function stripedPng(w, h, a, b) {
  return pngFromPixels(w, h, (x, y) => (Math.floor((x + y) / 24) % 2 ? a : b));
}

// ------------------------------------------------------------------------------------------------

async function main() {
  mkdirSync(OUT, { recursive: true });
  // Followed players are re-checked every few seconds, so a change the fake makes shows on /account within the run.
  const site = siteFile(3600, QUICK_RECHECKS);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'fanhub-shots-'));
  const roblox = await startProcess({ command: exampleBin('fake_roblox'), ready: FAKE.ready, what: 'fake Roblox' });
  // The fake Discord takes the fan's webhook messages (the test message of a saved webhook, the alerts).
  const discord = await startProcess({ command: exampleBin('fake_discord'), ready: /listening on (http:\/\/\S+)/, what: 'fake Discord' });
  const server = await startServer({
    args: ['--site', site.file],
    env: {
      FANHUB_ROBLOX_API: FAKE.template(roblox.match[1]),
      FANHUB_ROBLOX_COOKIE: FAKE.cookie,
      FANHUB_DISCORD_API: `${discord.match[1]}/api/v10`,
    },
    dataDir,
  });
  const browser = await launchBrowser();
  const base = server.baseUrl;
  const written = [];
  try {
    const api = async (p, init) => (await fetch(base + p, init)).json();
    const env = { baseUrl: base, fetch: (p, init) => fetch(base + p, init) };
    const adminKey = await createAdminKey(dataDir, 'screenshots');
    const adminCookies = await adminSessionCookies(env, adminKey);
    // Two admin accounts: one signed in on /account (its authenticator set up and removed again for each
    // picture), one with an authenticator already, for the second step of /login.
    const STAFF_PASSWORD = 'a long enough password';
    const json = (extra = {}) => ({ 'Content-Type': 'application/json', Origin: base, ...extra });
    async function adminAccount(username) {
      const reg = await fetch(`${base}/api/auth/register`, { method: 'POST', headers: json(), body: JSON.stringify({ username, password: STAFF_PASSWORD }) });
      const { user } = await reg.json();
      await fetch(`${base}/api/admin/users/${user.id}`, { method: 'PATCH', headers: json({ 'X-Admin-Key': adminKey }), body: JSON.stringify({ role: 'admin' }) });
    }
    /** Signs in and returns the cookies the browser would keep, for context.addCookies(). */
    async function signIn(username) {
      const res = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: json(), body: JSON.stringify({ username, password: STAFF_PASSWORD }) });
      if (res.status !== 200) throw new Error(`signing in ${username} answered ${res.status}`);
      return res.headers.getSetCookie().map((line) => {
        const [pair] = line.split(';');
        const i = pair.indexOf('=');
        return { name: pair.slice(0, i).trim(), value: pair.slice(i + 1).trim(), url: base, sameSite: 'Strict' };
      });
    }
    const cookieHeader = (cookies) => cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    await adminAccount('ModeratorMia');
    const staffCookies = await signIn('ModeratorMia');
    await adminAccount('AdminAlex');
    const alexCookies = await signIn('AdminAlex');
    const started = await (await fetch(`${base}/api/account/second-factors/totp`, { method: 'POST', headers: json({ Cookie: cookieHeader(alexCookies) }), body: '{}' })).json();
    const confirmed = await fetch(`${base}/api/account/second-factors/totp/confirm`, {
      method: 'POST',
      headers: json({ Cookie: cookieHeader(alexCookies) }),
      body: JSON.stringify({ code: totp(started.secret, stepNow()) }),
    });
    if (!confirmed.ok) throw new Error(`setting up AdminAlex's authenticator answered ${confirmed.status}`);
    const { pages, publicApiKey } = await api('/api/site');
    const routes = [...pages.map((p) => p.path), '/no-such-page'];

    // A fan following three players (one of whom then earns every ELC badge: new on /account) with a Discord
    // webhook saved (the fake took its test message).
    await fetch(`${base}/api/auth/register`, { method: 'POST', headers: json(), body: JSON.stringify({ username: 'FanFinn13', password: STAFF_PASSWORD }) });
    const fanCookies = await signIn('FanFinn13');
    const asFan = (extra = {}) => json({ Cookie: cookieHeader(fanCookies), ...extra });
    const RISING = 'MidRocket';
    for (const name of [RISING, FAKE.veteran, FAKE.newgen]) {
      const checked = await (await fetch(`${base}/api/newgen-check/${name}`, { headers: { 'X-API-Key': publicApiKey } })).json();
      const followed = await fetch(`${base}/api/account/follows`, { method: 'POST', headers: asFan(), body: JSON.stringify({ userId: checked.userId }) });
      if (!followed.ok) throw new Error(`following ${name} answered ${followed.status}`);
    }
    const hooked = await fetch(`${base}/api/account/alerts`, {
      method: 'PUT',
      headers: asFan(),
      body: JSON.stringify({ url: 'https://discord.com/api/webhooks/123456789012345678/FanFinnWebhookToken_abcdefghijklmnopqrstuvwxyz', kinds: ['elc_badge', 'name'] }),
    });
    if (!hooked.ok) throw new Error(`saving the webhook answered ${hooked.status}: ${await hooked.text()}`);
    await setFakeModes(roblox.match[1], { elcOwners: [RISING.toLowerCase()] });
    for (let waited = 0; ; waited += 500) {
      const list = await (await fetch(`${base}/api/account/follows`, { headers: asFan() })).json();
      if (list.follows.some((f) => f.newEvents.some((e) => e.kind === 'elc_badge'))) break;
      if (waited > 60_000) throw new Error(`${RISING}'s new badges were not noticed within a minute`);
      await new Promise((r) => setTimeout(r, 500));
    }

    /** A page at `width` in `theme`, the once-a-session fullscreen roll made, Roblox's CDN answered locally. */
    async function open(width, theme, pathname, { cookies, fullscreen = false, setup } = {}) {
      const context = await browser.newContext({
        ...WIDTHS[width],
        baseURL: base,
        locale: 'en-US',
        timezoneId: 'UTC',
        reducedMotion: 'reduce',
        colorScheme: theme,
      });
      await context.route(FAKE.cdn, (route) => route.fulfill({ status: 404, body: '' }));
      if (cookies) await context.addCookies(cookies);
      if (!fullscreen) await context.addInitScript(() => sessionStorage.setItem('fanhub_fullscreen_ad', 'skipped'));
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      trackRequests(page);
      if (setup) await setup(page);
      await page.goto(pathname, { waitUntil: 'load' }).catch(() => {});
      await page.locator('main h1').first().waitFor({ state: 'visible' }).catch(() => {});
      await settled(page).catch(() => {});
      return page;
    }

    async function shot(page, name, width, theme, { fullPage = true } = {}) {
      const file = path.join(OUT, `${name}-${width}-${theme}.png`);
      if (only && !file.includes(only)) return;
      // Lazy pictures below the fold: scroll them in so the full-page picture shows them.
      await page.evaluate(async () => {
        for (const img of document.querySelectorAll('img[loading="lazy"]')) img.loading = 'eager';
        await Promise.all(Array.from(document.images).map((i) => (i.complete ? null : new Promise((r) => ((i.onload = r), (i.onerror = r))))));
      });
      await page.mouse.move(0, 0);
      await page.screenshot({ path: file, fullPage });
      written.push(file);
    }

    const slug = (p) => (p === '/' ? 'home' : p.slice(1).replace(/[^a-z0-9]+/gi, '-'));

    for (const width of SHOWN_WIDTHS) {
      for (const theme of THEMES) {
        for (const route of routes) {
          const page = await open(width, theme, route);
          await shot(page, `route-${slug(route)}`, width, theme);
          await page.context().close();
        }

        // Player results from the fake Roblox.
        let page = await open(width, theme, '/newgen-detector');
        await page.getByLabel('Roblox username').fill(FAKE.veteran);
        await page.getByRole('button', { name: 'Analyze Player' }).click();
        await page.getByTestId('newgen-result').waitFor({ state: 'visible' }).catch(() => {});
        await shot(page, 'state-newgen-result', width, theme);
        await page.context().close();

        // A result seen by a signed-in fan: Follow, and the player's history (its first 5 changes, then Show all).
        page = await open(width, theme, `/newgen-detector?username=${FAKE.manyElc}`, { cookies: fanCookies });
        await page.getByTestId('player-history').waitFor({ state: 'visible' }).catch(() => {});
        await page.getByRole('button', { name: `Follow ${FAKE.manyElc}` }).waitFor({ state: 'visible' }).catch(() => {});
        await settled(page).catch(() => {});
        await shot(page, 'state-newgen-follow', width, theme);
        await page.context().close();

        // The fan's account page: the followed players (one with new changes) and the saved webhook. The "seen" call
        // is answered here, so every picture shows the changes as new.
        page = await open(width, theme, '/account', {
          cookies: fanCookies,
          setup: (p) => p.route('**/api/account/follows/seen', (route) => route.fulfill({ status: 204, body: '' })),
        });
        await page.getByTestId('new-events').first().waitFor({ state: 'visible' }).catch(() => {});
        await page.getByTestId('saved-webhook').waitFor({ state: 'visible' }).catch(() => {});
        await shot(page, 'state-account-follows', width, theme);
        await page.context().close();

        // The badge monitor over a year: a year of days written into the database before the page opens
        // (the look of a site that has run that long; a fresh one has today only).
        if (width === SHOWN_WIDTHS[0] && theme === THEMES[0]) seedBadgeYear(dataDir);
        page = await open(width, theme, '/badge-monitor');
        await page.getByRole('button', { name: '1 year' }).click().catch(() => {});
        await page.getByTestId('history-chart').first().waitFor({ state: 'visible' }).catch(() => {});
        await shot(page, 'state-badge-year', width, theme);
        await page.context().close();

        // A guide open.
        page = await open(width, theme, '/guides');
        // "Read more" opens the reading view (and puts ?guide=ID in the address).
        await page.getByRole('button', { name: /^Read more/ }).first().click().catch(() => {});
        await page.getByRole('dialog').first().waitFor({ state: 'visible' }).catch(() => {});
        await shot(page, 'state-guide-open', width, theme, { fullPage: false });
        await page.context().close();

        // The phone drawer.
        if (width === '390') {
          page = await open(width, theme, '/');
          await page.getByRole('button', { name: 'Open menu' }).click();
          await page.getByRole('dialog', { name: 'Menu' }).waitFor({ state: 'visible' });
          await shot(page, 'state-drawer', width, theme, { fullPage: false });
          await page.context().close();
        }

        // Every admin tab.
        page = await open(width, theme, '/admin', { cookies: adminCookies });
        const tabs = page.getByRole('tab');
        await tabs.first().waitFor({ state: 'visible' }).catch(() => {});
        const count = await tabs.count();
        for (let i = 0; i < count; i++) {
          const tab = tabs.nth(i);
          const id = (await tab.getAttribute('data-tab')) || String(i);
          await tab.click();
          await settled(page).catch(() => {});
          await shot(page, `admin-${id}`, width, theme);
        }
        await page.context().close();

        // The Users tab with an account whose sign-ins are held back (the server's own answer, with the
        // first account marked as the throttle would: the real state lasts seconds after 5 failures).
        // A real account to mark (a second registration of the name answers 409, which is fine).
        await fetch(`${base}/api/auth/register`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Origin: base },
          body: JSON.stringify({ username: 'BlockFan13', password: 'a long enough password' }),
        });
        page = await open(width, theme, '/admin', { cookies: adminCookies });
        await page.route('**/api/admin/users', async (route) => {
          const res = await route.fetch();
          const body = await res.json();
          const first = body.users[0];
          body.throttled = first ? [{ userId: first.id, username: first.username, failedSignIns: 9, retryAfterSeconds: 75 }] : [];
          await route.fulfill({ response: res, json: body });
        });
        await page.locator('[data-tab="users"]').click();
        await settled(page).catch(() => {});
        await shot(page, 'state-admin-users-held-back', width, theme);
        await page.context().close();

        // An admin's account page: password only, an authenticator being set up, the recovery codes shown once.
        page = await open(width, theme, '/account', { cookies: staffCookies });
        await page.getByTestId('second-factors').waitFor({ state: 'visible' }).catch(() => {});
        await shot(page, 'state-account', width, theme);
        await page.getByRole('button', { name: 'Set up', exact: true }).click();
        const secretText = page.getByTestId('totp-secret');
        await secretText.waitFor({ state: 'visible' });
        await shot(page, 'state-account-totp-setup', width, theme);
        await page.getByLabel('6-digit code from the app', { exact: true }).fill(totp((await secretText.innerText()).replace(/\s+/g, ''), stepNow()));
        await page.getByRole('button', { name: 'Turn on', exact: true }).click();
        await page.getByTestId('recovery-codes').waitFor({ state: 'visible' });
        await page.waitForTimeout(400);
        await shot(page, 'state-account-recovery-codes', width, theme);
        await page.context().close();
        const removed = await fetch(`${base}/api/account/second-factors/remove`, {
          method: 'POST',
          headers: json({ Cookie: cookieHeader(staffCookies) }),
          body: JSON.stringify({ method: 'totp', password: STAFF_PASSWORD }),
        });
        if (!removed.ok) throw new Error(`removing the authenticator answered ${removed.status}`);

        // The second step of signing in.
        page = await open(width, theme, '/login');
        await page.getByLabel('Username', { exact: true }).fill('AdminAlex');
        await page.getByLabel('Password', { exact: true }).fill(STAFF_PASSWORD);
        await page.locator('main form').getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { name: 'One more step' }).waitFor({ state: 'visible' });
        await shot(page, 'state-login-second-step', width, theme);
        await page.context().close();
      }
    }

    // An active sponsored banner with a wide picture: submitted, approved, then the home page and the full-screen ad.
    const form = new FormData();
    form.append('websiteUrl', 'https://blocks-shop.example.com/');
    form.append('adDescription', 'Hand-made block packs for builders: castles, towers, bridges and whole market streets, ready to place.');
    form.append('targetAudience', 'game-developers');
    form.append('duration', '10-fullscreen');
    form.append('links', JSON.stringify(['https://video.example.com/watch/blocks', 'https://store.example.com/packs']));
    form.append('image', new Blob([stripedPng(1200, 240, [10, 95, 115], [250, 200, 40])], { type: 'image/png' }), 'wide.png');
    form.append('premiumFullscreen', 'true');
    form.append('fullscreenMessageType', 'user-input');
    form.append('fullscreenCustomMessage', 'Build your dream castle today!');
    const submitted = await api('/api/advertise', { method: 'POST', body: form, headers: { Origin: base } });
    const approve = await fetch(`${base}/api/admin/advertisements/${submitted.id}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', 'X-Admin-Key': adminKey, Origin: base },
      body: JSON.stringify({ status: 'approved' }),
    });
    if (!approve.ok) throw new Error(`approving the ad answered ${approve.status}: ${await approve.text()}`);
    for (const width of SHOWN_WIDTHS) {
      for (const theme of THEMES) {
        const page = await open(width, theme, '/');
        await shot(page, 'state-banner', width, theme, { fullPage: false });
        const test = page.getByRole('button', { name: 'Test Full-Screen' });
        if (await test.count()) {
          await test.click();
          await page.getByRole('dialog').first().waitFor({ state: 'visible' }).catch(() => {});
          await shot(page, 'state-fullscreen-ad', width, theme, { fullPage: false });
        }
        await page.context().close();
      }
    }
  } finally {
    await browser.close().catch(() => {});
    await server.stop().catch(() => {});
    await roblox.stop().catch(() => {});
    await discord.stop().catch(() => {});
    site.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`${written.length} screenshots in ${OUT}`);
}

await main();

/** Writes 365 days of figures for every badge the monitor holds, ending yesterday (a poll writes today). */
function seedBadgeYear(dataDir) {
  const script = `
import sqlite3, sys, math, datetime
db = sqlite3.connect(sys.argv[1])
ids = [r[0] for r in db.execute("SELECT badge_id FROM badge_info")]
today = datetime.datetime.now(datetime.timezone.utc).date()
for n, badge in enumerate(ids):
    total = 100000 * (n + 1)
    for back in range(365, 0, -1):
        day = today - datetime.timedelta(days=back)
        awarded = int(400 + 250 * math.sin(back / 9 + n) + (2500 if back == 40 + 11 * n else 0))
        total += awarded
        db.execute("INSERT OR REPLACE INTO badge_days (badge_id, day, awarded, total, taken_at) VALUES (?, ?, ?, ?, 0)", (badge, day.isoformat(), awarded, total))
db.commit()
`;
  execFileSync('python3', ['-c', script, path.join(dataDir, 'fanhub.db')]);
}
