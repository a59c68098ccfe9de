// Privacy preferences: persisted in the functional cookie `fanhub_privacy` (read by the server to
// decide IP logging) and mirrored in localStorage. Cookie value: encodeURIComponent(JSON.stringify(prefs)).

export interface PrivacyPrefs {
  ipLogging: boolean;
  analytics: boolean;
  /** Always on: the cookie that stores these preferences is itself functional. */
  functional: true;
  marketing: boolean;
}

export type PrivacyKey = keyof PrivacyPrefs;

export const PRIVACY_COOKIE = 'fanhub_privacy';
export const PRIVACY_STORAGE_KEY = 'fanhub_privacy';
export const PRIVACY_MAX_AGE = 31_536_000; // one year, in seconds

export const DEFAULT_PRIVACY: Readonly<PrivacyPrefs> = Object.freeze({
  ipLogging: false,
  analytics: false,
  functional: true,
  marketing: false,
});

export function defaultPrivacy(): PrivacyPrefs {
  return { ...DEFAULT_PRIVACY };
}

/** Reads a preferences object; anything missing or not a boolean falls back to the default. */
export function normalizePrivacy(value: unknown): PrivacyPrefs {
  const prefs = defaultPrivacy();
  if (!value || typeof value !== 'object') return prefs;
  const v = value as Record<string, unknown>;
  if (typeof v.ipLogging === 'boolean') prefs.ipLogging = v.ipLogging;
  if (typeof v.analytics === 'boolean') prefs.analytics = v.analytics;
  if (typeof v.marketing === 'boolean') prefs.marketing = v.marketing;
  return prefs;
}

/** Parses a JSON string (optionally URL-encoded); null when absent or unreadable. */
export function parsePrivacy(raw: string | null | undefined): PrivacyPrefs | null {
  if (!raw) return null;
  let text = raw;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // not encoded
  }
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? normalizePrivacy(value) : null;
  } catch {
    return null;
  }
}

/** JSON of exactly the four settings, in a fixed order. */
export function serializePrivacy(prefs: PrivacyPrefs): string {
  const p = normalizePrivacy(prefs);
  return JSON.stringify({ ipLogging: p.ipLogging, analytics: p.analytics, functional: true, marketing: p.marketing });
}

/** The Set-Cookie style string for document.cookie. */
export function privacyCookieString(prefs: PrivacyPrefs, secure = false): string {
  return `${PRIVACY_COOKIE}=${encodeURIComponent(serializePrivacy(prefs))}; Path=/; Max-Age=${PRIVACY_MAX_AGE}; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The raw value of one cookie in a `document.cookie` string, or null. */
export function readCookie(cookieString: string, name: string): string | null {
  for (const part of cookieString.split(';')) {
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (key === name) return eq < 0 ? '' : part.slice(eq + 1).trim();
  }
  return null;
}

/** The names of all cookies in a `document.cookie` string. */
export function cookieNames(cookieString: string): string[] {
  return cookieString
    .split(';')
    .map((part) => {
      const eq = part.indexOf('=');
      return (eq < 0 ? part : part.slice(0, eq)).trim();
    })
    .filter((name) => name.length > 0);
}

/**
 * Strings that expire a cookie for every path prefix of `pathname` and for the host and its parent domains,
 * since document.cookie does not say which path/domain a cookie was set with.
 */
export function expireCookieStrings(name: string, hostname: string, pathname = '/'): string[] {
  const paths = ['/'];
  const segments = pathname.split('/').filter(Boolean);
  for (let i = 1; i <= segments.length; i++) paths.push('/' + segments.slice(0, i).join('/'));
  const labels = hostname.split('.');
  const domains: (string | null)[] = [null];
  if (labels.length > 1 && !/^[\d.]+$/.test(hostname)) {
    for (let i = 0; i < labels.length - 1; i++) domains.push(labels.slice(i).join('.'));
  }
  const out: string[] = [];
  // A __Host- or __Secure- cookie can only be written (so expired) with Secure.
  const secure = /^__(Host|Secure)-/.test(name) ? '; Secure' : '';
  for (const path of paths) {
    for (const domain of domains) {
      out.push(`${name}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=${path}${domain ? `; Domain=${domain}` : ''}${secure}`);
    }
  }
  return out;
}

// ---- browser side ----

/** The saved preferences: cookie first, then localStorage, else the defaults. */
export function loadPrivacy(): PrivacyPrefs {
  if (typeof document !== 'undefined') {
    const fromCookie = parsePrivacy(readCookie(document.cookie, PRIVACY_COOKIE));
    if (fromCookie) return fromCookie;
  }
  try {
    const fromStorage = parsePrivacy(localStorage.getItem(PRIVACY_STORAGE_KEY));
    if (fromStorage) return fromStorage;
  } catch {
    // storage unavailable
  }
  return defaultPrivacy();
}

/** Persists the preferences in the cookie and localStorage. */
export function savePrivacy(prefs: PrivacyPrefs): void {
  const secure = typeof location !== 'undefined' && location.protocol === 'https:';
  document.cookie = privacyCookieString(prefs, secure);
  try {
    localStorage.setItem(PRIVACY_STORAGE_KEY, serializePrivacy(prefs));
  } catch {
    // storage unavailable: the cookie still holds them
  }
}

/** Clears localStorage and every cookie JavaScript can see (HttpOnly session cookies are out of reach). */
export function clearAllData(): void {
  try {
    localStorage.clear();
  } catch {
    // storage unavailable
  }
  for (const name of cookieNames(document.cookie)) {
    for (const s of expireCookieStrings(name, location.hostname, location.pathname)) document.cookie = s;
  }
}
