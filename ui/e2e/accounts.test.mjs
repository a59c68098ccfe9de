// Accounts: the /login screen (sign-in, registration, their checks and toasts) and the favorites / ratings of a
// signed-in user on /commands (with their toasts), on desktop and phone.
//
// Rate limits: login and register allow 10 a minute per IP; this file makes 5 registers and 4 logins.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, VIEWPORT_NAMES, visible, hasCount, hasAttr, atPath, eventually, holdRoute } from './harness.mjs';
import { expectToast, dismissToasts, assertNoHorizontalOverflow, registerUser, failedLoad } from './admin-helpers.mjs';

const SIGN_IN_TEXT = 'Sign in to access your admin dashboard';
const TO_REGISTER = "Don't have an account? Sign up";
const TO_SIGN_IN = 'Already have an account? Sign in';

function form(page) {
  return {
    username: page.getByLabel('Username', { exact: true }),
    password: page.getByLabel('Password', { exact: true }),
    confirm: page.getByLabel('Confirm Password', { exact: true }),
    signIn: page.locator('main form').getByRole('button', { name: 'Sign in', exact: true }),
    create: page.locator('main form').getByRole('button', { name: 'Create Account', exact: true }),
    toRegister: page.getByRole('button', { name: TO_REGISTER, exact: true }),
    toSignIn: page.getByRole('button', { name: TO_SIGN_IN, exact: true }),
  };
}

/** The validation message shown under `input` (linked by aria-describedby, placed below the field). */
async function messageUnder(page, input, text) {
  await hasAttr(input, 'aria-invalid', 'true');
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  const texts = [];
  for (const id of ids) texts.push((await page.locator(`[id="${id}"]`).innerText()).trim());
  assert.ok(texts.includes(text), `the field's description reads ${JSON.stringify(text)} (has ${JSON.stringify(texts)})`);
  const msg = page.getByText(text, { exact: true });
  await visible(msg);
  const [f, m] = [await input.boundingBox(), await msg.boundingBox()];
  assert.ok(m.y >= f.y + f.height - 1, `"${text}" is under its field (field bottom ${f.y + f.height}, message top ${m.y})`);
}

async function assertSignInMode(page) {
  const f = form(page);
  await visible(page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }));
  await visible(page.getByText(SIGN_IN_TEXT, { exact: true }));
  await visible(f.username);
  await visible(f.password);
  await hasCount(f.confirm, 0);
  await visible(f.signIn);
  await visible(f.toRegister);
  assert.equal(await f.password.getAttribute('type'), 'password');
}

describe('accounts: /login', () => {
  const env = useSuite();
  const password = 'hunter22';

  for (const vp of VIEWPORT_NAMES) {
    it(`opens in Sign in mode, toggles to Create Account and back, and fits the screen (${vp})`, async () => {
      const page = await env.open(vp, '/login');
      const f = form(page);
      await assertSignInMode(page);
      await assertNoHorizontalOverflow(page, `/login (${vp})`);

      await f.toRegister.click();
      await visible(page.getByRole('heading', { level: 1, name: 'Create Account', exact: true }));
      await visible(page.getByText(/welcome to the .*community/i));
      assert.equal(await page.getByText(SIGN_IN_TEXT, { exact: true }).count(), 0, 'the sign-in text is gone');
      await visible(f.confirm);
      assert.equal(await f.confirm.getAttribute('type'), 'password');
      await visible(f.create);
      await visible(f.toSignIn);
      await hasCount(f.toRegister, 0);
      await assertNoHorizontalOverflow(page, `/login register mode (${vp})`);

      await f.toSignIn.click();
      await assertSignInMode(page);
      env.assertNoConsoleErrors(page);
    });

    it(`shows the validation messages under the fields and sends nothing when invalid (${vp})`, async () => {
      const page = await env.open(vp, '/login');
      const f = form(page);
      const sent = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/auth/')) sent.push(r.url());
      });

      // Sign in with empty fields
      await f.signIn.click();
      await messageUnder(page, f.username, 'Username must be at least 3 characters');
      await messageUnder(page, f.password, 'Password must be at least 6 characters');

      // Create Account: short username, short password, confirmation that differs
      await f.toRegister.click();
      await f.username.fill('ab');
      await f.password.fill('12345');
      await f.confirm.fill('54321');
      await f.create.click();
      await messageUnder(page, f.username, 'Username must be at least 3 characters');
      await messageUnder(page, f.password, 'Password must be at least 6 characters');
      await messageUnder(page, f.confirm, "Passwords don't match");

      // Valid lengths but still different: only the confirmation message remains
      await f.username.fill('abc');
      await f.password.fill('123456');
      await f.confirm.fill('1234567');
      await f.create.click();
      await messageUnder(page, f.confirm, "Passwords don't match");
      await hasCount(page.getByText('Username must be at least 3 characters', { exact: true }), 0);
      await hasCount(page.getByText('Password must be at least 6 characters', { exact: true }), 0);

      assert.deepEqual(sent, [], 'invalid forms are not submitted');
      env.assertNoConsoleErrors(page);
    });
  }

  it('Create Account: Creating account... while pending, "Account created!" and back to Sign in; a taken name fails (desktop)', async () => {
    const page = await env.open('desktop', '/login');
    const f = form(page);
    await f.toRegister.click();
    await f.username.fill('e2e_alice');
    await f.password.fill(password);
    await f.confirm.fill(password);

    const hold = await holdRoute(page, '**/api/auth/register');
    const body = page.waitForRequest('**/api/auth/register');
    await f.create.click();
    const pendingButton = page.locator('main form').getByRole('button', { name: 'Creating account...', exact: true });
    await visible(pendingButton);
    assert.ok(await pendingButton.isDisabled(), 'the submit button is disabled while pending');
    assert.deepEqual(JSON.parse((await body).postData()), { username: 'e2e_alice', password }, 'confirmPassword is never sent');
    hold.release();

    await expectToast(page, 'Account created!', { description: 'You can now log in with your credentials.', destructive: false });
    await assertSignInMode(page);
    assert.equal((await page.request.get('/api/auth/user')).status(), 401, 'registering does not sign in');

    // the same name again
    await dismissToasts(page);
    await page.unroute('**/api/auth/register');
    await f.toRegister.click();
    await f.username.fill('e2e_alice');
    await f.password.fill(password);
    await f.confirm.fill(password);
    await f.create.click();
    await expectToast(page, 'Registration failed', { description: 'That username is taken', destructive: true });
    await visible(page.getByRole('heading', { level: 1, name: 'Create Account', exact: true }));
    env.assertNoConsoleErrors(page, { allow: [failedLoad(409)] });
  });

  it('Sign in: a wrong password shows "Login failed" with the server\'s error (phone)', async () => {
    await registerUser(env, 'e2e_bob', password);
    const page = await env.open('phone', '/login');
    const f = form(page);
    await f.username.fill('e2e_bob');
    await f.password.fill('wrong-password');
    await f.signIn.click();
    await expectToast(page, 'Login failed', { description: 'Invalid username or password', destructive: true });
    await atPath(page, '/login');
    await assertSignInMode(page);
    env.assertNoConsoleErrors(page, { allow: [failedLoad(401)] });
  });

  it('without a server error the failure toasts fall back to the product texts (desktop)', async () => {
    const page = await env.open('desktop', '/login');
    const f = form(page);
    await page.route('**/api/auth/login', (r) => r.fulfill({ status: 401, body: '' }));
    await page.route('**/api/auth/register', (r) => r.fulfill({ status: 500, body: '' }));
    await f.username.fill('e2e_nobody');
    await f.password.fill(password);
    await f.signIn.click();
    await expectToast(page, 'Login failed', { description: 'Invalid email or password', destructive: true });
    await dismissToasts(page);
    await f.toRegister.click();
    await f.password.fill(password);
    await f.confirm.fill(password);
    await f.create.click();
    await expectToast(page, 'Registration failed', { description: 'Failed to create account', destructive: true });
    env.assertNoConsoleErrors(page, { allow: [failedLoad(401, 500)] });
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`Sign in: Signing in... while pending, "Welcome back!" and redirect to / (${vp})`, async () => {
      const name = `e2e_carol_${vp}`;
      await registerUser(env, name, password);
      const page = await env.open(vp, '/login');
      const f = form(page);
      await f.username.fill(name);
      await f.password.fill(password);
      const hold = await holdRoute(page, '**/api/auth/login');
      await f.signIn.click();
      const pendingButton = page.locator('main form').getByRole('button', { name: 'Signing in...', exact: true });
      await visible(pendingButton);
      assert.ok(await pendingButton.isDisabled(), 'the submit button is disabled while pending');
      hold.release();

      await expectToast(page, 'Welcome back!', { description: 'You have successfully logged in.', destructive: false });
      await atPath(page, '/');
      const me = await page.request.get('/api/auth/user');
      assert.equal(me.status(), 200, 'the browser now has a session');
      assert.equal((await me.json()).username, name);
      env.assertNoConsoleErrors(page);
    });
  }
});

describe('accounts: favorites and ratings on /commands', () => {
  const env = useSuite();
  const password = 'hunter22';

  it('signed out: no favorite or rating controls (desktop)', async () => {
    const page = await env.open('desktop', '/commands');
    await visible(page.getByTestId('command-card'));
    await hasCount(page.getByRole('button', { name: /to favorites$|from favorites$/ }), 0);
    await hasCount(page.getByRole('group', { name: /^Rate / }), 0);
    await hasCount(page.getByRole('button', { name: /^Rate \d stars?$/ }), 0);
    env.assertNoConsoleErrors(page);
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`signed in: favorite toggles with its toasts and a rating is submitted (${vp})`, async () => {
      const name = `e2e_fan_${vp}`;
      const user = await registerUser(env, name, password);
      const page = await env.open(vp, null);
      const login = await page.request.post('/api/auth/login', { data: { username: name, password } });
      assert.equal(login.status(), 200, 'login');
      await page.goto('/commands');

      const card = page.getByTestId('command-card').first();
      await visible(card);
      const id = Number(await card.getAttribute('data-command-id'));
      const cmdName = (await card.locator('h3').innerText()).trim();

      const add = card.getByRole('button', { name: `Add ${cmdName} to favorites`, exact: true });
      await visible(add);
      await hasAttr(add, 'aria-pressed', 'false');
      await add.click();
      await expectToast(page, 'Added to favorites!');
      const remove = card.getByRole('button', { name: `Remove ${cmdName} from favorites`, exact: true });
      await hasAttr(remove, 'aria-pressed', 'true');
      await eventually(async () => {
        const favs = await (await page.request.get('/api/favorites')).json();
        assert.deepEqual(favs, [{ userId: user.id, itemType: 'command', itemId: id }], 'the server stored the favorite');
      });

      await remove.click();
      await expectToast(page, 'Removed from favorites');
      await hasAttr(add, 'aria-pressed', 'false');
      await eventually(async () => {
        assert.deepEqual(await (await page.request.get('/api/favorites')).json(), [], 'the server removed the favorite');
      });

      const rating = vp === 'desktop' ? 4 : 2;
      const group = card.getByRole('group', { name: `Rate ${cmdName}`, exact: true });
      await visible(group);
      await group.getByRole('button', { name: `Rate ${rating} stars`, exact: true }).click();
      await expectToast(page, 'Rating submitted!');
      const cmd = (await env.api('/api/commands')).find((c) => c.id === id);
      assert.ok(cmd.ratingCount >= 1, 'the server counted the rating');
      await visible(card.getByTestId('rating-display'));
      await hasAttr(
        card.getByTestId('rating-display'),
        'aria-label',
        `Average rating ${cmd.avgRating.toFixed(1)} out of 5 from ${cmd.ratingCount} ${cmd.ratingCount === 1 ? 'rating' : 'ratings'}`,
      );
      env.assertNoConsoleErrors(page);
    });
  }
});
