// The key screens: /admin-access (secret phrase -> challenge -> lifetime key) and /generate-key (a direct key),
// on desktop and phone.
//
// Rate limits (10 a minute per IP and endpoint): the enabled suite makes 4 generate-challenge and 4 verify-key calls.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, VIEWPORT_NAMES, visible, hasCount, hasText, holdRoute, pageText } from './harness.mjs';
import { assertNoHorizontalOverflow, failedLoad } from './admin-helpers.mjs';

// Hermetic: the phrase comes only from the suite that sets it (node --test runs each file in its own process).
delete process.env.FANHUB_ADMIN_PHRASE;

const PHRASE = 'e2e correct horse battery staple';
const NOT_ENABLED = /not enabled/i;

function access(page) {
  return {
    phrase: page.getByLabel('Secret Phrase', { exact: true }),
    generate: page.getByRole('button', { name: 'Generate Challenge', exact: true }),
    create: page.getByRole('button', { name: 'Create Lifetime Key', exact: true }),
    open: page.getByRole('button', { name: 'Access Admin Panel', exact: true }),
    error: page.locator('main').getByRole('alert'),
    steps: page.getByRole('list', { name: 'Steps' }).getByRole('listitem'),
  };
}

async function currentStep(page) {
  return (await access(page).steps.evaluateAll((els) => els.map((e) => e.getAttribute('aria-current')))).indexOf('step') + 1;
}

async function assertPanel(page) {
  await visible(page.getByRole('heading', { level: 1, name: 'Admin Control Center', exact: true }), 15_000);
  await visible(page.getByText('System Online', { exact: true }));
}

/** The phrase is in no page or bundle: the shell and every script it loads. */
async function assertPhraseNotShipped(env) {
  const shell = await (await env.fetch('/admin-access')).text();
  assert.ok(!shell.includes(PHRASE), 'the shell does not carry the phrase');
  const scripts = [...shell.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]);
  const modules = [...shell.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(scripts.length > 0, 'the shell loads a script');
  for (const src of [...scripts, ...modules]) {
    const js = await (await env.fetch(src)).text();
    assert.ok(!js.includes(PHRASE), `${src} does not carry the phrase`);
  }
}

describe('admin key screens (FANHUB_ADMIN_PHRASE set)', () => {
  const env = useSuite({ serverEnv: { FANHUB_ADMIN_PHRASE: PHRASE } });

  it('the secret phrase is in no page or bundle', async () => {
    await assertPhraseNotShipped(env);
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`/admin-access: phrase -> challenge -> lifetime key -> panel (${vp})`, async () => {
      const page = await env.open(vp, '/admin-access');
      const a = access(page);
      await visible(page.getByRole('heading', { level: 1, name: 'Admin Key Creation' }));
      await hasCount(a.steps, 3);
      assert.deepEqual(
        (await a.steps.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
        ['1 Secret Phrase', '2 Verification Challenge', '3 Admin Key Created'],
      );
      assert.equal(await currentStep(page), 1);
      await visible(a.phrase);
      assert.equal(await a.phrase.getAttribute('type'), 'password');

      // the hint: set by the operator, not "hidden in the homepage source"
      const hintId = (await a.phrase.getAttribute('aria-describedby')) ?? '';
      assert.ok(hintId, 'the phrase field has a hint');
      const hint = await page.locator(`[id="${hintId.split(/\s+/)[0]}"]`).innerText();
      assert.match(hint, /operator/i, 'the hint says the phrase is set by the operator');
      assert.doesNotMatch(hint, /source|hidden/i, 'the hint does not send people to the page source');
      assert.doesNotMatch(await pageText(page), /hidden in the (homepage|page) source/i);
      // footer: the browser console helper for admins
      await hasText(page, 'fanhubAdmin.verify(');
      assert.equal(await page.evaluate(() => typeof window.fanhubAdmin?.verify), 'function', 'the console helper exists');
      await assertNoHorizontalOverflow(page, `/admin-access (${vp})`);

      // Generate Challenge is disabled while the field is empty
      assert.ok(await a.generate.isDisabled(), 'disabled while empty');
      await a.phrase.fill('x');
      assert.ok(await a.generate.isEnabled(), 'enabled once something is typed');
      await a.phrase.fill('');
      assert.ok(await a.generate.isDisabled(), 'disabled again when emptied');

      // wrong phrase
      await a.phrase.fill('not the phrase');
      await a.generate.click();
      await visible(a.error);
      assert.equal((await a.error.innerText()).trim(), 'Invalid secret phrase');
      assert.equal(await currentStep(page), 1);

      // right phrase: Verifying... then step 2 with the challenge and the IP
      await a.phrase.fill(PHRASE);
      const hold = await holdRoute(page, '**/api/admin/generate-challenge');
      await a.generate.click();
      const verifying = page.getByRole('button', { name: 'Verifying...', exact: true });
      await visible(verifying);
      assert.ok(await verifying.isDisabled());
      hold.release();
      await visible(page.getByRole('heading', { name: 'Verification Challenge', level: 2 }));
      assert.equal(await currentStep(page), 2);
      await hasCount(a.error, 0);
      const challenge = (await page.getByTestId('challenge').innerText()).trim();
      assert.ok(challenge.length >= 16, `a challenge is shown (${JSON.stringify(challenge)})`);
      await hasText(page, /Your IP address 127\.0\.0\.1 has been registered/);

      // Create Lifetime Key: Creating Key... then step 3 with the key
      const hold2 = await holdRoute(page, '**/api/admin/create-lifetime-key');
      await a.create.click();
      const creating = page.getByRole('button', { name: 'Creating Key...', exact: true });
      await visible(creating);
      assert.ok(await creating.isDisabled());
      hold2.release();
      await visible(page.getByRole('heading', { name: 'Admin Key Created', level: 2 }));
      assert.equal(await currentStep(page), 3);
      const key = (await page.getByTestId('created-key').innerText()).trim();
      assert.match(key, /^\S{24,}$/, 'a key is shown');
      await hasText(page, /tied to your IP address 127\.0\.0\.1/);

      // the key is real and bound to this IP
      const keys = await env.fetch('/api/admin/keys', { headers: { 'X-Admin-Key': key } });
      assert.equal(keys.status, 200, 'the new key opens the admin API');
      const mine = (await keys.json()).keys.find((k) => key.startsWith(k.prefix));
      assert.equal(mine?.source, 'phrase');
      assert.equal(mine?.boundIp, '127.0.0.1');

      // Access Admin Panel -> /admin?key=... -> panel
      const nav = page.waitForURL((u) => u.pathname === '/admin' && u.searchParams.get('key') === key);
      await a.open.click();
      await nav;
      await assertPanel(page);
      assert.equal(new URL(page.url()).searchParams.get('key'), null, 'the key leaves the address bar');
      env.assertNoConsoleErrors(page, { allow: [failedLoad(403)] });
    });

    it(`/generate-key: Generate Admin Key, Copy Key (Copied! for 2 s), Access Admin Panel (${vp})`, async () => {
      const page = await env.open(vp, '/generate-key', { permissions: ['clipboard-read', 'clipboard-write'] });
      await visible(page.getByRole('heading', { level: 1, name: 'Generate Admin Key' }));
      await hasCount(page.getByRole('textbox'), 0);
      assert.equal(await page.getByLabel(/phrase/i).count(), 0, 'no secret phrase is asked');
      await hasCount(page.getByTestId('created-key'), 0);
      await assertNoHorizontalOverflow(page, `/generate-key (${vp})`);

      await page.getByRole('button', { name: 'Generate Admin Key', exact: true }).click();
      const shown = page.getByTestId('created-key');
      await visible(shown);
      const key = (await shown.innerText()).trim();
      assert.match(key, /^\S{24,}$/);
      const res = await env.fetch('/api/admin/stats', { headers: { 'X-Admin-Key': key } });
      assert.equal(res.status, 200, 'the direct key opens the admin API');
      await assertNoHorizontalOverflow(page, `/generate-key with a key (${vp})`);

      const copy = page.getByRole('button', { name: 'Copy Key', exact: true });
      await copy.click();
      const copied = page.getByRole('button', { name: 'Copied!', exact: true });
      await visible(copied);
      const t0 = Date.now();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the clipboard holds the key');
      await visible(page.getByRole('button', { name: 'Copy Key', exact: true }), 5_000);
      const shownFor = Date.now() - t0;
      assert.ok(shownFor >= 1_200 && shownFor <= 3_500, `Copied! reverted after about 2 s (${shownFor} ms after it appeared)`);

      const nav = page.waitForURL((u) => u.pathname === '/admin' && u.searchParams.get('key') === key);
      await page.getByRole('button', { name: 'Access Admin Panel', exact: true }).click();
      await nav;
      await assertPanel(page);
      assert.equal(new URL(page.url()).searchParams.get('key'), null);
      env.assertNoConsoleErrors(page);
    });
  }

  it('/generate-key: a forwarded (non-local) request is refused and the server\'s advice shows (desktop)', async () => {
    const page = await env.open('desktop', '/generate-key');
    await page.route('**/api/admin/generate-direct-key', (route) =>
      route.continue({ headers: { ...route.request().headers(), 'x-forwarded-for': '203.0.113.9' } }),
    );
    await page.getByRole('button', { name: 'Generate Admin Key', exact: true }).click();
    const err = page.getByTestId('direct-key-error');
    await visible(err);
    assert.match(await err.innerText(), /fanhub admin-key/);
    await hasCount(page.getByTestId('created-key'), 0);
    env.assertNoConsoleErrors(page, { allow: [failedLoad(403), /^Failed to generate admin key/] });
  });
});

describe('admin key screens (FANHUB_ADMIN_PHRASE unset)', () => {
  const env = useSuite();

  for (const vp of VIEWPORT_NAMES) {
    it(`/admin-access shows the server's "not enabled" error (${vp})`, async () => {
      const page = await env.open(vp, '/admin-access');
      const a = access(page);
      await a.phrase.fill(PHRASE);
      await a.generate.click();
      await visible(a.error);
      const text = (await a.error.innerText()).trim();
      const body = await (
        await env.fetch('/api/admin/generate-challenge', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ phrase: PHRASE }),
        })
      ).json();
      assert.match(body.error, NOT_ENABLED);
      assert.equal(text, body.error, "the screen shows the server's error");
      assert.equal(await currentStep(page), 1);
      await assertNoHorizontalOverflow(page, `/admin-access error (${vp})`);
      env.assertNoConsoleErrors(page, { allow: [failedLoad(503)] });
    });
  }
});
