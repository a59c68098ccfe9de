// Following players and their Discord alerts, on desktop and phone, against the real server, the fake Roblox
// (examples/fake_roblox.rs) and the fake Discord (examples/fake_discord.rs):
// - a fan signs in, checks a Mid... player (no ELC badge), follows from the result (its history: first seen), the fake
//   then gives the player every ELC badge, the server's background re-check notices it, /account shows the change as
//   new (and marks it seen), a reload no longer highlights it, the result's history lists it (Show all), and Unfollow;
// - the Discord alerts card: a hostile URL refused with the server's reason under the field, a valid one saved (the
//   fake received the test message), an alert embed after a change of a followed player, the broken state after
//   Discord refused three alerts (scripted 404s), and Remove.
// Every state is checked with axe-core (dark and light themes) and for sideways scrolling at 390 px. The 51st follow
// (the limit's message) is a Vitest case (src/components/follows/FollowButton.test.tsx).
//
// The site file re-checks followed players every 0.0005 h (about 2 s) and lets the fake take more calls a minute than
// Roblox would (the budgets' background share would otherwise hold a re-check up to a minute).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { atPath, useSuite, VIEWPORT_NAMES, exampleBin, eventually, gotoApp, hasAttr, hasCount, visible } from './harness.mjs';
import { assertNoHorizontalOverflow, expectToast, failedLoad, registerUser } from './admin-helpers.mjs';
import { axeViolations, assertClean } from './axe.mjs';
import { FAKE, QUICK_RECHECKS, setFakeModes, siteFile } from './roblox-fake.mjs';

const PASSWORD = 'follow-e2e-password';
// The fake's thumbnails are Roblox CDN URLs: answered 404 here (the avatar falls back to its initials).
const CDN_MISS = failedLoad(404);
const REFUSED_URL = failedLoad(400);

const fakeRoblox = {
  name: 'roblox',
  command: () => exampleBin('fake_roblox'),
  ready: FAKE.ready,
  serverEnv: (m) => ({ FANHUB_ROBLOX_API: FAKE.template(m[1]), FANHUB_ROBLOX_COOKIE: FAKE.cookie }),
};

const fakeDiscord = {
  name: 'discord',
  command: () => process.env.FAKE_DISCORD_BIN ?? exampleBin('fake_discord'),
  ready: /listening on (http:\/\/\S+)/,
  serverEnv: (m) => ({ FANHUB_DISCORD_API: `${m[1]}/api/v10` }),
};

/** A Discord webhook URL of the form the server takes (id 15-21 digits, token 30-100 of [A-Za-z0-9_-]). */
function webhookOf(vp) {
  const id = vp === 'desktop' ? '123456789012345678' : '223456789012345678';
  const token = `e2e_${vp}_Token-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`;
  return { id, token, url: `https://discord.com/api/webhooks/${id}/${token}`, path: `/api/v10/webhooks/${id}/${token}` };
}

/** Players the fake gives every ELC badge to (the mode replaces the list: it only grows here). */
const elcOwners = [];

/** A day as the page writes it: Roblox's award days in UTC, the site's own days in the browser's zone (UTC here too). */
const day = (iso) => new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

/** The words the page gives a change (src/lib/follows.ts describeEvent), from the server's own event. */
function eventText(e) {
  switch (e.kind) {
    case 'first_seen':
      return `First seen here on ${day(e.noticedAt)}`;
    case 'elc_badge':
      return e.awardedAt ? `Earned ${e.after} on ${day(e.awardedAt)}` : `Earned ${e.after} (noticed ${day(e.noticedAt)})`;
    case 'classification':
      return `Was ${e.before} until ${day(e.noticedAt)}, now ${e.after}`;
    case 'username':
      return `Renamed from ${e.before} to ${e.after} (noticed ${day(e.noticedAt)})`;
    case 'display_name':
      return `Display name ${e.before} → ${e.after}`;
    default:
      throw new Error(`unknown event kind ${e.kind}`);
  }
}

/** axe-core in the dark theme, then the light one (the pointer moved off the buttons: hover is not the state checked). */
async function axeBothThemes(page, where) {
  await page.mouse.move(0, 400);
  for (const theme of ['dark', 'light']) {
    await page.emulateMedia({ colorScheme: theme });
    await hasAttr(page.locator('html'), 'data-theme', theme);
    // The colours fade to the new theme: axe reads them once they have settled.
    await page.waitForFunction(() => document.getAnimations().length === 0);
    await page.waitForTimeout(50);
    assertClean(await axeViolations(page), `${where}, ${theme} theme`);
  }
  await page.emulateMedia({ colorScheme: 'dark' });
}

/** The message linked to `input` by aria-describedby (the input marked invalid), shown under it. */
async function messageUnder(page, input) {
  await hasAttr(input, 'aria-invalid', 'true');
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  assert.ok(ids.length > 0, 'the field is described by its message');
  const message = page.locator(`[id="${ids[0]}"]`);
  const [f, m] = [await input.boundingBox(), await message.boundingBox()];
  assert.ok(m.y >= f.y + f.height - 1, 'the message is under its field');
  return (await message.innerText()).trim();
}

describe('following players and Discord alerts', () => {
  const site = siteFile(3600, QUICK_RECHECKS);
  after(site.cleanup);
  const env = useSuite({ serverArgs: ['--site', site.file], services: [fakeRoblox, fakeDiscord] });

  /** A new fan signed in (the session cookie in a fresh context), on `pathname`. */
  async function signedIn(vp, fan, pathname) {
    await registerUser(env, fan, PASSWORD);
    const page = await env.open(vp, null, { setup: (_, context) => context.route(FAKE.cdn, (route) => route.fulfill({ status: 404, body: '' })) });
    const login = await page.request.post('/api/auth/login', { data: { username: fan, password: PASSWORD } });
    assert.equal(login.status(), 200, 'login');
    await gotoApp(page, pathname);
    return page;
  }

  /** GET a signed-in API path with the page's cookies. */
  async function apiOf(page, path) {
    const res = await page.request.get(path);
    assert.equal(res.status(), 200, `GET ${path}`);
    return res.json();
  }

  /** The webhook calls the fake Discord received. */
  async function received() {
    const res = await fetch(`${env.services.discord.url}/_fake/webhooks`);
    return res.json();
  }

  it('signed out: "Sign in to follow" signs in and comes back to the result, ready to follow (phone)', async () => {
    const fan = 'fan_return_phone';
    const player = 'MidReturnPhone';
    await registerUser(env, fan, PASSWORD);
    const page = await env.open('phone', null, { setup: (_, context) => context.route(FAKE.cdn, (route) => route.fulfill({ status: 404, body: '' })) });
    await gotoApp(page, `/newgen-detector?username=${player}`);
    const result = page.getByTestId('newgen-result');
    await visible(result);
    await result.getByRole('link', { name: 'Sign in to follow', exact: true }).click();
    await atPath(page, '/login');
    await page.getByLabel('Username').fill(fan);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await atPath(page, '/newgen-detector');
    assert.equal(new URL(page.url()).searchParams.get('username'), player);
    await visible(page.getByTestId('newgen-result').getByRole('button', { name: `Follow ${player}`, exact: true }));
  });

  for (const vp of VIEWPORT_NAMES) {
    const tag = vp === 'desktop' ? 'Desk' : 'Phone';

    it(`follow from the result; the new badges show as new on /account once; the history; unfollow (${vp})`, async () => {
      const player = `MidFollow${tag}`;
      const page = await signedIn(vp, `fan_follow_${vp}`, `/newgen-detector?username=${player}`);
      const result = page.getByTestId('newgen-result');
      await visible(result);
      const userId = Number((await result.getByTestId('user-id').innerText()).trim());

      // The history: the site saw the player for the first time just now.
      const first = await apiOf(page, `/api/players/${userId}/history`);
      assert.deepEqual(first.events.map((e) => e.kind), ['first_seen']);
      await eventually(async () =>
        assert.deepEqual(await result.getByTestId('history-event').allInnerTexts(), first.events.map(eventText)),
      );

      // Follow, then "Following" with Unfollow.
      await result.getByRole('button', { name: `Follow ${player}`, exact: true }).click();
      await expectToast(page, `Following ${player}`);
      await visible(result.getByTestId('following'));
      await visible(result.getByRole('button', { name: `Unfollow ${player}`, exact: true }));
      assert.ok((await apiOf(page, '/api/account/follows')).follows.some((f) => f.player.userId === userId), 'the server has the follow');
      await assertNoHorizontalOverflow(page, `result with Following (${vp})`);
      await axeBothThemes(page, `newgen result followed (${vp})`);

      // The player earns every ELC badge; the background re-check notices it.
      elcOwners.push(player.toLowerCase());
      await setFakeModes(env.services.roblox.url, { elcOwners });
      await eventually(
        async () => {
          const list = await apiOf(page, '/api/account/follows');
          const f = list.follows.find((x) => x.player.userId === userId);
          assert.ok(f.newEvents.some((e) => e.kind === 'elc_badge'), 'a badge change is new');
        },
        { timeout: 60_000, interval: 500 },
      );

      // /account: the change highlighted as new, the server's own list on screen; then marked seen.
      const listed = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/account/follows' && r.request().method() === 'GET');
      const seen = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/account/follows/seen');
      await gotoApp(page, '/account');
      const answer = await (await listed).json();
      const followed = answer.follows.find((f) => f.player.userId === userId);
      const card = page.getByTestId('follows-card');
      const item = card.getByTestId('followed-player').filter({ has: page.getByRole('link', { name: player, exact: true }) });
      await visible(item);
      assert.equal(await item.getByRole('link', { name: player, exact: true }).getAttribute('href'), `/newgen-detector?username=${player}`);
      assert.equal((await item.getByTestId('followed-classification').innerText()).trim(), followed.player.classification);
      assert.match(await item.getByTestId('followed-checked').innerText(), /Last checked /);
      await visible(item.getByTestId('new-events'));
      assert.deepEqual(await item.getByTestId('new-event').allInnerTexts(), followed.newEvents.map(eventText));
      assert.ok(followed.newEvents.some((e) => e.kind === 'elc_badge' && !e.baseline), 'an earned badge is among them');
      assert.equal((await card.getByTestId('follow-count').textContent()).trim(), `Following ${answer.follows.length} of ${answer.max}`);
      assert.equal(answer.recheckHours, 0.0005);
      assert.equal((await card.getByTestId('recheck-note').innerText()).trim(), 'Checked again every few seconds.');
      assert.equal((await seen).status(), 204, 'the page marked the changes seen');
      await assertNoHorizontalOverflow(page, `/account with new changes (${vp})`);
      await axeBothThemes(page, `/account with new changes (${vp})`);

      // Reloaded: the same player, nothing highlighted any more.
      await page.reload();
      await visible(item);
      await hasCount(item.getByTestId('new-events'), 0);
      assert.deepEqual((await apiOf(page, '/api/account/follows')).follows.find((f) => f.player.userId === userId).newEvents, []);

      // The result's history now lists the badges: the first 5, then all with "Show all".
      await gotoApp(page, `/newgen-detector?username=${player}`);
      await visible(result);
      const history = await apiOf(page, `/api/players/${userId}/history`);
      // The result lists changes: badges owned when the site first looked are in its badge list.
      history.events = history.events.filter((e) => !(e.kind === 'elc_badge' && e.baseline));
      assert.ok(history.events.length > 5, `more than 5 changes (${history.events.length})`);
      await eventually(async () =>
        assert.deepEqual(await result.getByTestId('history-event').allInnerTexts(), history.events.slice(0, 5).map(eventText)),
      );
      await result.getByRole('button', { name: `Show all (${history.events.length})`, exact: true }).click();
      await eventually(async () => assert.deepEqual(await result.getByTestId('history-event').allInnerTexts(), history.events.map(eventText)));
      await assertNoHorizontalOverflow(page, `result with its whole history (${vp})`);

      // Unfollow from /account.
      await gotoApp(page, '/account');
      await visible(item);
      await item.getByRole('button', { name: `Unfollow ${player}`, exact: true }).click();
      await expectToast(page, `Unfollowed ${player}`);
      await visible(card.getByTestId('follows-empty'));
      assert.equal((await card.getByTestId('follow-count').textContent()).trim(), `Following 0 of ${answer.max}`);
      assert.deepEqual((await apiOf(page, '/api/account/follows')).follows, []);
      await assertNoHorizontalOverflow(page, `/account, nobody followed (${vp})`);
      await axeBothThemes(page, `/account, nobody followed (${vp})`);
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS] });
    });

    it(`Discord alerts: a hostile URL refused, a valid one saved with its test message, an alert, broken, removed (${vp})`, async () => {
      const player = `MidAlerts${tag}`;
      const hook = webhookOf(vp);
      const site = await env.api('/api/site');
      const check = await env.fetch(`/api/newgen-check/${player}`, { headers: { 'X-API-Key': site.publicApiKey } });
      assert.equal(check.status, 200);
      const { userId } = await check.json();
      const page = await signedIn(vp, `fan_alerts_${vp}`, '/account');
      const follow = await page.request.post('/api/account/follows', { data: { userId }, headers: { Origin: env.baseUrl } });
      assert.equal(follow.status(), 201, 'followed');

      await page.reload();
      const card = page.getByTestId('alerts-card');
      await visible(card.getByTestId('webhook-form'));
      await visible(card.getByText('Copy Webhook URL', { exact: false }));
      await visible(card.getByText('Saving sends a test message', { exact: false }));
      const url = card.getByLabel('Webhook URL', { exact: true });
      const save = card.getByRole('button', { name: 'Save and send a test message', exact: true });

      // A hostile URL: Discord's path on another host. The server's reason shows under the field.
      const refused = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/account/alerts' && r.request().method() === 'PUT');
      await url.fill(`https://discord.com.evil.example/api/webhooks/${hook.id}/${hook.token}`);
      await save.click();
      const refusal = await refused;
      assert.equal(refusal.status(), 400);
      const reason = (await refusal.json()).fields.url;
      assert.ok(reason, 'the server says why in fields.url');
      await eventually(async () => assert.equal(await messageUnder(page, url), reason));
      assert.equal((await received()).filter((w) => w.path === hook.path).length, 0, 'nothing was sent to Discord');
      await assertNoHorizontalOverflow(page, `alerts form with a refused URL (${vp})`);
      await axeBothThemes(page, `alerts form with a refused URL (${vp})`);

      // A valid URL: saved once the fake took the test message.
      await url.fill(hook.url);
      await save.click();
      await expectToast(page, 'Discord alerts are on');
      const saved = card.getByTestId('saved-webhook');
      await visible(saved);
      const settings = await apiOf(page, '/api/account/alerts');
      assert.equal((await saved.getByTestId('webhook-url').innerText()).trim(), settings.webhook.url);
      assert.ok(!settings.webhook.url.includes(hook.token), 'the page never shows the token');
      assert.equal((await card.getByTestId('alerts-status').innerText()).trim(), 'On');
      const test = (await received()).filter((w) => w.path === hook.path);
      assert.equal(test.length, 1, 'one test message');
      assert.match(test[0].body.embeds[0].title, /^Alerts from .+ are on$/);
      await hasCount(card.getByTestId('webhook-form'), 0);
      await assertNoHorizontalOverflow(page, `alerts saved (${vp})`);
      await axeBothThemes(page, `alerts saved (${vp})`);

      // A change of the followed player: its alert reaches the channel.
      const shown = `${player} Shown`;
      await setFakeModes(env.services.roblox.url, { displayNames: { [player.toLowerCase()]: shown } });
      const alert = await eventually(
        async () => {
          const hit = (await received()).find((w) => w.path === hook.path && w.body.embeds?.[0]?.title?.includes(shown));
          assert.ok(hit, 'the display name alert arrived');
          return hit.body.embeds[0];
        },
        { timeout: 60_000, interval: 500 },
      );
      assert.ok(alert.url.endsWith(`/newgen-detector?username=${player}`), `the embed links to the result: ${alert.url}`);
      const delivered = await eventually(async () => {
        const s = await apiOf(page, '/api/account/alerts');
        assert.ok(s.webhook.lastDeliveredAt, 'a delivery is recorded');
        assert.equal(s.webhook.pending, 0);
        return s;
      });
      await page.reload();
      await visible(saved);
      assert.notEqual((await saved.getByTestId('webhook-last-delivered').innerText()).trim(), 'Nothing yet');
      assert.equal((await saved.getByTestId('webhook-pending').innerText()).trim(), 'Nothing');
      assert.ok(delivered.webhook.kinds.length === 3, 'every kind chosen by default');

      // Discord refuses the next three alerts (the webhook deleted): the webhook is marked broken.
      await fetch(`${env.services.discord.url}/_fake/webhook-answers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ statuses: [404, 404, 404] }),
      });
      elcOwners.push(player.toLowerCase());
      await setFakeModes(env.services.roblox.url, { elcOwners });
      await eventually(async () => assert.equal((await apiOf(page, '/api/account/alerts')).webhook.broken, true), { timeout: 60_000, interval: 500 });
      await page.reload();
      const broken = card.getByTestId('webhook-broken');
      await visible(broken);
      assert.equal(await broken.getAttribute('role'), 'alert');
      assert.match(await broken.innerText(), /Paste a new webhook URL below/);
      assert.equal((await card.getByTestId('alerts-status').innerText()).trim(), 'Broken');
      await visible(card.getByLabel('Webhook URL', { exact: true }));
      await assertNoHorizontalOverflow(page, `alerts broken (${vp})`);
      await axeBothThemes(page, `alerts broken (${vp})`);

      // Remove: the form for a new webhook again.
      await card.getByRole('button', { name: 'Remove', exact: true }).click();
      await expectToast(page, 'Discord alerts removed');
      await visible(card.getByTestId('webhook-form'));
      assert.equal((await apiOf(page, '/api/account/alerts')).webhook, null);
      env.assertNoConsoleErrors(page, { allow: [CDN_MISS, REFUSED_URL] });
    });
  }
});
