import { describe, expect, it } from 'vitest';
import { captureAdminKeyFromUrl, takeCapturedAdminKey } from './urlKey';

describe('the admin key in the address', () => {
  it('leaves the address at start, in any spelling the page reads, and is handed over once', () => {
    window.history.replaceState(null, '', '/admin?tab=users&%6bey=fha_secret#top');
    captureAdminKeyFromUrl();
    expect(window.location.pathname + window.location.search + window.location.hash).toBe('/admin?tab=users#top');
    expect(takeCapturedAdminKey()).toBe('fha_secret');
    expect(takeCapturedAdminKey()).toBeNull();
  });

  it("leaves an address without a key, or another page's, as it was", () => {
    window.history.replaceState(null, '', '/commands?q=kick');
    captureAdminKeyFromUrl();
    expect(window.location.search).toBe('?q=kick');
    window.history.replaceState(null, '', '/commands?key=not-for-this-page');
    captureAdminKeyFromUrl();
    expect(window.location.search).toBe('?key=not-for-this-page');
    expect(takeCapturedAdminKey()).toBeNull();
  });
});
