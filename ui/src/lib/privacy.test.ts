import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_PRIVACY,
  PRIVACY_COOKIE,
  clearAllData,
  cookieNames,
  defaultPrivacy,
  expireCookieStrings,
  loadPrivacy,
  parsePrivacy,
  privacyCookieString,
  readCookie,
  savePrivacy,
  serializePrivacy,
} from './privacy';

describe('privacy defaults', () => {
  it('ipLogging, analytics and marketing off, functional on', () => {
    expect(DEFAULT_PRIVACY).toEqual({ ipLogging: false, analytics: false, functional: true, marketing: false });
    const d = defaultPrivacy();
    d.ipLogging = true;
    expect(DEFAULT_PRIVACY.ipLogging).toBe(false);
  });
});

describe('parsePrivacy', () => {
  it('reads plain and url-encoded JSON', () => {
    const prefs = { ipLogging: true, analytics: false, functional: true as const, marketing: true };
    expect(parsePrivacy(JSON.stringify(prefs))).toEqual(prefs);
    expect(parsePrivacy(encodeURIComponent(JSON.stringify(prefs)))).toEqual(prefs);
  });
  it('returns null for missing or broken input', () => {
    expect(parsePrivacy(null)).toBeNull();
    expect(parsePrivacy('')).toBeNull();
    expect(parsePrivacy('{nope')).toBeNull();
    expect(parsePrivacy('[1]')).toBeNull();
    expect(parsePrivacy('%E0%A4%A')).toBeNull();
  });
  it('keeps functional on and fills gaps with defaults', () => {
    expect(parsePrivacy('{"functional":false,"analytics":"yes","marketing":true}')).toEqual({
      ipLogging: false,
      analytics: false,
      functional: true,
      marketing: true,
    });
  });
});

describe('serialization', () => {
  it('round-trips through the cookie string', () => {
    const prefs = { ipLogging: true, analytics: true, functional: true as const, marketing: false };
    const cookie = privacyCookieString(prefs);
    expect(cookie).toMatch(/^fanhub_privacy=[^;\s]+; Path=\/; Max-Age=31536000; SameSite=Lax$/);
    const value = cookie.slice(PRIVACY_COOKIE.length + 1, cookie.indexOf(';'));
    expect(value).not.toMatch(/[{}",]/);
    expect(parsePrivacy(value)).toEqual(prefs);
    expect(JSON.parse(decodeURIComponent(value))).toEqual(prefs);
    expect(privacyCookieString(prefs, true)).toMatch(/; Secure$/);
  });
  it('writes only the four keys', () => {
    expect(JSON.parse(serializePrivacy({ ...defaultPrivacy(), extra: 1 } as never))).toEqual(DEFAULT_PRIVACY);
  });
});

describe('cookie helpers', () => {
  it('reads a cookie and lists names', () => {
    const s = 'a=1; fanhub_privacy=%7B%7D; b=x=y; flag';
    expect(readCookie(s, 'fanhub_privacy')).toBe('%7B%7D');
    expect(readCookie(s, 'b')).toBe('x=y');
    expect(readCookie(s, 'missing')).toBeNull();
    expect(cookieNames(s)).toEqual(['a', 'fanhub_privacy', 'b', 'flag']);
    expect(cookieNames('')).toEqual([]);
  });
  it('expires on every path prefix and parent domain', () => {
    const out = expireCookieStrings('a', 'www.example.com', '/x/y');
    expect(out).toContain('a=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/');
    expect(out).toContain('a=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/x/y; Domain=example.com');
    expect(out.some((s) => s.includes('Domain=com'))).toBe(false);
    expect(expireCookieStrings('a', '127.0.0.1', '/')).toHaveLength(1);
  });
});

describe('browser storage', () => {
  afterEach(() => {
    localStorage.clear();
    for (const name of cookieNames(document.cookie)) document.cookie = `${name}=; Max-Age=0; Path=/`;
  });

  it('loads defaults, saves to cookie and localStorage, clears everything', () => {
    expect(loadPrivacy()).toEqual(DEFAULT_PRIVACY);
    const prefs = { ipLogging: true, analytics: false, functional: true as const, marketing: true };
    savePrivacy(prefs);
    expect(readCookie(document.cookie, PRIVACY_COOKIE)).not.toBeNull();
    expect(parsePrivacy(localStorage.getItem('fanhub_privacy'))).toEqual(prefs);
    expect(loadPrivacy()).toEqual(prefs);
    document.cookie = 'other=1; Path=/';
    localStorage.setItem('x', 'y');
    clearAllData();
    expect(localStorage.length).toBe(0);
    expect(document.cookie).toBe('');
    expect(loadPrivacy()).toEqual(DEFAULT_PRIVACY);
  });
});
