// The admin lists paged by key on desktop and phone: Users (first page, Load more, the search sent to the
// server once typing pauses, role and status filters, the empty state), Login Logs (status filter, Load more),
// Reports (state filter). The accounts are written into the server's database the way registration stores
// them (registering 45 accounts through the API would meet its rate limit).
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { useSuite, VIEWPORT_NAMES, visible, hasCount, hasAttr, eventually, gotoApp } from './harness.mjs';
import { adminSessionCookies, adminApi, loginStatus, assertNoHorizontalOverflow } from './admin-helpers.mjs';

const SEED = `
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=10)
rows = [(f"e2e_member{i:02}", "user", 1) for i in range(45)]
rows += [("Star_e2e", "user", 1), ("starling_e2e", "user", 1), ("e2e_mod_a", "moderator", 0), ("e2e_mod_b", "moderator", 0)]
db.executemany("INSERT INTO users (username, password_hash, role, is_active, created_at) VALUES (?, 'x', ?, ?, 1)", rows)
db.commit()
`;

describe('admin: the lists paged by key', () => {
  const env = useSuite({ withDataDir: true });
  let key;
  let cookies;

  before(async () => {
    key = await env.adminKey('e2e lists');
    execFileSync('python3', ['-c', SEED, path.join(env.dataDir, 'fanhub.db')]);
    for (let i = 0; i < 3; i++) assert.equal(await loginStatus(env, 'e2e_member00', 'wrong password'), 401);
    cookies = await adminSessionCookies(env, key);
  });

  async function openTab(vp, id) {
    const page = await env.open(vp, null);
    await page.context().addCookies(cookies);
    await gotoApp(page, '/admin');
    await visible(page.getByRole('heading', { level: 1, name: 'Admin Control Center', exact: true }), 15_000);
    const tab = page.locator(`[role="tab"][data-tab="${id}"]`);
    await tab.click();
    await hasAttr(tab, 'aria-selected', 'true');
    return { page, panel: page.getByRole('tabpanel') };
  }

  const names = (rows) => rows.evaluateAll((els) => els.map((e) => e.querySelector('.font-medium')?.textContent?.trim()));

  for (const vp of VIEWPORT_NAMES) {
    it(`Users: the first page, Load more, the search and the filters come from the server (${vp})`, async () => {
      const { page, panel } = await openTab(vp, 'users');
      const rows = panel.getByTestId('user-row');
      const first = await adminApi(env, key, '/api/admin/users');
      await hasCount(rows, 20);
      assert.deepEqual(await names(rows), first.users.map((u) => u.username), "the server's first page, oldest first");
      const total = first.counts.total;
      assert.ok(total >= 49, `${total} accounts`);
      assert.equal((await page.getByTestId('users-total').innerText()).split('\n')[1].trim(), total.toLocaleString('en-US'));
      await visible(panel.getByText(`Showing 20 of ${total} users`, { exact: true }));

      const more = page.waitForResponse((r) => r.url().includes('/api/admin/users?cursor='));
      await panel.getByRole('button', { name: 'Load more', exact: true }).click();
      assert.equal(new URL((await more).url()).searchParams.get('cursor'), first.nextCursor);
      await hasCount(rows, 40);
      const shown = await names(rows);
      assert.equal(new Set(shown).size, 40, 'no account twice');
      await assertNoHorizontalOverflow(page, `users tab (${vp})`);

      // The search asks once typing pauses (not per key), for names that begin with the text, any case.
      const asked = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/admin/users?')) asked.push(new URL(r.url()).searchParams.get('q'));
      });
      await panel.getByLabel('Username starts with', { exact: true }).pressSequentially('STAR', { delay: 40 });
      await eventually(async () => assert.deepEqual(await names(rows), ['Star_e2e', 'starling_e2e']));
      assert.deepEqual(asked, ['STAR'], 'one request for the whole word');
      await visible(panel.getByText('Showing 2 users', { exact: true }));
      await hasCount(panel.getByRole('button', { name: 'Load more' }), 0);

      await panel.getByLabel('Username starts with', { exact: true }).fill('');
      await panel.getByLabel('Status', { exact: true }).selectOption('suspended');
      await panel.getByLabel('Role', { exact: true }).selectOption('moderator');
      await eventually(async () => assert.deepEqual(await names(rows), ['e2e_mod_a', 'e2e_mod_b']));
      await panel.getByLabel('Username starts with', { exact: true }).fill('nobody_here');
      await visible(panel.getByText('No users match these filters', { exact: true }));
      env.assertNoConsoleErrors(page);
    });

    it(`Login Logs and Reports: filters sent to the server, Load more after the last row (${vp})`, async () => {
      const { page, panel } = await openTab(vp, 'logs');
      const rows = panel.getByTestId('login-log-row');
      const failures = await adminApi(env, key, '/api/admin/login-logs?limit=25&status=failure');
      await panel.getByLabel('Show', { exact: true }).selectOption('failure');
      await visible(panel.getByText(`${failures.total} wrong password login attempts recorded`, { exact: true }));
      await hasCount(rows, failures.logs.length);
      const statuses = await rows.evaluateAll((els) => els.map((tr) => tr.querySelectorAll('td')[4].textContent.trim()));
      assert.ok(statuses.every((s) => s === 'failure'), statuses.join());

      // Reports: one filed, then the state filter.
      const site = await (await env.fetch('/api/site')).json();
      for (const n of [1, 2]) {
        const filed = await env.fetch('/api/v1/report-abuse', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-API-Key': site.publicApiKey },
          body: JSON.stringify({ reporterUsername: 'Alice_1', targetUsername: `Lists${vp}${n}`, reason: 'botting', description: 'Seen botting in three servers today.', priority: 'low' }),
        });
        assert.equal(filed.status, 201);
      }
      const tab = page.locator('[role="tab"][data-tab="reports"]');
      await tab.click();
      const reports = page.getByRole('tabpanel').locator('[data-report]');
      const open = await adminApi(env, key, '/api/admin/abuse-reports?state=open');
      await page.getByRole('tabpanel').getByLabel('Show', { exact: true }).selectOption('open');
      await eventually(async () =>
        assert.deepEqual(
          await reports.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-report')))),
          open.reports.map((r) => r.id),
        ),
      );
      await page.getByRole('tabpanel').getByLabel('Show', { exact: true }).selectOption('dismissed');
      await visible(page.getByRole('tabpanel').getByText('No dismissed reports.', { exact: true }));
      await assertNoHorizontalOverflow(page, `reports tab (${vp})`);
      env.assertNoConsoleErrors(page);
    });
  }
});
