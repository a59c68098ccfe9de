import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import Login from './Login';
import { renderWithClient, site } from '../test/helpers';
import { lastToast, mockApi } from '../components/admin/test-utils';

const user = { id: 5, username: 'alice', email: null, robloxId: null, role: 'user', isActive: true, createdAt: '2026-01-01T00:00:00Z', lastLogin: null };
const signedOut = { '/api/site': site, '/api/auth/user': { status: 401, body: { error: 'Unauthorized' } } };

/** The server of a visitor who signs in as `user`: signed out until the login call. */
function signingInApi() {
  let signedIn = false;
  return mockApi({
    '/api/site': site,
    '/api/auth/user': () => (signedIn ? { status: 200, body: user } : { status: 401, body: { error: 'Unauthorized' } }),
    'POST /api/auth/login': () => {
      signedIn = true;
      return { status: 200, body: { success: true, user } };
    },
  });
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const type = (label: string, value: string) => fireEvent.input(field(label), { target: { value } });

describe('Login screen', () => {
  beforeEach(() => window.history.replaceState(null, '', '/login'));
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('validates under the fields and does not call the server', async () => {
    const api = mockApi(signedOut);
    renderWithClient(<Login />);
    expect(await screen.findByText('Sign in to access your admin dashboard')).toBeTruthy();
    type('Username', 'ab');
    type('Password', '123');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByTestId('username-error').textContent).toBe('Username must be at least 3 characters');
    expect(screen.getByTestId('password-error').textContent).toBe('Password must be at least 6 characters');
    expect(field('Username').getAttribute('aria-invalid')).toBe('true');
    expect(api.callsTo('POST', '/api/auth/login')).toHaveLength(0);
  });

  it('signs in, invalidates the current user and goes home', async () => {
    const api = signingInApi();
    renderWithClient(<Login />);
    await screen.findByText('Sign in to access your admin dashboard');
    type('Username', 'alice');
    type('Password', 'secret1');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Welcome back!', description: 'You have successfully logged in.' }));
    expect(api.callsTo('POST', '/api/auth/login')[0].body).toEqual({ username: 'alice', password: 'secret1' });
    expect(window.location.pathname).toBe('/');
  });

  it('comes back to where "Sign in to follow" was, and never to another site', async () => {
    for (const [next, path, search] of [
      ['%2Fnewgen-detector%3Fusername%3DMidFan', '/newgen-detector', '?username=MidFan'],
      ['%2F%2Fevil.example', '/', ''],
    ]) {
      window.history.replaceState(null, '', `/login?next=${next}`);
      signingInApi();
      renderWithClient(<Login />);
      await screen.findByText('Sign in to access your admin dashboard');
      type('Username', 'alice');
      type('Password', 'secret1');
      fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
      await waitFor(() => expect(window.location.pathname).toBe(path));
      expect(window.location.search).toBe(search);
      cleanup();
      vi.unstubAllGlobals();
    }
  });

  it('shows the login failure toast with the server error', async () => {
    mockApi({ ...signedOut, 'POST /api/auth/login': { status: 401, body: { error: 'Invalid username or password' } } });
    renderWithClient(<Login />);
    await screen.findByText('Sign in to access your admin dashboard');
    type('Username', 'alice');
    type('Password', 'wrongpw');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() =>
      expect(lastToast()).toMatchObject({ title: 'Login failed', description: 'Invalid username or password', variant: 'destructive' }),
    );
  });

  it('registers without sending confirmPassword and returns to sign in', async () => {
    const api = mockApi({
      ...signedOut,
      'POST /api/auth/register': (body) =>
        (body as { username: string }).username === 'taken'
          ? { status: 400, body: { error: 'Invalid input', fields: { username: 'Only letters, digits and _' } } }
          : { status: 201, body: { success: true, user } },
    });
    renderWithClient(<Login />);
    await screen.findByText('Sign in to access your admin dashboard');
    fireEvent.click(screen.getByRole('button', { name: "Don't have an account? Sign up" }));
    expect(await screen.findByText(/Welcome to the Test Game Hub community/)).toBeTruthy();

    type('Username', 'alice');
    type('Password', 'secret1');
    type('Confirm Password', 'secret2');
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(screen.getByTestId('confirmPassword-error').textContent).toBe("Passwords don't match");
    expect(api.callsTo('POST', '/api/auth/register')).toHaveLength(0);

    type('Username', 'taken');
    type('Confirm Password', 'secret1');
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    await waitFor(() => expect(screen.getByTestId('username-error').textContent).toBe('Only letters, digits and _'));
    expect(lastToast()).toMatchObject({ title: 'Registration failed', description: 'Invalid input' });

    type('Username', 'alice');
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Account created!', description: 'You can now log in with your credentials.' }));
    expect(api.callsTo('POST', '/api/auth/register').at(-1)!.body).toEqual({ username: 'alice', password: 'secret1' });
    expect(screen.getByText('Sign in to access your admin dashboard')).toBeTruthy();
    expect(screen.getByRole('button', { name: "Don't have an account? Sign up" })).toBeTruthy();
  });

  it('shows the pending label while signing in', async () => {
    mockApi({ ...signedOut, 'POST /api/auth/login': () => new Promise(() => {}) });
    renderWithClient(<Login />);
    await screen.findByText('Sign in to access your admin dashboard');
    type('Username', 'alice');
    type('Password', 'secret1');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    const btn = (await screen.findByRole('button', { name: 'Signing in...' })) as HTMLButtonElement;
    expect(btn.disabled).toBe(true);
  });

  it('after a right password on an account with a second factor, asks for the code and signs in with it', async () => {
    let signedIn = false;
    const api = mockApi({
      '/api/site': site,
      '/api/auth/user': () => (signedIn ? { status: 200, body: user } : { status: 401, body: { error: 'Unauthorized' } }),
      'POST /api/auth/login': { status: 202, body: { secondFactorRequired: true, methods: ['totp', 'recovery'], expiresIn: 300 } },
      'POST /api/auth/second-factor': () => {
        signedIn = true;
        return { status: 200, body: { success: true, user } };
      },
    });
    renderWithClient(<Login />);
    await screen.findByText('Sign in to access your admin dashboard');
    type('Username', 'alice');
    type('Password', 'secret1');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'One more step' })).toBeTruthy();
    expect(lastToast()?.title).not.toBe('Welcome back!');
    expect(screen.queryByRole('button', { name: 'Use your security key or passkey' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByTestId('code-error').textContent).toBe('Enter the 6-digit code');
    expect(api.callsTo('POST', '/api/auth/second-factor')).toHaveLength(0);
    type('Code from your authenticator app', '123 456');
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Welcome back!' }));
    expect(api.callsTo('POST', '/api/auth/second-factor')[0].body).toEqual({ code: '123456' });
    expect(window.location.pathname).toBe('/');
  });

  it('a wrong code says so and offers a recovery code instead', async () => {
    mockApi({
      ...signedOut,
      'POST /api/auth/login': { status: 202, body: { secondFactorRequired: true, methods: ['totp', 'recovery'], expiresIn: 300 } },
      'POST /api/auth/second-factor': { status: 401, body: { error: 'That code is not right.' } },
    });
    renderWithClient(<Login />);
    await screen.findByText('Sign in to access your admin dashboard');
    type('Username', 'alice');
    type('Password', 'secret1');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByRole('heading', { name: 'One more step' });
    type('Code from your authenticator app', '000000');
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(screen.getByTestId('code-error').textContent).toBe('That code is not right.'));
    expect(lastToast()).toMatchObject({ title: 'Sign-in not finished', variant: 'destructive' });
    fireEvent.click(screen.getByRole('button', { name: 'Lost your phone? Use a recovery code' }));
    expect(field('Recovery code').getAttribute('inputmode')).toBe('text');
    fireEvent.click(screen.getByRole('button', { name: 'Start over' }));
    expect(await screen.findByText('Sign in to access your admin dashboard')).toBeTruthy();
  });
});
