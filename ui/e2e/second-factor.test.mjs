// Second factors for admin accounts, in the browser: an authenticator app set up from /account (the
// code computed here from the secret the page shows), recovery codes shown once and single-use, the
// second step of /login; a passkey through Chromium's virtual authenticator (DevTools protocol's
// WebAuthn domain): added, used to sign in, and refused once the authenticator lost it; and a site
// that requires a second factor keeping a factor-less admin account out of /admin until it adds one.
//
// Rate limits: sign-in steps allow 10 a minute per IP, so each part has its own server.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { atPath, hasCount, newPage, useSuite, visible } from './harness.mjs';
import { assertNoHorizontalOverflow, expectToast, failedLoad, registerUser } from './admin-helpers.mjs';
import { assertClean, axeViolations } from './axe.mjs';
import { stepNow, totp } from './totp.mjs';

const PASSWORD = 'correct horse battery';

/** Registers `name` and makes it an admin with the CLI's admin key. */
async function adminAccount(env, name) {
  const user = await registerUser(env, name, PASSWORD);
  const res = await env.fetch(`/api/admin/users/${user.id}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json', 'X-Admin-Key': await env.adminKey() },
    body: JSON.stringify({ role: 'admin' }),
  });
  assert.equal(res.status, 200, `made ${name} an admin`);
  return user;
}

async function signInWithPassword(page, name) {
  await page.getByLabel('Username', { exact: true }).fill(name);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.locator('main form').getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function signOutFromAccount(page) {
  await page.goto('/account');
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await atPath(page, '/');
}

describe('an authenticator app and recovery codes', () => {
  const env = useSuite({ withDataDir: true });

  it('an admin sets up the app from /account, saves ten recovery codes, then signs in with a code (desktop, then phone)', async () => {
    await adminAccount(env, 'e2e_totp_admin');
    const page = await env.open('desktop', '/login');
    await signInWithPassword(page, 'e2e_totp_admin');
    await atPath(page, '/');
    // The name in the bar leads to the account page.
    await page.getByRole('banner').getByRole('link', { name: 'e2e_totp_admin' }).click();
    await atPath(page, '/account');
    const card = page.getByTestId('second-factors');
    await visible(card.getByText('Password only', { exact: true }));
    await card.getByRole('button', { name: 'Set up', exact: true }).click();
    const setup = page.getByTestId('totp-setup');
    await visible(setup.getByRole('img', { name: 'QR code to scan with your authenticator app' }));
    const secret = (await setup.getByTestId('totp-secret').innerText()).replace(/\s+/g, '');
    assert.match(secret, /^[A-Z2-7]{32}$/, 'a 160-bit base32 secret');
    assertClean(await axeViolations(page), '/account while setting up an authenticator app');

    // A wrong code is refused under the field, in words.
    const codeField = setup.getByLabel('6-digit code from the app', { exact: true });
    await codeField.fill(totp(secret, stepNow() - 5));
    await setup.getByRole('button', { name: 'Turn on', exact: true }).click();
    await visible(setup.getByText(/That is not the app's current code/));
    const confirmStep = stepNow();
    await codeField.fill(totp(secret, confirmStep));
    await setup.getByRole('button', { name: 'Turn on', exact: true }).click();

    const codesPanel = page.getByTestId('recovery-codes');
    await visible(codesPanel.getByRole('heading', { name: 'Save your recovery codes now' }));
    const codes = (await codesPanel.locator('li').allInnerTexts()).map((c) => c.trim());
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10, 'ten different codes');
    for (const code of codes) assert.match(code, /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    await expectToast(page, 'Authenticator app added');
    assertClean(await axeViolations(page), '/account showing the recovery codes');
    await codesPanel.getByRole('button', { name: 'I saved them', exact: true }).click();
    await hasCount(page.getByTestId('recovery-codes'), 0);
    await visible(card.getByText('Second factor on', { exact: true }));
    await visible(card.getByTestId('recovery-codes-left').getByText(/^10 of 10 left/));
    await signOutFromAccount(page);

    // On a phone: the password step asks for the code; the code of a later step signs in.
    const phone = await env.open('phone', '/login');
    await signInWithPassword(phone, 'e2e_totp_admin');
    await visible(phone.getByRole('heading', { level: 1, name: 'One more step' }));
    await hasCount(phone.getByRole('button', { name: 'Use your security key or passkey' }), 0);
    const noSession = await phone.request.get('/api/auth/user');
    assert.equal(noSession.status(), 401, 'no session before the second factor');
    await assertNoHorizontalOverflow(phone, 'the second step on a phone');
    const field = phone.getByLabel('Code from your authenticator app', { exact: true });
    assert.equal(await field.getAttribute('inputmode'), 'numeric', 'phones show the number pad');
    assert.equal(await field.getAttribute('autocomplete'), 'one-time-code');
    // The confirming code's step is used: the next one is the first a sign-in may take.
    await field.fill(totp(secret, Math.max(stepNow(), confirmStep + 1)));
    await phone.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectToast(phone, 'Welcome back!');
    await atPath(phone, '/');
    assert.equal((await phone.request.get('/api/auth/user')).status(), 200);
    await phone.goto('/account');
    await visible(phone.getByTestId('second-factors').getByText('Second factor on', { exact: true }));
    await assertNoHorizontalOverflow(phone, '/account on a phone');

    // A recovery code signs in once.
    const other = await env.open('phone', '/login');
    await signInWithPassword(other, 'e2e_totp_admin');
    await other.getByRole('button', { name: 'Lost your phone? Use a recovery code' }).click();
    await other.getByLabel('Recovery code', { exact: true }).fill(codes[0].toUpperCase());
    await other.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectToast(other, 'Welcome back!');
    await signOutFromAccount(other);
    await other.goto('/login');
    await signInWithPassword(other, 'e2e_totp_admin');
    await other.getByRole('button', { name: 'Lost your phone? Use a recovery code' }).click();
    await other.getByLabel('Recovery code', { exact: true }).fill(codes[0]);
    await other.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectToast(other, 'Sign-in not finished', { description: 'That code is not right.', destructive: true });
    assert.equal((await other.request.get('/api/auth/user')).status(), 401, 'a used code opens nothing');
    env.assertNoConsoleErrors(page, { allow: [failedLoad(400, 401)] });
    env.assertNoConsoleErrors(other, { allow: [failedLoad(401)] });
  });
});

describe('a passkey through the virtual authenticator', () => {
  const env = useSuite({ withDataDir: true });

  it('an admin adds a passkey, signs in with it, and is refused once the authenticator lost it (desktop)', async () => {
    await adminAccount(env, 'e2e_key_admin');
    // Browsers allow WebAuthn on a domain name only: the same server by the name localhost.
    const byName = env.baseUrl.replace('127.0.0.1', 'localhost');
    const { context, page } = await newPage(env.browser, byName, 'desktop');
    env.contexts.push(context);
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });

    await page.goto('/login');
    await signInWithPassword(page, 'e2e_key_admin');
    await atPath(page, '/');
    await page.goto('/account');
    const card = page.getByTestId('second-factors');
    await card.getByLabel('Name for a new key', { exact: true }).fill('Test laptop');
    await card.getByRole('button', { name: 'Add a key', exact: true }).click();
    await visible(page.getByTestId('recovery-codes'));
    await expectToast(page, 'Security key added');
    await visible(card.getByRole('list', { name: 'Your security keys' }).getByText('Test laptop', { exact: true }));
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1, 'the authenticator holds the new passkey');
    await page.getByRole('button', { name: 'I saved them', exact: true }).click();
    await signOutFromAccount(page);

    // Signing in: the password, then the key.
    await page.goto('/login');
    await signInWithPassword(page, 'e2e_key_admin');
    const useKey = page.getByRole('button', { name: 'Use your security key or passkey', exact: true });
    await visible(useKey);
    await useKey.click();
    await expectToast(page, 'Welcome back!');
    await atPath(page, '/');
    await page.goto('/account');
    await visible(card.getByText(/last used/));
    await signOutFromAccount(page);

    // The authenticator loses the passkey: the browser finds no key for this site and nothing opens.
    await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credentials[0].credentialId });
    await page.goto('/login');
    await signInWithPassword(page, 'e2e_key_admin');
    await visible(useKey);
    await useKey.click();
    await expectToast(page, 'Sign-in not finished', { destructive: true });
    assert.equal((await page.request.get('/api/auth/user')).status(), 401, 'no session without the key');
    env.assertNoConsoleErrors(page, { allow: [failedLoad(401)] });
  });

  it('by an IP address the page says security keys need the site by its name (phone)', async () => {
    await adminAccount(env, 'e2e_ip_admin');
    const page = await env.open('phone', '/login');
    await signInWithPassword(page, 'e2e_ip_admin');
    await atPath(page, '/');
    await page.goto('/account');
    await visible(page.getByTestId('passkeys-unavailable').getByText(/not by an IP address/));
    await hasCount(page.getByRole('button', { name: 'Add a key' }), 0);
    await assertNoHorizontalOverflow(page, '/account on a phone, by IP');
  });
});

describe('a site that requires a second factor for admins', () => {
  const env = useSuite({ withDataDir: true, serverArgs: ['--require-second-factor'] });

  it('a factor-less admin account is sent from /admin to /account, and gets in once it has one (desktop)', async () => {
    await adminAccount(env, 'e2e_required_admin');
    const page = await env.open('desktop', '/login');
    await signInWithPassword(page, 'e2e_required_admin');
    await atPath(page, '/');
    await page.goto('/admin');
    const refusal = page.getByTestId('admin-account-refused');
    await visible(refusal.getByText('This site requires a second factor for admin accounts.', { exact: true }));
    assertClean(await axeViolations(page), '/admin refusing a factor-less admin account');
    await refusal.getByRole('link', { name: 'Add a second factor' }).click();
    await atPath(page, '/account');
    await visible(page.getByTestId('second-factors').getByText(/requires a second factor for admin accounts/));
    await page.getByRole('button', { name: 'Set up', exact: true }).click();
    const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s+/g, '');
    await page.getByLabel('6-digit code from the app', { exact: true }).fill(totp(secret, stepNow()));
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await visible(page.getByTestId('recovery-codes'));
    await page.getByRole('button', { name: 'I saved them', exact: true }).click();

    await page.goto('/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    const row = page.getByTestId('user-row').filter({ hasText: 'e2e_required_admin' });
    await visible(row.getByTestId('user-second-factor').getByText('2FA: app', { exact: true }));
    await visible(page.getByTestId('users-second-factors').getByText(/1 of 1 admin has a second factor\. This site requires one/));
    env.assertNoConsoleErrors(page, { allow: [failedLoad(403)] });
  });
});
