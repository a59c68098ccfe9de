/**
 * Page-view beacons. The server counts the first load itself when it serves the shell, so the app reports
 * only client-side navigations after the first location.
 */
export function sendPageview(path: string): boolean {
  if (typeof navigator === 'undefined' || typeof navigator.sendBeacon !== 'function') return false;
  try {
    return navigator.sendBeacon('/api/pageview', JSON.stringify({ path }));
  } catch {
    return false;
  }
}

/**
 * Returns a function to call with every location the router reports. It skips the first location and
 * repeated identical locations, and beacons every change after that.
 */
export function createPageviewTracker(send: (path: string) => unknown = sendPageview) {
  let last: string | null = null;
  return (path: string) => {
    if (last === null) {
      last = path;
      return;
    }
    if (path === last) return;
    last = path;
    send(path);
  };
}
