import { describe, expect, it } from 'vitest';
import { serverState } from './health';
import type { Health } from './types';

const health = (status: string, database = 'ok'): Health =>
  ({ status, database, version: '1.0.0', build: 'abc', startedAt: '2026-01-01T00:00:00Z' }) as Health;

describe('serverState', () => {
  it('maps the health answer to online, degraded, unreachable and checking', () => {
    expect(serverState(health('ok'), false)).toBe('online');
    expect(serverState(health('degraded', 'error'), false)).toBe('degraded');
    expect(serverState(undefined, true)).toBe('unreachable');
    expect(serverState(undefined, false)).toBe('checking');
  });

  it('is unreachable when the last poll failed, even with an earlier answer cached', () => {
    expect(serverState(health('ok'), true)).toBe('unreachable');
  });

  it('treats any status other than ok as degraded', () => {
    expect(serverState(health('disk-full'), false)).toBe('degraded');
  });
});
