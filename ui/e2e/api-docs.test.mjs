// /api-docs on desktop and phone: key generation (validation, toast, shown once, cleared by the next), the key
// list with the server's usage figures, revoking, the database check with the server's figures, and EVERY curl
// example of every tab read from the page and run exactly as printed by /bin/sh against the server under test.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useSuite, VIEWPORT_NAMES, visible, hidden, hasText, eventually, pageText } from './harness.mjs';
import { assertNoHorizontalOverflow, dismissToasts, expectToast } from './admin-helpers.mjs';

const KEY_RE = /^fhk_[0-9a-f]{40}$/;
const TABS = ['Getting Started', 'Core APIs', 'Group Scanning', 'Commands & Guides', 'Analytics', 'Testing'];
// The /api/v1 paths the page must give a working example for.
const DOCUMENTED = [
  '/health',
  '/database',
  '/stats',
  '/events',
  '/discord-updates',
  '/wiki',
  '/commands',
  '/commands/category/',
  '/commands/search',
  '/commands/popular',
  '/guides',
  '/guides/category/',
  '/guides/search',
  '/analytics',
  '/commands-stats',
];
// Chromium logs the answers we provoke on purpose (a revoked or wrong key).
const EXPECTED_401 = /Failed to load resource: the server responded with a status of 401/;

// curl reads $CURL_HOME/.curlrc: it adds the HTTP status after the body, so the printed text runs unchanged.
let curlHome = '';
before(() => {
  curlHome = mkdtempSync(path.join(os.tmpdir(), 'fanhub-curl-'));
  writeFileSync(path.join(curlHome, '.curlrc'), 'write-out = "\\n%{http_code}"\n');
});
after(() => rmSync(curlHome, { recursive: true, force: true }));

/** Runs a printed command with /bin/sh exactly as a terminal would; resolves {code, status, body}. */
function runPrinted(text) {
  return new Promise((resolve) => {
    execFile(
      '/bin/sh',
      ['-c', text],
      { timeout: 15_000, env: { PATH: '/usr/bin:/bin', CURL_HOME: curlHome, HOME: curlHome } },
      (err, stdout, stderr) => {
        const nl = stdout.lastIndexOf('\n');
        resolve({ code: err ? (err.code ?? 1) : 0, status: Number(stdout.slice(nl + 1)), body: stdout.slice(0, nl), stderr });
      },
    );
  });
}

/** Selects a tab (by click, as a visitor does) and waits for its panel. */
async function openTab(page, name) {
  const tab = page.getByRole('tab', { name, exact: true });
  await tab.click();
  await eventually(async () => assert.equal(await tab.getAttribute('aria-selected'), 'true'));
  const panel = page.getByRole('tabpanel');
  await visible(panel);
  return panel;
}

/** The curl examples of the open tab, as printed. */
async function curlsOf(page, name) {
  const panel = await openTab(page, name);
  if (name === 'Commands & Guides') {
    // the category examples appear once the real categories are loaded
    await visible(panel.locator('[data-curl="commands-category"]'));
    await visible(panel.locator('[data-curl="guides-category"]'));
  }
  const codes = panel.locator('[data-curl]');
  const texts = [];
  for (let i = 0, n = await codes.count(); i < n; i++) {
    const code = codes.nth(i);
    await code.scrollIntoViewIfNeeded();
    assert.ok(await code.isVisible(), `${name}: example ${i} is visible`);
    texts.push((await code.innerText()).trim());
  }
  return texts;
}

/** Reads every tab's examples, checks each is built from this origin and `key`, and runs it as printed. */
async function runEveryExample(env, page, key) {
  const seen = [];
  const counts = {};
  for (const name of TABS) {
    const texts = await curlsOf(page, name);
    counts[name] = texts.length;
    // Every tab fits the screen: a long signature wraps instead of widening every card (it did on a phone).
    await assertNoHorizontalOverflow(page);
    for (const text of texts) {
      const m = /^curl -s (?:-H "X-API-Key: ([^"]+)" )?"([^"]+)"$/.exec(text);
      assert.ok(m, `${name}: the example reads as curl -s [-H "X-API-Key: KEY"] "URL": ${text}`);
      const url = new URL(m[2]);
      assert.equal(url.origin, env.baseUrl, `${name}: the example calls this server: ${text}`);
      assert.ok(url.pathname.startsWith('/api/v1/'), `${name}: under the base URL: ${text}`);
      const apiPath = url.pathname.slice('/api/v1'.length);
      if (apiPath === '/health') assert.equal(m[1], undefined, 'health is shown without a key');
      else assert.equal(m[1], key, `${name}: the example sends the current key: ${text}`);

      const run = await runPrinted(text);
      assert.equal(run.code, 0, `${text}\nexits 0 (stderr: ${run.stderr})`);
      assert.ok(run.status >= 200 && run.status < 300, `${text}\nanswers 2xx, got ${run.status}: ${run.body.slice(0, 300)}`);
      let body;
      assert.doesNotThrow(() => (body = JSON.parse(run.body)), `${text}\nanswers JSON: ${run.body.slice(0, 300)}`);
      assert.equal(typeof body, 'object', `${text}: a JSON object`);
      assert.equal(body.error, undefined, `${text}: not an error answer`);
      seen.push(apiPath);
    }
  }
  assert.ok(
    counts['Getting Started'] >= 1 && counts['Group Scanning'] >= 3 && counts['Core APIs'] >= 6 && counts['Commands & Guides'] >= 9 && counts.Analytics >= 3,
    JSON.stringify(counts),
  );
  for (const p of DOCUMENTED) {
    assert.ok(
      seen.some((s) => (p.endsWith('/') ? s.startsWith(p) : s === p)),
      `a working example of ${p} (examples run: ${seen.join(', ')})`,
    );
  }
  return seen.length;
}

async function generate(page, name) {
  await page.getByLabel('Key name').fill(name);
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
}

function keyCard(page, prefix) {
  return page.locator(`[data-key-prefix="${prefix}"]`);
}

/** A figure (dt/dd pair) of a key card. */
async function figure(card, term) {
  return (await card.locator(`xpath=.//dt[normalize-space()="${term}"]/following-sibling::dd[1]`).innerText()).trim();
}

describe('/api-docs', () => {
  const env = useSuite();

  for (const vp of VIEWPORT_NAMES) {
    it(`generate: validation, toast, shown once, cleared by the next; the list's usage; revoke (${vp})`, async () => {
      const page = await env.open(vp, '/api-docs', { permissions: ['clipboard-read', 'clipboard-write'] });
      await visible(page.getByRole('heading', { level: 1, name: 'API Documentation' }));
      assert.equal((await page.getByTestId('base-url').innerText()).trim(), `${env.baseUrl}/api/v1`);
      await hasText(page, '100 requests per minute');
      await hasText(page, '1,000 requests per hour');
      await hasText(page, '10,000 requests per day');
      await hasText(page, 'No keys yet');

      // empty (blank) name
      await generate(page, '   ');
      await expectToast(page, 'Error', { description: 'Please enter a key name', destructive: true });
      assert.equal(await page.getByTestId('created-key').count(), 0);
      await dismissToasts(page);

      await generate(page, `e2e ${vp} first`);
      await expectToast(page, 'API key generated successfully', { destructive: false });
      const first = (await page.getByTestId('created-key').innerText()).trim();
      assert.match(first, KEY_RE);
      await hasText(page, `your new key “e2e ${vp} first”`);
      // Copy: the full key to the clipboard, Copied! for about 2 s
      await page.getByRole('button', { name: 'Copy Key', exact: true }).click();
      await visible(page.getByRole('button', { name: 'Copied!', exact: true }));
      await expectToast(page, 'Copied to clipboard');
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), first);
      await visible(page.getByRole('button', { name: 'Copy Key', exact: true }), 4_000);

      // the list: the 12-character prefix, never the full key; fresh usage
      const prefix1 = first.slice(0, 12);
      let card = keyCard(page, prefix1);
      await visible(card);
      assert.ok((await card.innerText()).includes(`${prefix1}…`));
      assert.ok(!(await page.getByTestId('key-list').innerText()).includes(first), 'the list never shows a full key');
      assert.equal(await figure(card, 'Requests'), '0');
      assert.equal(await figure(card, 'Last used'), 'Never');

      // three calls with the key, then the list shows the server's counts
      for (let i = 0; i < 3; i++) {
        const res = await env.fetch('/api/v1/stats', { headers: { 'X-API-Key': first } });
        assert.equal(res.status, 200);
        for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.ok(res.headers.get(h), `${h} on a keyed answer`);
      }
      const serverKeys = async () => (await page.evaluate(() => fetch('/api/keys').then((r) => r.json()))).keys;
      const mine = (await serverKeys()).find((k) => k.key === prefix1);
      assert.equal(mine.requests, 3);
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await eventually(async () => assert.equal(await figure(card, 'Requests'), '3'));
      assert.equal(await figure(card, 'Last used'), await page.evaluate((iso) => { const d = new Date(iso); return `${d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' })}, ${d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' })}`; }, mine.lastUsed));
      assert.equal(await figure(card, 'Last IP'), mine.lastUsedFromIp);
      assert.equal(await figure(card, 'Unique IPs'), String(mine.uniqueIps));
      assert.equal(await figure(card, 'Created'), await page.evaluate((iso) => { const d = new Date(iso); return `${d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' })}, ${d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' })}`; }, mine.created));

      // the next generation clears the first key from view; only the new one is shown
      await dismissToasts(page);
      await generate(page, `e2e ${vp} second`);
      await expectToast(page, 'API key generated successfully');
      const second = (await page.getByTestId('created-key').innerText()).trim();
      assert.match(second, KEY_RE);
      assert.notEqual(second, first);
      assert.equal(await page.getByTestId('created-key').count(), 1);
      assert.ok(!(await pageText(page)).includes(first), 'the first key is no longer shown anywhere');
      const prefix2 = second.slice(0, 12);
      await visible(keyCard(page, prefix2));
      assert.deepEqual((await serverKeys()).map((k) => k.key), [prefix2, prefix1], 'newest first, as the server lists them');
      await eventually(async () =>
        assert.deepEqual(await page.locator('[data-key-prefix]').evaluateAll((els) => els.map((e) => e.getAttribute('data-key-prefix'))), [prefix2, prefix1]),
      );

      // revoke the first: confirmation, then gone from the list and refused by the server
      await dismissToasts(page);
      card = keyCard(page, prefix1);
      await card.getByRole('button', { name: /^Revoke/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke this API key?' });
      await visible(dialog);
      assert.equal((await serverKeys()).length, 2, 'nothing is revoked before the confirmation');
      await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
      await hidden(dialog);
      await hidden(keyCard(page, prefix1));
      await expectToast(page, 'API key revoked');
      assert.deepEqual((await serverKeys()).map((k) => k.key), [prefix2]);
      assert.equal((await env.fetch('/api/v1/stats', { headers: { 'X-API-Key': first } })).status, 401, 'the revoked key is refused');
      assert.equal((await env.fetch('/api/v1/stats', { headers: { 'X-API-Key': second } })).status, 200, 'the other key still works');

      await assertNoHorizontalOverflow(page);
      env.assertNoConsoleErrors(page);
    });

    it(`every curl example on every tab runs as printed: public key, then a generated key (${vp})`, async () => {
      const site = await env.api('/api/site');
      assert.match(site.publicApiKey ?? '', /\S/, 'the server exposes a public key');
      const page = await env.open(vp, '/api-docs');
      await hasText(page, "The examples use the site's public key");
      const n = await runEveryExample(env, page, site.publicApiKey);
      assert.ok(n >= 19, `${n} examples run`);
      const scanning = await openTab(page, 'Group Scanning');
      await visible(scanning.getByRole('button', { name: 'Start scan' }));

      await openTab(page, 'Getting Started');
      await generate(page, `e2e ${vp} curl`);
      const key = (await page.getByTestId('created-key').innerText()).trim();
      assert.match(key, KEY_RE);
      await hasText(page, `The examples use your new key “e2e ${vp} curl”`);
      const m = await runEveryExample(env, page, key);
      assert.equal(m, n);
      // the calls were counted on the new key
      await openTab(page, 'Getting Started');
      const card = keyCard(page, key.slice(0, 12));
      await eventually(async () => assert.equal(await figure(card, 'Requests'), String(m - 1)), { timeout: 5_000 }); // health takes no key
      await assertNoHorizontalOverflow(page);
      env.assertNoConsoleErrors(page);
    });

    it(`Testing: the database check shows the server's schema, size and journal mode; empty and wrong keys are reported (${vp})`, async () => {
      const site = await env.api('/api/site');
      const page = await env.open(vp, '/api-docs#testing');
      const panel = page.getByRole('tabpanel');
      const input = panel.getByLabel('API key');
      await eventually(async () => assert.equal(await input.inputValue(), site.publicApiKey), { timeout: 5_000 });

      const db = async () => (await env.api('/api/database', { headers: { 'X-API-Key': site.publicApiKey } })).database;
      const before = await db();
      await panel.getByRole('button', { name: 'Check database' }).click();
      await visible(page.getByTestId('db-info'));
      const after = await db();
      assert.equal((await page.getByTestId('db-schema').innerText()).trim(), String(after.schemaVersion));
      assert.equal((await page.getByTestId('db-journal').innerText()).trim().toLowerCase(), after.journalMode);
      assert.equal((await page.getByTestId('db-status').innerText()).trim(), 'Up to date');
      assert.deepEqual(Object.keys(after).sort(), ['journalMode', 'latestSchemaVersion', 'schemaVersion', 'sizeBytes'], 'no row counts or backup time');
      if (before.sizeBytes === after.sizeBytes) {
        assert.equal(await page.getByTestId('db-size').getAttribute('title'), `${after.sizeBytes.toLocaleString('en-US')} bytes`);
      }

      await input.fill('');
      await panel.getByRole('button', { name: 'Check database' }).click();
      await eventually(async () => assert.equal((await panel.getByRole('alert').innerText()).trim(), 'Please enter an API key'));
      assert.equal(await page.getByTestId('db-info').count(), 0);

      await input.fill('fhk_0000000000000000000000000000000000000000');
      await panel.getByRole('button', { name: 'Check database' }).click();
      await eventually(async () => assert.equal((await panel.getByRole('alert').innerText()).trim(), 'Invalid API key'));
      env.assertNoConsoleErrors(page, { allow: [EXPECTED_401] });
    });
  }
});
