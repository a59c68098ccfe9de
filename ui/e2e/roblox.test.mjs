// The Roblox lookup pages on desktop and phone, against the real server and the fake Roblox
// (examples/fake_roblox.rs, built with `cargo build --release --example fake_roblox`): /newgen-detector (veteran,
// newgen, unknown user, bad username, Roblox down, award dates refused), /discord-bot-api (analyze vs quick check,
// Enter, first 5 ELC badges + the rest), /badge-monitor (the server's figures, search, Refresh, Auto Refresh, stale
// marking, image fallback) and the API docs' newgen test and Group Scanning (a scan started from the form, its bar
// followed to 100%). Every figure on the page is compared with what the server answers for the same call.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, VIEWPORT_NAMES, exampleBin, visible, hidden, eventually, hasText } from './harness.mjs';
import { adminSessionCookies, assertNoHorizontalOverflow, dismissToasts, expectToast, failedLoad } from './admin-helpers.mjs';
import { axeViolations, assertClean } from './axe.mjs';
import { FAKE, setFakeModes, siteFile } from './roblox-fake.mjs';

const EXPECTED_ERRORS = [failedLoad(400, 404, 502, 503, 504)];
// The fake's thumbnails are Roblox CDN URLs; the suite answers them 404 (so images fall back to the placeholder).
const CDN_MISS = failedLoad(404);
const GENERATIONS = ['VETERAN', 'OLDGEN', 'MIDGEN', 'NEWGEN'];
const RARITIES = ['impossible', 'insane', 'extremely hard', 'hard', 'medium', 'easy'];

function fakeRoblox(extraServerEnv = {}) {
  return {
    name: 'roblox',
    command: () => exampleBin('fake_roblox'),
    ready: FAKE.ready,
    serverEnv: (m) => ({ FANHUB_ROBLOX_API: FAKE.template(m[1]), ...extraServerEnv }),
  };
}

/** Opens a page with the Roblox CDN answered locally (404), plus any other setup. */
function openRoblox(env, vp, pathname, setup) {
  return env.open(vp, pathname, {
    setup: async (page, context) => {
      await context.route(FAKE.cdn, (route) => route.fulfill({ status: 404, body: '' }));
      if (setup) await setup(page, context);
    },
  });
}

/** The monitor's answer once the poller has measured the badges, and the page refreshed to show them. */
async function measuredMonitor(env, page) {
  const api = await eventually(async () => {
    const a = await env.api('/api/badge-monitor');
    assert.ok(a.lastUpdated && a.badges.length > 0, 'the poller has measured the badges');
    return a;
  }, { timeout: 15_000 });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await eventually(async () => assert.equal(await page.getByTestId('badge-card').count(), api.badges.length));
  return api;
}

/** GET with the site's public key, as the page sends it. */
async function newgenApi(env, username) {
  const site = await env.api('/api/site');
  const res = await env.fetch(`/api/newgen-check/${encodeURIComponent(username)}`, { headers: { 'X-API-Key': site.publicApiKey } });
  return { status: res.status, body: await res.json() };
}

async function analyze(page, username) {
  await page.getByLabel('Roblox username').fill(username);
  await page.getByRole('button', { name: 'Analyze Player' }).click();
}

/** axe-core on the page as it stands (the pointer moved off the buttons first: hover colours are not the state checked). */
async function axeClean(page, where) {
  await page.mouse.move(0, 400);
  assertClean(await axeViolations(page), where);
}

const dayOf = (page, iso) =>
  page.evaluate((d) => new Date(d).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }), iso);

describe('roblox pages (fake Roblox, with a cookie: award dates readable)', () => {
  // One poll at start, then none during the suite: the fake's figures grow with every call.
  const site = siteFile(3600);
  after(site.cleanup);
  const env = useSuite({ serverArgs: ['--site', site.file], services: [fakeRoblox({ FANHUB_ROBLOX_COOKIE: FAKE.cookie })] });

  for (const vp of VIEWPORT_NAMES) {
    it(`newgen detector: a veteran, every field from the server, the key's usage counting up (${vp})`, async () => {
      const page = await openRoblox(env, vp, '/newgen-detector');
      const button = page.getByRole('button', { name: 'Analyze Player' });
      assert.equal(await button.isDisabled(), true, 'disabled while the input is empty');
      await page.getByLabel('Roblox username').fill('   ');
      assert.equal(await button.isDisabled(), true, 'disabled for blanks');

      await analyze(page, `  ${FAKE.veteran}  `);
      await expectToast(page, 'Analysis Complete');
      const result = page.getByTestId('newgen-result');
      await visible(result);
      const { body: api } = await newgenApi(env, FAKE.veteran);
      const text = async (id) => (await result.getByTestId(id).innerText()).trim();
      assert.equal(await text('username'), api.username);
      assert.equal(await text('user-id'), String(api.userId));
      // the API answers a documented code; people see the site's name for its era
      assert.ok(GENERATIONS.includes(api.generation), api.generation);
      assert.equal(await text('generation'), api.generationLabel);
      assert.equal(await result.getByTestId('generation').getAttribute('data-generation'), api.generation);
      assert.ok((await text('join-date')).startsWith(`${await dayOf(page, api.joinDate)} (`), 'the join date in words, then its age');
      assert.match(await text('account-age'), new RegExp(`^${api.accountAge.toLocaleString('en-US')} days`));
      assert.equal(await text('elc-count'), `${api.elcBadges.count} of ${api.elcBadges.total}`);
      assert.equal(await text('classification'), api.classification);
      assert.equal(await text('confidence'), `, ${api.confidence}% confidence`);
      assert.equal(api.isVeteran, true, 'the fake veteran is classified a veteran');
      assert.equal(await result.getByTestId('verified').count(), api.hasVerifiedBadge ? 1 : 0);
      assert.notEqual(api.displayName, api.username, 'the fake gives the veteran a display name of its own');
      assert.equal(await text('display-name'), api.displayName);
      const rows = await result.getByTestId('elc-badge').allInnerTexts();
      assert.equal(rows.length, api.elcBadges.badges.length);
      assert.ok(rows.length > 0, 'the veteran owns ELC badges');
      for (const [i, b] of api.elcBadges.badges.entries()) {
        assert.ok(rows[i].includes(b.name) && rows[i].includes(String(b.badgeId)), `row ${i}: ${rows[i]}`);
        assert.ok(rows[i].includes(await dayOf(page, b.awardedDate)), `row ${i} date`);
      }
      assert.equal(await text('key-name'), api.apiKey.name);
      // the page's check and ours both counted: the page showed one less than our later call
      assert.equal(await text('key-requests'), (api.apiKey.requests - 1).toLocaleString('en-US'));
      // the avatar: the fake's CDN URL answers 404 here, so the placeholder shows
      await eventually(async () => assert.equal(await result.getByTestId('avatar').getAttribute('data-fallback'), 'placeholder'));
      await assertNoHorizontalOverflow(page);
      await axeClean(page, `newgen result (${vp})`);
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS] });
    });

    it(`newgen detector: a newgen, an unknown user (404) and a bad username (400) (${vp})`, async () => {
      const page = await openRoblox(env, vp, '/newgen-detector');
      await analyze(page, FAKE.newgen);
      await visible(page.getByTestId('newgen-result'));
      const { body: api } = await newgenApi(env, FAKE.newgen);
      assert.equal(api.isNewgen, true);
      assert.equal(api.generation, 'NEWGEN');
      assert.equal((await page.getByTestId('generation').innerText()).trim(), api.generationLabel);
      await dismissToasts(page);

      const unknown = await newgenApi(env, FAKE.unknown);
      assert.equal(unknown.status, 404);
      await analyze(page, FAKE.unknown);
      await expectToast(page, 'Analysis Failed', { description: unknown.body.error, destructive: true });
      assert.equal((await page.getByTestId('newgen-error').innerText()).trim(), `Analysis Failed: ${unknown.body.error}`);
      assert.equal(await page.getByTestId('newgen-result').count(), 0, 'the earlier result is gone');
      await dismissToasts(page);

      // a name Roblox refuses: the server answers 400, and the page says why without asking it
      const bad = await newgenApi(env, FAKE.badUsername);
      assert.equal(bad.status, 400);
      const asked = [];
      page.on('request', (r) => new URL(r.url()).pathname.startsWith('/api/newgen-check/') && asked.push(r.url()));
      await analyze(page, FAKE.badUsername);
      const problem = page.getByTestId('username-problem');
      await visible(problem);
      assert.ok((await problem.innerText()).includes(bad.body.message), `the server's own sentence: ${bad.body.message}`);
      assert.equal(asked.length, 0, 'nothing sent for a name Roblox refuses');
      env.assertNoConsoleErrors(page, { allow: [...EXPECTED_ERRORS, CDN_MISS] });
    });

    it(`bot page: Enter analyzes (first 5 ELC badges + the rest), Quick Check replaces it, and back (${vp})`, async () => {
      const page = await openRoblox(env, vp, '/discord-bot-api');
      assert.equal(await page.getByTestId('bot-endpoints').locator('li').count(), 3);
      const input = page.getByLabel('Roblox username');
      await input.fill(FAKE.manyElc);
      await input.press('Enter');
      const analysis = page.getByTestId('analysis-result');
      await visible(analysis);
      const api = await env.api(`/api/discord-bot/analyze/${FAKE.manyElc}`);
      const shown = await analysis.getByTestId('elc-badge').count();
      assert.equal(shown, Math.min(5, api.badges.elcBadges.length));
      assert.ok(api.badges.elcBadges.length > 5, 'the fake player has more than 5 ELC badges');
      assert.equal((await analysis.getByTestId('elc-more').innerText()).trim(), `and ${api.badges.elcBadges.length - 5} more`);
      assert.equal((await analysis.getByTestId('confidence').innerText()).trim(), `${api.status.confidence}%`);
      assert.equal((await analysis.getByTestId('classification').innerText()).trim(), api.status.classification);

      await axeClean(page, `bot analysis (${vp})`);
      await page.getByRole('button', { name: 'Quick Check' }).click();
      const check = page.getByTestId('check-result');
      await visible(check);
      await hidden(analysis);
      await axeClean(page, `bot quick check (${vp})`);
      const quick = await env.api(`/api/discord-bot/check/${FAKE.manyElc}`);
      assert.equal((await check.getByTestId('total-badges').innerText()).trim(), String(quick.totalBadgeCount));
      assert.equal((await check.getByTestId('elc-count').innerText()).trim(), String(quick.elcBadgeCount));
      assert.ok(quick.earliestBadge, 'the server names the earliest ELC badge of a player who owns them');
      assert.ok((await check.getByTestId('earliest-badge').innerText()).includes(quick.earliestBadge.name));

      await page.getByRole('button', { name: 'Analyze' }).click();
      await visible(analysis);
      await hidden(check);

      // an unknown user: the server's {error, message} in the result place
      const res = await env.fetch(`/api/discord-bot/check/${FAKE.unknown}`);
      const err = await res.json();
      assert.equal(res.status, 404);
      await input.fill(FAKE.unknown);
      await page.getByRole('button', { name: 'Quick Check' }).click();
      await eventually(async () => assert.equal((await page.getByTestId('bot-error-title').innerText()).trim(), err.error));
      await hidden(analysis);
      await assertNoHorizontalOverflow(page);
      await axeClean(page, `bot error result (${vp})`);
      env.assertNoConsoleErrors(page, { allow: [...EXPECTED_ERRORS, CDN_MISS] });
    });

    it(`badge monitor: the server's figures, search, Refresh, Auto Refresh ON then OFF (${vp})`, async () => {
      const monitorCalls = [];
      const page = await openRoblox(env, vp, '/badge-monitor', async (p) => {
        await p.clock.install();
        p.on('request', (r) => new URL(r.url()).pathname === '/api/badge-monitor' && monitorCalls.push(r.url()));
      });
      const api = await measuredMonitor(env, page);
      assert.equal((await page.getByTestId('total-tracked').innerText()).trim(), String(api.totalTracked));
      assert.equal((await page.getByTestId('most-popular').innerText()).trim(), api.globalStats.mostPopular);
      assert.equal((await page.getByTestId('rarest').innerText()).trim(), api.globalStats.rarest);
      await hasText(page, 'Last updated:');
      const first = api.badges[0];
      const card = page.locator(`[data-testid="badge-card"][data-badge-id="${first.badgeId}"]`);
      assert.ok((await card.innerText()).includes(`ID: ${first.badgeId}`));
      assert.ok(RARITIES.includes(first.rarity), `a documented rarity level: ${first.rarity}`);
      assert.equal((await card.getByTestId('rarity').innerText()).trim().toLowerCase(), first.rarity);
      assert.equal(await card.getByTestId('rarity').getAttribute('title'), `Roblox: ${first.difficulty}`);
      const abbreviate = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1000 ? `${Number.isInteger(n / 1000) ? n / 1000 : (n / 1000).toFixed(1)}K` : String(n));
      assert.equal((await card.getByTestId('figure-Total awarded').innerText()).trim(), abbreviate(first.awardedCount));
      assert.equal((await card.getByTestId('figure-Today').innerText()).trim(), abbreviate(first.dailyStats.today));
      assert.ok(first.history.length > 0, 'the first poll recorded a history point');
      // A fresh server has recorded one day: the card says since when instead of one bar on a 7-day axis,
      // and the weekly average is not known yet (not the day's own figure again).
      assert.equal(new Set(first.history.map((h) => h.date)).size, 1, 'one day of history');
      const since = card.getByTestId('history-since');
      await visible(since);
      const day = new Date(`${first.history[0].date}T00:00:00Z`).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
      assert.match(await since.innerText(), new RegExp(`^Recording since ${day}: `));
      assert.equal(await card.getByTestId('history-chart').count(), 0, 'no chart for one day');
      assert.match((await card.getByTestId('figure-Weekly avg').innerText()).trim(), /^Not yet/);
      await axeClean(page, `badge monitor (${vp})`);

      // search: exactly the badges whose name or description holds the words, in any case, in the server's order
      const search = page.getByLabel('Search badges');
      const shownIds = () => page.getByTestId('badge-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-badge-id')));
      const matching = (q) =>
        api.badges.filter((b) => `${b.name}\n${b.description}`.toLowerCase().includes(q.toLowerCase())).map((b) => String(b.badgeId));
      const target = api.badges[api.badges.length - 1];
      // the last two digits of the first id: with the fake's names ("Badge <id>") some of the badges but not all
      const some = String(api.badges[0].badgeId).slice(-2);
      for (const query of [target.name.toUpperCase(), some, target.description.split(' ').slice(0, 3).join(' ')]) {
        const expected = matching(query);
        assert.ok(expected.length > 0, `"${query}" matches a badge of the fake`);
        await search.fill(query);
        await eventually(async () => assert.deepEqual(await shownIds(), expected, `search "${query}"`));
        assert.equal(await page.getByTestId('no-match').count(), 0);
      }
      assert.ok(matching(some).length < api.badges.length, `"${some}" leaves some badges out`);
      await search.fill('no badge is called this');
      await visible(page.getByTestId('no-match'));
      assert.equal(await page.getByTestId('badge-card').count(), 0, 'no card for a query that matches nothing');
      await search.fill('');
      await eventually(async () => assert.deepEqual(await shownIds(), api.badges.map((b) => String(b.badgeId))));

      // Auto Refresh ON by default: 30 s later the page asks again
      assert.equal((await page.getByTestId('auto-refresh-state').innerText()).trim(), 'ON');
      let before = monitorCalls.length;
      await page.clock.fastForward(31_000);
      await eventually(async () => assert.ok(monitorCalls.length > before, 'polled after 30 s'));
      // OFF: no more polling
      await page.getByRole('switch', { name: /Auto Refresh/ }).click();
      assert.equal((await page.getByTestId('auto-refresh-state').innerText()).trim(), 'OFF');
      await new Promise((r) => setTimeout(r, 300)); // a poll the fast-forward started may still be on its way
      before = monitorCalls.length;
      await page.clock.fastForward(95_000);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(monitorCalls.length, before, 'no polling while Auto Refresh is OFF');
      // Refresh still works
      await page.getByRole('button', { name: 'Refresh' }).click();
      await eventually(async () => assert.equal(monitorCalls.length, before + 1));
      await assertNoHorizontalOverflow(page);
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS] });
    });

    it(`badge monitor: a longer range asks the server for its days; the CSV downloads (${vp})`, async () => {
      const historyCalls = [];
      const page = await openRoblox(env, vp, '/badge-monitor', async (p) => {
        p.on('request', (r) => new URL(r.url()).pathname === '/api/badge-monitor/history' && historyCalls.push(new URL(r.url()).search));
      });
      const api = await measuredMonitor(env, page);
      assert.deepEqual(historyCalls, [], '7 days come with the monitor itself');
      const week = page.getByRole('button', { name: '7 days' });
      assert.equal(await week.getAttribute('aria-pressed'), 'true');

      await page.getByRole('button', { name: '1 year' }).click();
      await eventually(async () => assert.deepEqual(historyCalls, ['?days=365']));
      const history = await env.api('/api/badge-monitor/history?days=365');
      const first = history.badges[0];
      assert.equal(first.badgeId, api.badges[0].badgeId);
      assert.equal(first.days.length, 1, 'a fresh server has recorded today');
      const card = page.locator(`[data-testid="badge-card"][data-badge-id="${first.badgeId}"]`);
      const day = new Date(`${first.days[0].date}T00:00:00Z`).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
      await eventually(async () => assert.match(await card.getByTestId('history-since').innerText(), new RegExp(`^Recording since ${day}: `)));
      await axeClean(page, `badge monitor, one year (${vp})`);
      await assertNoHorizontalOverflow(page);

      const link = page.getByTestId('download-history');
      assert.equal(await link.getAttribute('href'), '/api/badge-monitor/history?days=365&format=csv');
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.match(download.suggestedFilename(), /^badge-history-365d-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = await (await env.fetch('/api/badge-monitor/history?days=365&format=csv')).text();
      const lines = csv.trim().split('\r\n');
      assert.equal(lines[0], 'badge_id,badge_name,date,awarded_past_day,awarded_total');
      assert.equal(lines.length, 1 + history.badges.reduce((n, b) => n + b.days.length, 0), 'a row per badge and day');
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS] });
    });

    it(`badge monitor: the image falls back through two alternatives, then the placeholder (${vp})`, async () => {
      const page = await openRoblox(env, vp, '/badge-monitor', async (p) => {
          // Rewrite the server's answer so the first badge's image and first alternative fail and the second loads;
          // the second badge's three sources all fail.
          await p.route('**/api/badge-monitor', async (route) => {
            const res = await route.fetch();
            const body = await res.json();
            body.badges[0].imageUrl = 'https://img.e2e.invalid/a.png';
            body.badges[0].imageFallbacks = ['https://img.e2e.invalid/b.png', 'https://img.e2e.invalid/ok.png'];
            if (body.badges[1]) {
              body.badges[1].imageUrl = 'https://img.e2e.invalid/c.png';
              body.badges[1].imageFallbacks = ['https://img.e2e.invalid/d.png', 'https://img.e2e.invalid/e.png'];
            }
            await route.fulfill({ response: res, json: body });
          });
          await p.route('https://img.e2e.invalid/**', (route) =>
            route.request().url().endsWith('/ok.png')
              ? route.fulfill({ status: 200, contentType: 'image/png', body: PNG_1X1 })
              : route.fulfill({ status: 404, body: '' }),
          );
      });
      const images = page.getByTestId('badge-image');
      await eventually(async () => {
        assert.equal(await images.nth(0).getAttribute('data-fallback'), '2');
        assert.equal(await images.nth(0).locator('img').getAttribute('src'), 'https://img.e2e.invalid/ok.png');
        assert.equal(await images.nth(0).getAttribute('data-loaded'), 'true');
      });
      await eventually(async () => assert.ok((await images.count()) > 1, 'a second badge, whose three sources all fail'));
      await eventually(async () => assert.equal(await images.nth(1).getAttribute('data-fallback'), 'placeholder'));
      assert.equal(await images.nth(1).getAttribute('role'), 'img');
      assert.equal(await images.nth(1).locator('img').count(), 0, 'no broken image left, so no alt text drawn');
      env.assertNoConsoleErrors(page, { allow: [failedLoad(404), CDN_MISS] });
    });

    it(`API docs Testing: the newgen test form calls with the key shown (${vp})`, async () => {
      const page = await openRoblox(env, vp, '/api-docs#testing');
      const panel = page.getByRole('tabpanel');
      await panel.getByRole('button', { name: 'Check player' }).click();
      await eventually(async () => assert.equal((await panel.getByRole('alert').innerText()).trim(), 'Please enter both username and API key'));
      await panel.getByLabel('Roblox username').fill(FAKE.veteran);
      await panel.getByRole('button', { name: 'Check player' }).click();
      const result = page.getByTestId('newgen-test-result');
      await visible(result);
      const { body: api } = await newgenApi(env, FAKE.veteran);
      assert.ok((await result.innerText()).includes(`${api.username}: ${api.classification} (${api.generationLabel})`));
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS] });
    });
  }
});

describe('roblox pages (fake Roblox, no cookie: award dates refused; then Roblox down)', () => {
  // Polled every second: stale 2 intervals after Roblox goes down.
  const site = siteFile(1);
  after(site.cleanup);
  const env = useSuite({ serverArgs: ['--site', site.file], services: [fakeRoblox()] });

  for (const vp of VIEWPORT_NAMES) {
    it(`newgen detector and bot page say plainly that award dates are unavailable, and why (${vp})`, async () => {
      const page = await openRoblox(env, vp, '/newgen-detector');
      await analyze(page, FAKE.veteran);
      const note = page.getByTestId('award-dates-unavailable');
      await visible(note);
      const { body: api } = await newgenApi(env, FAKE.veteran);
      assert.equal(api.elcBadges.available, false);
      assert.ok((await note.innerText()).includes(api.elcBadges.unavailableReason), 'the server says why');
      assert.equal((await page.getByTestId('elc-count').innerText()).trim(), 'Not shown by Roblox');
      assert.equal(await page.getByTestId('elc-badge').count(), 0);
      await axeClean(page, `award dates unavailable (${vp})`);

      await page.goto('/discord-bot-api');
      await page.getByLabel('Roblox username').fill(FAKE.veteran);
      await page.getByLabel('Roblox username').press('Enter');
      await visible(page.getByTestId('analysis-result').getByTestId('award-dates-unavailable'));
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS] });
    });

    it(`API docs Group Scanning: the form starts a scan and its bar follows it to 100% (${vp})`, async () => {
      // Without a cookie each member still costs an award-date call (refused), and scans get half
      // of that endpoint's 8 a minute: a small group finishes within the minute.
      await setFakeModes(env.services.roblox.url, { memberCount: 2 });
      const groupId = String(880_000 + VIEWPORT_NAMES.indexOf(vp));
      const page = await openRoblox(env, vp, '/api-docs#group-scanning');
      const panel = page.getByRole('tabpanel');
      await panel.getByRole('button', { name: 'Start scan' }).click();
      await eventually(async () => assert.equal((await panel.getByRole('alert').innerText()).trim(), 'Enter a Roblox group id (a whole number)'));
      await panel.getByLabel('Group id').fill(groupId);
      await panel.getByLabel('Scanned by').fill(`e2e ${vp}`);
      await panel.getByRole('button', { name: 'Start scan' }).click();
      const bar = panel.getByRole('progressbar', { name: 'Scan progress' });
      await visible(bar);
      await eventually(async () => assert.equal(await bar.getAttribute('aria-valuenow'), '100'), { timeout: 65_000 });
      await eventually(async () => assert.equal((await panel.getByTestId('scan-state').innerText()).trim(), 'completed'));
      // Every figure is the server's own.
      const site = await env.api('/api/site');
      const { scans } = await env.api('/api/v1/all-scans', { headers: { 'X-API-Key': site.publicApiKey } });
      const scan = scans.find((s) => String(s.groupId) === groupId);
      assert.ok(scan, `the server lists the scan of group ${groupId}`);
      const status = (await env.api(`/api/v1/scan-status/${scan.id}`, { headers: { 'X-API-Key': site.publicApiKey } })).scan;
      assert.equal(status.state, 'completed');
      assert.equal(status.processed, 2);
      const figures = (await panel.getByTestId('scan-figures').innerText()).trim();
      assert.ok(figures.startsWith(`2 of 2 members (100%) · ${status.veterans} veterans · ${status.newgens} newgens`), figures);
      // Without a cookie the scan says once why it classifies by join date.
      assert.ok(status.notice, 'the server states why award dates are missing');
      await hasText(page, status.notice);
      await axeClean(page, `group scan progress (${vp})`);
      await assertNoHorizontalOverflow(page);
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS] });
    });
  }

  it('Roblox down: the newgen and bot pages show the server error; the monitor keeps its figures, marked stale', async () => {
    // the monitor has figures before Roblox goes away
    await eventually(async () => assert.ok((await env.api('/api/badge-monitor')).lastUpdated), { timeout: 15_000 });
    await setFakeModes(env.services.roblox.url, { down: true });
    for (const vp of VIEWPORT_NAMES) {
      const page = await openRoblox(env, vp, '/newgen-detector');
      const name = `${FAKE.fresh}${vp}`; // never looked up: not in the server's cache
      const down = await newgenApi(env, name);
      assert.ok([502, 503, 504].includes(down.status), `Roblox down answers 502/503/504, got ${down.status}`);
      await analyze(page, name);
      await expectToast(page, 'Analysis Failed', { description: down.body.error, destructive: true });

      await page.goto('/discord-bot-api');
      await page.getByLabel('Roblox username').fill(`${name}x`);
      await page.getByRole('button', { name: 'Quick Check' }).click();
      await visible(page.getByTestId('bot-error'));

      await page.goto('/badge-monitor');
      const stale = await eventually(async () => {
        const a = await env.api('/api/badge-monitor');
        assert.equal(a.stale, true, 'the server marks its figures stale');
        return a;
      }, { timeout: 20_000 });
      await page.getByRole('button', { name: 'Refresh' }).click();
      await visible(page.getByTestId('stale-notice'));
      assert.ok((await page.getByTestId('last-updated').innerText()).includes('Stale'));
      assert.equal(await page.getByTestId('badge-card').count(), stale.badges.length, 'the last figures stay on screen');
      await visible(page.getByTestId('badge-stale'));
      await axeClean(page, `badge monitor, stale (${vp})`);
      env.assertNoConsoleErrors(page, { allow: [...EXPECTED_ERRORS, CDN_MISS] });
    }
  });
});

describe('roblox pages (fake Roblox, Open Cloud key: no cookie needed)', () => {
  const site = siteFile(60);
  after(site.cleanup);
  const env = useSuite({
    withDataDir: true,
    serverArgs: ['--site', site.file],
    services: [
      {
        ...fakeRoblox({ FANHUB_ROBLOX_OPEN_CLOUD_KEY: FAKE.openCloudKey }),
        serverEnv: (m) => ({ FANHUB_ROBLOX_API: FAKE.template(m[1]), FANHUB_ROBLOX_OPEN_CLOUD_API: m[1], FANHUB_ROBLOX_OPEN_CLOUD_KEY: FAKE.openCloudKey }),
      },
    ],
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`newgen detector: ELC award dates through Open Cloud, the sources named, a private inventory said plainly (${vp})`, async () => {
      const page = await openRoblox(env, vp, '/newgen-detector');
      await analyze(page, FAKE.veteran);
      const { body: api } = await newgenApi(env, FAKE.veteran);
      assert.deepEqual(api.robloxSources, { profile: 'openCloud', awardDates: 'openCloud' });
      assert.ok(api.elcBadges.count > 0);
      await eventually(async () => assert.ok((await page.getByTestId('elc-count').innerText()).includes(`${api.elcBadges.count} of ${api.elcBadges.total}`)));
      assert.equal(await page.getByTestId('elc-badge').count(), api.elcBadges.count);
      assert.equal((await page.getByTestId('roblox-sources').innerText()).trim(), 'Join date from Roblox Open Cloud; award dates from Roblox Open Cloud.');
      await axeClean(page, `Open Cloud result (${vp})`);

      await analyze(page, FAKE.privateInventory);
      const note = page.getByTestId('award-dates-unavailable');
      await visible(note);
      const { body: priv } = await newgenApi(env, FAKE.privateInventory);
      assert.equal(priv.elcBadges.unavailableCode, 'private');
      assert.ok((await note.innerText()).includes(priv.elcBadges.unavailableReason), 'the server says the inventory is private, and how to show it');
      assert.equal((await page.getByTestId('roblox-sources').innerText()).trim(), 'Join date from Roblox Open Cloud.');
      await assertNoHorizontalOverflow(page);
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS] });
    });
  }

  it('System Health names the Open Cloud key, the path of each kind of call and each budget (desktop)', async () => {
    const key = await env.adminKey('e2e open cloud');
    await newgenApi(env, FAKE.newgen);
    const { checks } = await (await env.fetch('/api/admin/health', { headers: { 'X-Admin-Key': key } })).json();
    const page = await env.open('desktop', '/admin');
    await page.context().addCookies(await adminSessionCookies(env, key));
    await page.goto('/admin');
    const tab = page.locator('[role="tab"][data-tab="settings"]');
    await tab.click();
    const panel = page.getByRole('tabpanel');
    for (const name of ['Roblox Open Cloud key', 'Roblox paths', 'Roblox budgets']) {
      const check = checks.find((c) => c.name === name);
      assert.ok(check, `the server has a ${name} check`);
      const row = panel.getByTestId('health-check').filter({ has: page.getByText(name, { exact: true }) });
      await visible(row);
      if (name !== 'Roblox budgets') assert.ok((await row.innerText()).includes(check.detail), `${name}: the server's words`);
    }
    assert.equal(checks.find((c) => c.name === 'Roblox Open Cloud key').detail, 'key accepted by Roblox');
    assert.match(checks.find((c) => c.name === 'Roblox paths').detail, /join dates: Open Cloud; award dates: Open Cloud/);
    assert.match(checks.find((c) => c.name === 'Roblox budgets').detail, /cloud\/v2\/users\/\{id\} \d+\/900, Roblox: \d+ of 1000 left/);
    await axeClean(page, 'System Health with Open Cloud');
    env.assertNoConsoleErrors(page);
  });
});

// A 1x1 transparent PNG.
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
