// Accounts: the current user, login / register / logout, and the pure form validators of the login screen.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiRequest, getQueryFn } from './api';
import type { components } from './api/schema';
import type { User } from './types';

export const USERNAME_MIN = 3;
export const PASSWORD_MIN = 6;

export const MSG_USERNAME = 'Username must be at least 3 characters';
export const MSG_PASSWORD = 'Password must be at least 6 characters';
export const MSG_CONFIRM = "Passwords don't match";

export const CURRENT_USER_KEY = ['/api/auth/user'] as const;

export interface Credentials {
  username: string;
  password: string;
}

export interface RegisterValues extends Credentials {
  /** Only checked on the client; never sent. */
  confirmPassword: string;
}

export type FieldErrors = Partial<Record<'username' | 'password' | 'confirmPassword', string>>;

/**
 * Where to go after signing in: `next` of /login's address when it is a path of this site ("/..." but not "//..." or
 * "/\\...", which browsers read as another host), else home.
 */
export function afterSignIn(next: string | null | undefined): string {
  if (!next || next.length > 512 || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(next) ? '/' : next;
}

/** /login's address that comes back to `path` once signed in. */
export function signInHref(path: string): string {
  return `/login?next=${encodeURIComponent(path)}`;
}

export function validateUsername(username: string): string | undefined {
  return username.trim().length < USERNAME_MIN ? MSG_USERNAME : undefined;
}

export function validatePassword(password: string): string | undefined {
  return password.length < PASSWORD_MIN ? MSG_PASSWORD : undefined;
}

function compact(errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const [k, v] of Object.entries(errors)) if (v) out[k as keyof FieldErrors] = v;
  return out;
}

/** Sign-in form: username and password rules. Empty object = valid. */
export function validateLogin(values: Credentials): FieldErrors {
  return compact({ username: validateUsername(values.username), password: validatePassword(values.password) });
}

/** Registration form: the sign-in rules plus confirmPassword === password (message on confirmPassword). */
export function validateRegister(values: RegisterValues): FieldErrors {
  return compact({
    ...validateLogin(values),
    confirmPassword: values.confirmPassword !== values.password ? MSG_CONFIRM : undefined,
  });
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}

/** The body sent to login/register: trimmed username and the password, never confirmPassword. */
export function credentialsBody(values: Credentials): Credentials {
  return { username: values.username.trim(), password: values.password };
}

/** Server field errors (400 {fields}) restricted to the fields of the form. */
export function serverFieldErrors(err: unknown): FieldErrors {
  if (!(err instanceof ApiError) || !err.fields) return {};
  const out: FieldErrors = {};
  for (const key of ['username', 'password', 'confirmPassword'] as const) {
    const v = err.fields[key];
    if (typeof v === 'string' && v) out[key] = v;
  }
  return out;
}

/** 'Login failed' description: the server's error, else 'Invalid email or password'. */
export function loginFailureText(err: unknown): string {
  if (err instanceof ApiError && (err.serverError || err.serverMessage)) return (err.serverError ?? err.serverMessage)!;
  return 'Invalid email or password';
}

/** 'Registration failed' description: the server's message, else 'Failed to create account'. */
export function registerFailureText(err: unknown): string {
  if (err instanceof ApiError && (err.serverError || err.serverMessage)) return (err.serverError ?? err.serverMessage)!;
  return 'Failed to create account';
}

/** The signed-in user, or null when signed out (401). */
/**
 * Whether the server said a session cookie exists (a readable hint cookie without the secret).
 * Anonymous visitors then never ask for a current user they do not have.
 */
export function hasSessionHint(name: 'fanhub_hint_user' | 'fanhub_hint_admin'): boolean {
  if (typeof document === 'undefined') return false;
  // Over https the server names its cookies __Host-<name>.
  return document.cookie.split(';').some((c) => c.trim().startsWith(`${name}=1`) || c.trim().startsWith(`__Host-${name}=1`));
}

export function useCurrentUser() {
  return useQuery<User | null>({
    queryKey: CURRENT_USER_KEY,
    queryFn: getQueryFn<User>({ on401: 'returnNull' }),
    staleTime: 60_000,
    enabled: hasSessionHint('fanhub_hint_user'),
  });
}

export type AuthResponse = components['schemas']['UserEnvelope'];
/** The password step's 202 when the account has a second factor (lib/secondFactor.ts). */
export type LoginResponse = AuthResponse | components['schemas']['SecondFactorNeeded'];

export function useLogin() {
  return useMutation<LoginResponse, unknown, Credentials>({
    mutationFn: (values) => apiRequest<LoginResponse>('POST', '/api/auth/login', credentialsBody(values)),
  });
}

export function useRegister() {
  return useMutation<AuthResponse, unknown, Credentials>({
    mutationFn: (values) => apiRequest<AuthResponse>('POST', '/api/auth/register', credentialsBody(values)),
  });
}

export function useLogout() {
  const qc = useQueryClient();
  return useMutation<unknown, unknown, void>({
    mutationFn: () => apiRequest('POST', '/api/auth/logout'),
    onSettled: () => {
      qc.setQueryData(CURRENT_USER_KEY, null);
      qc.invalidateQueries({ queryKey: CURRENT_USER_KEY });
      // The server ends this browser's admin session with the sign-in.
      qc.setQueryData(['/api/admin/check-key'], null);
      qc.removeQueries({ queryKey: ['/api/favorites'] });
    },
  });
}
