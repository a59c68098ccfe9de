// The admin panel /admin: the key gate, every tab, and the admin actions, on desktop and phone, against a server
// whose data dir is known so that `fanhub admin-key` can create keys in it.
//
// Rate limits (10 a minute per IP and endpoint): the gate suite makes 8 verify-key calls; the panel suite
// 3 registers, 2 logins and 2 verify-key calls. The panel tests share one admin session cookie.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { useSuite, VIEWPORT_NAMES, visible, hidden, hasCount, hasAttr, hasText, eventually, holdRoute, gotoApp } from './harness.mjs';
import {
  adminSessionCookies,
  adminApi,
  registerUser,
  loginStatus,
  expectToast,
  dismissToasts,
  assertNoHorizontalOverflow,
  backgroundHex,
  cssColorToHex,
  failedLoad,
} from './admin-helpers.mjs';

const TAB_IDS = ['dashboard', 'advertisements', 'users', 'reports', 'logs', 'app-logs', 'except', 'alexoria', 'settings'];
const LAST_ADMIN_ERROR = /last active admin/i;

function gate(page) {
  return {
    heading: page.getByRole('heading', { level: 1, name: 'Admin Access' }),
    key: page.getByLabel('Admin Key', { exact: true }),
    button: page.getByRole('button', { name: 'Access Admin Panel', exact: true }),
  };
}

async function assertGate(page) {
  const g = gate(page);
  await visible(g.key);
  assert.equal(await g.key.getAttribute('type'), 'password', 'the Admin Key field is a password field');
  await visible(g.button);
  assert.equal(await page.getByText('Admin Control Center').count(), 0, 'the panel is not shown');
}

async function assertPanel(page) {
  await visible(page.getByRole('heading', { level: 1, name: 'Admin Control Center', exact: true }), 15_000);
  await visible(page.getByText('System Online', { exact: true }));
  await hasCount(page.getByLabel('Admin Key', { exact: true }), 0);
}

async function openTab(page, id) {
  const tab = page.locator(`[role="tab"][data-tab="${id}"]`);
  await tab.click();
  await hasAttr(tab, 'aria-selected', 'true');
  return page.getByRole('tabpanel');
}

/** The label / value / sub-line of a dashboard StatCard. */
async function statCard(page, testId) {
  const lines = (await page.getByTestId(testId).innerText()).split('\n').map((s) => s.trim()).filter(Boolean);
  return { label: lines[0], value: lines[1], sub: lines[2] };
}

const fmt = (n) => n.toLocaleString('en-US');

/** "1h 2m 3s" -> 3723 */
function uptimeToSeconds(text) {
  const unit = { d: 86_400, h: 3_600, m: 60, s: 1 };
  let total = 0;
  for (const part of text.trim().split(/\s+/)) {
    const m = /^(\d+)([dhms])$/.exec(part);
    assert.ok(m, `uptime "${text}" reads like "1h 2m 3s"`);
    total += Number(m[1]) * unit[m[2]];
  }
  return total;
}

// ------------------------------------------------------------------------------------------------

describe('admin: the key gate', () => {
  const env = useSuite({ withDataDir: true });
  let key;
  before(async () => {
    key = await env.adminKey('e2e gate');
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`shows the Admin Key gate; an empty key and a wrong key are refused with their toasts (${vp})`, async () => {
      const page = await env.open(vp, '/admin');
      await assertGate(page);
      await assertNoHorizontalOverflow(page, `/admin gate (${vp})`);
      const g = gate(page);

      // empty (spaces only: trimmed)
      await g.key.fill('   ');
      await g.button.click();
      await expectToast(page, 'Error', { description: 'Please enter an admin key', destructive: true });
      await assertGate(page);
      await dismissToasts(page);

      // wrong key: Verifying... while waiting, then Access Denied with the server's error
      const hold = await holdRoute(page, '**/api/admin/verify-key');
      await g.key.fill('fha_0000000000000000000000000000000000000000');
      await g.button.click();
      const verifying = page.getByRole('button', { name: 'Verifying...', exact: true });
      await visible(verifying);
      assert.ok(await verifying.isDisabled(), 'the button is disabled while verifying');
      hold.release();
      await expectToast(page, 'Access Denied', { description: 'Invalid admin key', destructive: true });
      await assertGate(page);
      env.assertNoConsoleErrors(page, { allow: [failedLoad(401)] });
    });

    it(`Enter submits a valid key: Loading Admin Panel..., then the panel; a reload keeps it open (${vp})`, async () => {
      const page = await env.open(vp, '/admin');
      const g = gate(page);
      await visible(g.key);
      await g.key.fill(key);
      const hold = await holdRoute(page, '**/api/admin/stats');
      await g.key.press('Enter');
      await visible(page.getByText('Loading Admin Panel...'));
      hold.release();
      await assertPanel(page);
      await assertNoHorizontalOverflow(page, `/admin panel (${vp})`);

      // the admin session cookie lets /admin skip the gate
      await page.unroute('**/api/admin/stats');
      await page.reload();
      await assertPanel(page);
      env.assertNoConsoleErrors(page);
    });

    it(`/admin?key=VALID unlocks directly and the key leaves the address bar (${vp})`, async () => {
      const page = await env.open(vp, `/admin?key=${encodeURIComponent(key)}`);
      await assertPanel(page);
      const url = new URL(page.url());
      assert.equal(url.pathname, '/admin');
      assert.equal(url.searchParams.get('key'), null, 'the key is removed from the URL');
      assert.ok(!page.url().includes(key), 'the key is nowhere in the URL');
      const inHistory = await page.evaluate((k) => window.location.href.includes(k) || document.title.includes(k), key);
      assert.equal(inHistory, false);
      env.assertNoConsoleErrors(page);
    });

    it(`Sign out in the panel header ends the admin session: the gate again, a reload stays out, the old cookie is refused (${vp})`, async () => {
      const page = await env.open(vp, '/admin');
      const g = gate(page);
      await visible(g.key);
      await g.key.fill(key);
      await g.button.click();
      await assertPanel(page);
      const old = (await page.context().cookies()).find((c) => c.name === 'fanhub_admin');
      assert.ok(old, 'the admin session cookie is set');
      const header = page.locator('header').filter({ hasText: 'Admin Control Center' });
      const signOut = header.getByRole('button', { name: 'Sign out', exact: true });
      await visible(signOut);
      const box = await signOut.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= (page.viewportSize()?.width ?? Infinity), 'the button is on screen');
      await assertNoHorizontalOverflow(page, `/admin panel with Sign out (${vp})`);

      await signOut.click();
      await expectToast(page, 'Signed out', { description: 'You left the admin panel.', destructive: false });
      await assertGate(page);
      const left = (await page.context().cookies()).map((c) => c.name);
      assert.ok(!left.includes('fanhub_admin') && !left.includes('fanhub_hint_admin'), `the cookies are cleared: ${left}`);
      await page.reload();
      await assertGate(page);
      const replay = await env.fetch('/api/admin/check-key', { headers: { Cookie: `fanhub_admin=${old.value}` } });
      assert.equal(replay.status, 401, 'the old admin cookie is refused by the server');
      env.assertNoConsoleErrors(page);
    });
  }
});

// ------------------------------------------------------------------------------------------------

describe('admin: the panel', () => {
  const env = useSuite({ withDataDir: true });
  const password = 'hunter22';
  let key;
  let cookies;

  before(async () => {
    key = await env.adminKey('e2e panel');
    await registerUser(env, 'e2e_ann', password);
    await registerUser(env, 'e2e_ben', password);
    await registerUser(env, 'e2e_boss', password);
    assert.equal(await loginStatus(env, 'e2e_ann', 'not-her-password'), 401);
    await new Promise((r) => setTimeout(r, 20)); // distinct timestamps for the order check
    assert.equal(await loginStatus(env, 'e2e_ann', password), 200);
    cookies = await adminSessionCookies(env, key);
  });

  /** A page in a context that already holds the admin session. */
  async function openPanel(vp, opts = {}) {
    const page = await env.open(vp, null, opts);
    await page.context().addCookies(cookies);
    const stats = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/admin/stats' && r.request().method() === 'GET');
    await gotoApp(page, '/admin');
    await assertPanel(page);
    return { page, stats: await (await stats).json() };
  }

  for (const vp of VIEWPORT_NAMES) {
    it(`has the eight tabs and Reports; the dashboard shows the server's figures; every tab fits the screen (${vp})`, async () => {
      const { page, stats } = await openPanel(vp);
      const ids = await page.getByRole('tab').evaluateAll((els) => els.map((e) => e.getAttribute('data-tab')));
      assert.deepEqual(ids, TAB_IDS, 'the eight tabs and Reports, in order');
      await hasAttr(page.locator('[role="tab"][data-tab="dashboard"]'), 'aria-selected', 'true');

      // Dashboard (the server's measured figures)
      const fresh = await adminApi(env, key, '/api/admin/stats');
      assert.equal(stats.totalUsers, fresh.totalUsers, 'no user was added meanwhile');
      assert.equal(fresh.totalUsers, (await adminApi(env, key, '/api/admin/users')).counts.total, 'Total Users counts the accounts');
      await visible(page.getByTestId('stat-total-users'));
      const users = await statCard(page, 'stat-total-users');
      assert.deepEqual(users, { label: 'Total Users', value: fmt(fresh.totalUsers), sub: `+${fmt(fresh.newUsersToday)} today` });
      const views = await statCard(page, 'stat-page-views');
      assert.deepEqual(views, { label: 'Page Views', value: fmt(stats.pageViews), sub: `+${fmt(stats.pageViewsToday)} today` });
      assert.ok(fresh.pageViews >= stats.pageViews);
      const ads = await statCard(page, 'stat-active-ads');
      assert.equal(ads.label, 'Active Ads');
      assert.equal(ads.value, fmt(fresh.ads.approved));
      assert.match(ads.sub, new RegExp(`\\b${fresh.ads.pending} pending`));
      const scans = await statCard(page, 'stat-active-scans');
      assert.equal(scans.value, fmt(fresh.scans.running));
      assert.equal((await statCard(page, 'stat-elc')).value, fmt(fresh.elcBadgesFound));
      assert.equal((await statCard(page, 'stat-scan-progress')).value, `${fmt(fresh.scanProgress.processed)} / ${fmt(fresh.scanProgress.total)}`);
      const uptime = await statCard(page, 'stat-uptime');
      assert.equal(uptime.label, 'System Uptime');
      const now = await adminApi(env, key, '/api/admin/stats');
      assert.ok(Math.abs(uptimeToSeconds(uptime.value) - now.uptimeSeconds) <= 5, `uptime ${uptime.value} ~ ${now.uptimeSeconds}s`);

      const access = page.getByTestId('admin-access-badge');
      assert.ok(stats.adminSessions >= 1, 'this browser holds an admin session');
      assert.equal((await access.innerText()).trim(), 'ACTIVE');
      assert.equal((await page.getByTestId('admin-sessions').innerText()).trim(), fmt(stats.adminSessions));

      // the heading's row holds the badge (Active or Default)
      const bannerHead = page.getByRole('heading', { name: 'Current Banner Status' }).locator('xpath=../..');
      await visible(bannerHead.getByText('Default', { exact: true }));
      assert.equal(await bannerHead.getByText('Active', { exact: true }).count(), 0);
      await visible(page.getByTestId('banner-status-default'));
      await assertNoHorizontalOverflow(page, `dashboard (${vp})`);

      // Every other tab opens and fits
      const expectations = {
        advertisements: async (panel) => {
          await visible(panel.getByRole('heading', { name: 'Advertisement Applications' }));
          await visible(panel.getByText('No applications yet', { exact: true }));
        },
        users: (panel) => visible(panel.getByRole('heading', { name: 'User Management' })),
        reports: (panel) => visible(panel.getByRole('heading', { name: 'Abuse Reports' })),
        logs: (panel) => visible(panel.getByRole('heading', { name: 'Login Logs' })),
        'app-logs': (panel) => visible(panel.getByTestId('app-log-row')),
        except: (panel) => visible(panel.getByText('All Systems Healthy', { exact: true })),
        alexoria: async (panel) => {
          await visible(panel.getByTestId('clan-banner-status'));
          assert.equal((await panel.getByTestId('clan-banner-status').innerText()).trim(), 'Active');
          await hasText(page, 'Banner status: Active');
        },
        settings: (panel) => visible(panel.getByRole('heading', { name: 'Banner Customization' })),
      };
      for (const id of TAB_IDS.slice(1)) {
        const panel = await openTab(page, id);
        await expectations[id](panel);
        await assertNoHorizontalOverflow(page, `${id} tab (${vp})`);
      }
      env.assertNoConsoleErrors(page);
    });

    it(`the header's server badge follows /api/health: online, degraded, unreachable and back (${vp})`, async () => {
      const { page } = await openPanel(vp, { setup: (p) => p.clock.install() });
      const badge = page.getByTestId('server-status');
      assert.equal((await env.api('/api/health')).status, 'ok');
      await hasAttr(badge, 'data-state', 'online');
      assert.equal((await badge.innerText()).trim(), 'System Online');
      const nextPoll = () => page.clock.fastForward(11_000); // /api/health is polled every 10 s

      // The server's own answer with the database reported failing.
      await page.route('**/api/health', async (route) => {
        const res = await route.fetch();
        await route.fulfill({ response: res, json: { ...(await res.json()), status: 'degraded', database: 'error' } });
      });
      await nextPoll();
      await hasAttr(badge, 'data-state', 'degraded');
      assert.equal((await badge.innerText()).trim(), 'System Degraded');

      // The server does not answer at all: the earlier answer is not shown as current.
      await page.unroute('**/api/health');
      await page.route('**/api/health', (route) => route.abort('connectionrefused'));
      await nextPoll();
      await hasAttr(badge, 'data-state', 'unreachable');
      assert.equal((await badge.innerText()).trim(), 'Server Unreachable');

      await page.unroute('**/api/health');
      await nextPoll();
      await hasAttr(badge, 'data-state', 'online');
      assert.equal((await badge.innerText()).trim(), 'System Online');
      env.assertNoConsoleErrors(page, { allow: [/net::ERR_CONNECTION_REFUSED/] });
    });

    it(`a panel opened while /api/health fails says Server Unreachable (${vp})`, async () => {
      const page = await env.open(vp, null, { setup: (p) => p.route('**/api/health', (route) => route.abort('connectionrefused')) });
      await page.context().addCookies(cookies);
      await gotoApp(page, '/admin');
      await visible(page.getByRole('heading', { level: 1, name: 'Admin Control Center', exact: true }), 15_000);
      const badge = page.getByTestId('server-status');
      await hasAttr(badge, 'data-state', 'unreachable');
      assert.equal((await badge.innerText()).trim(), 'Server Unreachable');
      assert.equal(await page.getByText('System Online', { exact: true }).count(), 0);
      env.assertNoConsoleErrors(page, { allow: [/net::ERR_CONNECTION_REFUSED/] });
    });
  }

  for (const vp of VIEWPORT_NAMES) {
    it(`Reports: a report filed through the API shows as plain text and is resolved (${vp})`, async () => {
      const site = await (await env.fetch('/api/site')).json();
      const description = `<b>bold ${vp}</b> '; DROP TABLE abuse_reports; --`;
      const filed = await env.fetch('/api/v1/report-abuse', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': site.publicApiKey },
        body: JSON.stringify({ reporterUsername: 'Alice_1', targetUsername: `Target${vp.length}`, reason: 'scamming', description, priority: 'high' }),
      });
      assert.equal(filed.status, 201, `report-abuse answered ${filed.status}`);
      const { report } = await filed.json();
      const { page } = await openPanel(vp);
      const panel = await openTab(page, 'reports');
      const item = panel.locator(`[data-report="${report.id}"]`);
      await visible(item);
      assert.equal((await item.getByTestId('report-description').innerText()).trim(), description, 'shown as text, not HTML');
      assert.equal(await item.locator('b').count(), 0);
      await item.getByLabel('State').selectOption('resolved');
      await eventually(async () => assert.equal((await item.getByTestId('report-state').innerText()).trim(), 'Resolved'));
      const list = await adminApi(env, key, '/api/admin/abuse-reports');
      assert.equal(list.reports.find((r) => r.id === report.id).state, 'resolved');
      await assertNoHorizontalOverflow(page, `reports tab (${vp})`);
      env.assertNoConsoleErrors(page);
    });
  }

  it('Users: lists the accounts; role change, Suspend and Delete (with confirmation) work (desktop)', async () => {
    const { page } = await openPanel('desktop');
    const panel = await openTab(page, 'users');
    const rows = panel.getByTestId('user-row');
    const server = (await adminApi(env, key, '/api/admin/users')).users;
    await hasCount(rows, server.length);
    const names = (await rows.evaluateAll((els) => els.map((e) => e.querySelector('.font-medium')?.textContent?.trim())));
    assert.deepEqual([...names].sort(), server.map((u) => u.username).sort(), 'the table lists the server\'s users');
    assert.equal((await page.getByTestId('users-total').innerText()).split('\n')[1].trim(), String(server.length));
    assert.equal((await page.getByTestId('users-active').innerText()).split('\n')[1].trim(), String(server.filter((u) => u.isActive).length));

    const row = (name) => rows.filter({ has: page.getByText(name, { exact: true }) });
    await visible(row('e2e_ann').getByText('No email', { exact: true }));
    await visible(row('e2e_ben').getByText('Never', { exact: true }));
    assert.notEqual((await row('e2e_ann').locator('td').nth(3).innerText()).trim(), 'Never', 'ann has logged in');

    // role
    await page.getByLabel('Role of e2e_ann', { exact: true }).selectOption('moderator');
    await expectToast(page, 'User updated successfully', { destructive: false });
    await eventually(async () => {
      const ann = (await adminApi(env, key, '/api/admin/users')).users.find((u) => u.username === 'e2e_ann');
      assert.equal(ann.role, 'moderator');
    });
    await eventually(async () => assert.equal(await page.getByLabel('Role of e2e_ann', { exact: true }).inputValue(), 'moderator'));
    await dismissToasts(page);

    // suspend
    await visible(row('e2e_ann').getByText('Active', { exact: true }));
    await page.getByRole('button', { name: 'Suspend e2e_ann', exact: true }).click();
    await expectToast(page, 'User updated successfully', { destructive: false });
    await visible(row('e2e_ann').getByText('Inactive', { exact: true }));
    await visible(page.getByRole('button', { name: 'Activate e2e_ann', exact: true }));
    const ann = (await adminApi(env, key, '/api/admin/users')).users.find((u) => u.username === 'e2e_ann');
    assert.equal(ann.isActive, false, 'the server suspended ann');
    await dismissToasts(page);

    // delete: cancel first, then confirm
    await page.getByRole('button', { name: 'Delete e2e_ben', exact: true }).click();
    let dialog = page.getByRole('dialog', { name: 'Delete user?' });
    await visible(dialog);
    await visible(dialog.getByText(/e2e_ben/));
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await hidden(dialog);
    await hasCount(row('e2e_ben'), 1);
    await page.getByRole('button', { name: 'Delete e2e_ben', exact: true }).click();
    dialog = page.getByRole('dialog', { name: 'Delete user?' });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expectToast(page, 'User deleted successfully', { destructive: false });
    await hidden(dialog);
    await hasCount(row('e2e_ben'), 0);
    const after = (await adminApi(env, key, '/api/admin/users')).users;
    assert.ok(!after.some((u) => u.username === 'e2e_ben'), 'the server deleted ben');
    env.assertNoConsoleErrors(page);
  });

  it('Users: the last active admin cannot be demoted or deleted; the server\'s error shows (phone)', async () => {
    const { page } = await openPanel('phone');
    await openTab(page, 'users');
    const role = page.getByLabel('Role of e2e_boss', { exact: true });
    // The table scrolls sideways on a phone rather than squeezing the select to its arrow.
    const box = await role.boundingBox();
    assert.ok(box.width >= 120, `the role select keeps room for its value on a phone (${box.width} px wide)`);
    await role.selectOption('admin');
    await expectToast(page, 'User updated successfully', { destructive: false });
    await eventually(async () => assert.equal(await role.inputValue(), 'admin'));
    await eventually(async () => assert.equal((await page.getByTestId('users-admins').innerText()).split('\n')[1].trim(), '1'));
    await dismissToasts(page);

    await role.selectOption('user');
    const t = await expectToast(page, 'Failed to update user', { destructive: true });
    assert.match(await t.first().innerText(), LAST_ADMIN_ERROR, "the toast carries the server's error");
    const boss = (await adminApi(env, key, '/api/admin/users')).users.find((u) => u.username === 'e2e_boss');
    assert.equal(boss.role, 'admin', 'the server kept the role');
    await eventually(async () => assert.equal(await role.inputValue(), 'admin', 'the dropdown shows the real role again'));
    await dismissToasts(page);

    await page.getByRole('button', { name: 'Delete e2e_boss', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete user?' });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    const d = await expectToast(page, 'Failed to delete user', { destructive: true });
    assert.match(await d.first().innerText(), LAST_ADMIN_ERROR, "the toast carries the server's error");
    await hasCount(page.getByTestId('user-row').filter({ hasText: 'e2e_boss' }), 1);
    assert.ok((await adminApi(env, key, '/api/admin/users')).users.some((u) => u.username === 'e2e_boss'));
    env.assertNoConsoleErrors(page, { allow: [failedLoad(409)] });
  });

  it('Login Logs: the attempts, newest first, success in green and failure in red (desktop)', async () => {
    const { page } = await openPanel('desktop');
    const panel = await openTab(page, 'logs');
    const server = await adminApi(env, key, '/api/admin/login-logs?page=1&limit=25');
    assert.ok(server.logs.length >= 2);
    const times = server.logs.map((l) => new Date(l.timestamp).getTime());
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'the API answers newest first');
    const rows = panel.getByTestId('login-log-row');
    await hasCount(rows, server.logs.length);
    const shown = await rows.evaluateAll((els) => els.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
    assert.deepEqual(
      shown.map((r) => [r[0], r[1], r[2], r[4]]),
      server.logs.map((l) => [l.username, l.ipAddress, l.userAgent, l.loginStatus]),
      'the rows are the server\'s, in the same (newest first) order',
    );
    const ann = server.logs.filter((l) => l.username === 'e2e_ann').map((l) => l.loginStatus);
    assert.deepEqual(ann.slice(0, 2), ['success', 'failure'], "ann's success is listed above her failure");

    for (const [status, colour] of [['success', /emerald|green/], ['failure', /red/]]) {
      const badge = rows.locator('td:nth-child(5) span', { hasText: status }).first();
      await visible(badge);
      assert.match((await badge.getAttribute('class')) ?? '', colour, `${status} badge colour`);
      const fg = await cssColorToHex(page, await badge.evaluate((e) => getComputedStyle(e).color));
      const [r, g] = [parseInt(fg.slice(1, 3), 16), parseInt(fg.slice(3, 5), 16)];
      assert.ok(status === 'success' ? g > r : r > g, `${status} text is ${status === 'success' ? 'green' : 'red'} (${fg})`);
    }
    await visible(panel.getByText(`${server.total} login attempts recorded`));
    env.assertNoConsoleErrors(page);
  });

  it("App Logs shows the server's own records; Exceptions shows its counts (phone)", async () => {
    const { page } = await openPanel('phone');
    let panel = await openTab(page, 'app-logs');
    const row = panel.getByTestId('app-log-row').filter({ hasText: 'account created: e2e_ann' });
    await visible(row);
    await visible(row.getByText('INFO', { exact: true }));
    const server = await adminApi(env, key, '/api/admin/app-logs');
    assert.ok(server.logs.some((l) => l.message === 'account created: e2e_ann'));
    for (const sample of ['System Started', 'Badge Scanner Running']) {
      assert.equal(await panel.getByText(sample, { exact: true }).count(), 0, `no static sample entry "${sample}"`);
    }

    const exc = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/admin/exceptions');
    panel = await openTab(page, 'except');
    const seen = await (await exc).json();
    const fresh = await adminApi(env, key, '/api/admin/exceptions');
    for (const [id, label, field] of [['exc-errors', 'Critical Errors', 'errors'], ['exc-warnings', 'Warnings', 'warnings'], ['exc-info', 'Info Messages', 'info']]) {
      await visible(page.getByTestId(id));
      const [l, v] = (await page.getByTestId(id).innerText()).split('\n').map((s) => s.trim()).filter(Boolean);
      assert.equal(l, label);
      assert.equal(v, fmt(seen[field]), `${label} shows the server's count`);
    }
    assert.equal(seen.errors, fresh.errors);
    assert.equal(fresh.errors, 0);
    await visible(panel.getByText('All Systems Healthy', { exact: true }));
    env.assertNoConsoleErrors(page);
  });

  it('Settings: saved colours drive the active banner and the bottom banner; Revert restores #7c3aed (desktop)', async () => {
    const { page } = await openPanel('desktop');
    const panel = await openTab(page, 'settings');
    const bg = panel.getByLabel('Background', { exact: true });
    const text = panel.getByLabel('Text', { exact: true });
    const border = panel.getByLabel('Border', { exact: true });
    await visible(bg);
    assert.equal(await bg.getAttribute('type'), 'color');
    assert.deepEqual([await bg.inputValue(), await text.inputValue(), await border.inputValue()], ['#7c3aed', '#ffffff', '#8b5cf6']);

    const chosen = { backgroundColor: '#0f766e', textColor: '#fef3c7', borderColor: '#f59e0b' };
    await bg.fill(chosen.backgroundColor);
    await text.fill(chosen.textColor);
    await border.fill(chosen.borderColor);
    await eventually(async () => assert.equal(await backgroundHex(panel.getByTestId('banner-preview')), chosen.backgroundColor));
    await panel.getByRole('button', { name: 'Save', exact: true }).click();
    await expectToast(page, 'Settings Saved', { destructive: false });

    const active = await env.api('/api/admin/active-banner');
    assert.equal(active.banner.backgroundColor, chosen.backgroundColor, 'GET /api/admin/active-banner has the new background');
    assert.equal(active.banner.textColor, chosen.textColor);
    assert.equal(active.banner.borderColor, chosen.borderColor);
    const bottom = page.getByRole('complementary', { name: 'Announcement' });
    await visible(bottom);
    await eventually(async () => {
      assert.equal(await backgroundHex(bottom), chosen.backgroundColor, 'the bottom banner uses the saved background');
      assert.equal(await cssColorToHex(page, await bottom.evaluate((e) => getComputedStyle(e).color)), chosen.textColor);
      assert.equal(await cssColorToHex(page, await bottom.evaluate((e) => getComputedStyle(e).borderTopColor)), chosen.borderColor);
    });

    // a fresh visitor sees it too
    const visitor = await env.open('desktop', '/');
    await eventually(async () => assert.equal(await backgroundHex(visitor.getByRole('complementary', { name: 'Announcement' })), chosen.backgroundColor));

    await dismissToasts(page);
    await panel.getByRole('button', { name: /Revert/ }).click();
    const rt = await expectToast(page, 'Banner Reverted', { destructive: false });
    assert.match(await rt.first().innerText(), /default .*clan banner is restored/i, 'spec 8: the default clan banner is restored');
    await eventually(async () => assert.equal(await bg.inputValue(), '#7c3aed'));
    const reverted = await env.api('/api/admin/active-banner');
    assert.equal(reverted.banner.backgroundColor, '#7c3aed', 'Revert restores the default background');
    await eventually(async () => assert.equal(await backgroundHex(bottom), '#7c3aed'));
    env.assertNoConsoleErrors(page);
    env.assertNoConsoleErrors(visitor);
  });

  it('Settings: Create Backup downloads the database, Restart is unavailable, health and cache actions work (phone)', async () => {
    const { page } = await openPanel('phone');
    const panel = await openTab(page, 'settings');

    const backup = panel.getByRole('link', { name: 'Create Backup' });
    await visible(backup);
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), backup.click()]);
    assert.equal(await download.failure(), null, 'the download finished');
    const bytes = await readFile(await download.path());
    assert.equal(bytes.subarray(0, 16).toString('latin1'), 'SQLite format 3\0', 'the backup is an SQLite database');

    const restart = panel.getByRole('button', { name: /Restart System/ });
    await visible(restart);
    assert.ok(await restart.isDisabled(), 'Restart System is disabled');
    await visible(panel.getByText(/not available/i));

    const db = panel.getByTestId('health-check').filter({ has: page.getByText('Database', { exact: true }) });
    await visible(db);
    await visible(db.getByText('OK', { exact: true }));
    for (const name of ['Database', 'Discord Bot', 'Roblox API', 'Webhooks']) {
      await visible(panel.getByTestId('health-check').getByText(name, { exact: true }));
    }

    await panel.getByRole('button', { name: 'Clear System Cache' }).click();
    await expectToast(page, 'Cache Cleared', { destructive: false });
    env.assertNoConsoleErrors(page);
  });

  it('Settings: admin keys are listed by prefix; Revoke works; revoking the session\'s own key locks /admin (desktop)', async () => {
    const own = await env.adminKey('e2e revoke own');
    const other = await env.adminKey('e2e revoke other');
    const page = await env.open('desktop', '/admin');
    await gate(page).key.fill(own);
    await gate(page).button.click();
    await assertPanel(page);
    const panel = await openTab(page, 'settings');

    const rows = panel.getByTestId('admin-key-row');
    const listed = (await adminApi(env, key, '/api/admin/keys')).keys;
    await hasCount(rows, listed.length);
    for (const k of [key, own, other]) {
      const prefix = k.slice(0, 12);
      assert.ok(listed.some((x) => x.prefix === prefix), `GET /api/admin/keys lists ${prefix}`);
      await visible(rows.filter({ hasText: `${prefix}…` }));
    }
    assert.equal(await panel.getByText(own, { exact: false }).count(), 0, 'the full key is never shown');

    // another key
    const otherPrefix = other.slice(0, 12);
    await panel.getByRole('button', { name: `Revoke key ${otherPrefix}`, exact: true }).click();
    let dialog = page.getByRole('dialog', { name: 'Revoke admin key?' });
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expectToast(page, 'Key Revoked', { destructive: false });
    await hasCount(rows.filter({ hasText: otherPrefix }), 0);
    assert.ok(!(await adminApi(env, key, '/api/admin/keys')).keys.some((x) => x.prefix === otherPrefix));
    const res = await env.fetch('/api/admin/stats', { headers: { 'X-Admin-Key': other } });
    assert.equal(res.status, 401, 'the revoked key no longer works');

    // the key behind this session
    const ownPrefix = own.slice(0, 12);
    await panel.getByRole('button', { name: `Revoke key ${ownPrefix}`, exact: true }).click();
    dialog = page.getByRole('dialog', { name: 'Revoke admin key?' });
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    await eventually(async () => assert.ok(!(await adminApi(env, key, '/api/admin/keys')).keys.some((x) => x.prefix === ownPrefix)));
    await page.reload();
    await assertGate(page);
    const check = await page.request.get('/api/admin/check-key');
    assert.equal(check.status(), 401, 'the session ended with its key');
    env.assertNoConsoleErrors(page, { allow: [failedLoad(401)] });
  });
});
