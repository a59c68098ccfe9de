/**
 * An admin key in the address (`/admin?key=…`, the link the key creation screens and the seed
 * give) is taken out of it the moment the app starts, before any other script or picture loads
 * and could carry the address in its Referer, and before the admin page's code arrives. The page
 * then asks for it once with `takeCapturedAdminKey()`.
 */
let captured: string | null = null;

/** The admin page's path, however it is spelled (/admin, /ADMIN/, //admin). */
const ADMIN_PATH = /^\/+admin(\/|$)/i;

/** On the admin page, removes `key` from the address (history.replaceState) and keeps it for it. */
export function captureAdminKeyFromUrl(): void {
  if (typeof window === 'undefined' || !ADMIN_PATH.test(window.location.pathname)) return;
  const url = new URL(window.location.href);
  const key = url.searchParams.get('key');
  if (key === null) return;
  url.searchParams.delete('key');
  const search = url.searchParams.toString();
  window.history.replaceState(window.history.state, '', url.pathname + (search ? `?${search}` : '') + url.hash);
  captured = key;
}

/** The key taken from the address, once (null after the first call, or when there was none). */
export function takeCapturedAdminKey(): string | null {
  captureAdminKeyFromUrl();
  const key = captured;
  captured = null;
  return key;
}
