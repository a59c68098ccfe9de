// A real browser-console helper for admins on /admin-access: `fanhubAdmin.verify('<key>')` checks a key against
// the server (POST /api/admin/verify-key) and logs the answer. No eval; CSP-safe (it is ordinary bundled code).
import { apiRequest, errorSentence } from '../../lib/api';

export interface FanhubAdminHelper {
  /** Verifies an admin key; on success the browser also gets an admin session. Resolves true when accepted. */
  verify(key: string): Promise<boolean>;
}

declare global {
  interface Window {
    fanhubAdmin?: FanhubAdminHelper;
  }
}

export function createConsoleHelper(log: (...args: unknown[]) => void = console.log): FanhubAdminHelper {
  return {
    async verify(key: string) {
      const trimmed = typeof key === 'string' ? key.trim() : '';
      if (!trimmed) {
        log('[fanhub] Usage: fanhubAdmin.verify("<admin key>")');
        return false;
      }
      try {
        await apiRequest('POST', '/api/admin/verify-key', { key: trimmed });
        log('[fanhub] Admin key accepted. Open /admin to use the control center.');
        return true;
      } catch (err) {
        log(`[fanhub] Admin key rejected: ${errorSentence(err, 'Failed to verify admin key')}`);
        return false;
      }
    },
  };
}

/** Registers window.fanhubAdmin; returns the function that removes it again. */
export function installConsoleHelper(): () => void {
  const helper = createConsoleHelper();
  window.fanhubAdmin = helper;
  return () => {
    if (window.fanhubAdmin === helper) delete window.fanhubAdmin;
  };
}
