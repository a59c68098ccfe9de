import { describe, expect, it } from 'vitest';
import { ApiError } from './api';
import {
  afterSignIn,
  signInHref,
  MSG_CONFIRM,
  MSG_PASSWORD,
  MSG_USERNAME,
  credentialsBody,
  hasErrors,
  loginFailureText,
  registerFailureText,
  serverFieldErrors,
  validateLogin,
  validatePassword,
  validateRegister,
  validateUsername,
} from './auth';

describe('login validators', () => {
  it('needs a username of at least 3 characters', () => {
    expect(validateUsername('ab')).toBe('Username must be at least 3 characters');
    expect(validateUsername('  ab  ')).toBe(MSG_USERNAME);
    expect(validateUsername('abc')).toBeUndefined();
  });
  it('needs a password of at least 6 characters', () => {
    expect(validatePassword('12345')).toBe('Password must be at least 6 characters');
    expect(validatePassword('123456')).toBeUndefined();
    expect(MSG_PASSWORD).toBe('Password must be at least 6 characters');
  });
  it('validates the sign-in form', () => {
    expect(validateLogin({ username: '', password: '' })).toEqual({ username: MSG_USERNAME, password: MSG_PASSWORD });
    expect(validateLogin({ username: 'alice', password: 'secret1' })).toEqual({});
    expect(hasErrors(validateLogin({ username: 'alice', password: 'secret1' }))).toBe(false);
  });
  it('puts the mismatch message on confirmPassword', () => {
    expect(validateRegister({ username: 'alice', password: 'secret1', confirmPassword: 'secret2' })).toEqual({
      confirmPassword: "Passwords don't match",
    });
    expect(MSG_CONFIRM).toBe("Passwords don't match");
    expect(validateRegister({ username: 'alice', password: 'secret1', confirmPassword: 'secret1' })).toEqual({});
    expect(validateRegister({ username: 'a', password: '1', confirmPassword: '1' })).toEqual({ username: MSG_USERNAME, password: MSG_PASSWORD });
  });
  it('never sends confirmPassword and trims the username', () => {
    const body = credentialsBody({ username: ' alice ', password: ' pw pw ', confirmPassword: 'x' } as never);
    expect(body).toEqual({ username: 'alice', password: ' pw pw ' });
    expect('confirmPassword' in body).toBe(false);
  });
});

describe('server errors', () => {
  const err = (status: number, body: unknown) => new ApiError(status, 'x', JSON.stringify(body));
  it('maps field errors of the form', () => {
    expect(serverFieldErrors(err(400, { error: 'bad', fields: { username: 'Only letters', other: 'x' } }))).toEqual({ username: 'Only letters' });
    expect(serverFieldErrors(new Error('net'))).toEqual({});
  });
  it('falls back to the product sentences', () => {
    expect(loginFailureText(err(401, { error: 'Invalid username or password' }))).toBe('Invalid username or password');
    expect(loginFailureText(new TypeError('Failed to fetch'))).toBe('Invalid email or password');
    expect(registerFailureText(err(409, { error: 'That username is taken' }))).toBe('That username is taken');
    expect(registerFailureText(new ApiError(500, 'Internal', ''))).toBe('Failed to create account');
  });
});

describe('where signing in leads', () => {
  it('back to a path of this site, else home', () => {
    expect(afterSignIn('/newgen-detector?username=MidFan')).toBe('/newgen-detector?username=MidFan');
    expect(afterSignIn(signInHref('/x').slice('/login?next='.length))).toBe('/');
    expect(new URLSearchParams(signInHref('/newgen-detector?username=A_1').split('?')[1]).get('next')).toBe('/newgen-detector?username=A_1');
    for (const hostile of [null, '', 'https://evil.example/', '//evil.example', '/\\evil.example', 'javascript:alert(1)', '/x\nSet-Cookie', '/' + 'a'.repeat(600)]) {
      expect(afterSignIn(hostile)).toBe('/');
    }
  });
});
