import { describe, expect, it } from 'vitest';
import { adminListUrl, itemsOfPages } from './paging';
import { loginLogsOfPages, type LoginLogsPage } from './logs';
import { hasUserFilters, NO_USER_FILTERS, usersOfPages, type UserPage } from './users';
import { reportsOfPages, type ReportPage } from './reports';
import type { User } from '../types';

const user = (id: number, username = `u${id}`): User => ({
  id,
  username,
  email: null,
  robloxId: null,
  role: 'user',
  isActive: true,
  createdAt: '2026-01-01T00:00:00Z',
  lastLogin: null,
});

const counts = { total: 50_000, active: 49_000, admins: 3, adminsWithSecondFactor: 2 };

describe('admin lists paged by key', () => {
  it('asks for the filters that are set and the cursor, the bare path for the first unfiltered page', () => {
    expect(adminListUrl('/api/admin/users', { q: '', role: '', status: undefined })).toBe('/api/admin/users');
    expect(adminListUrl('/api/admin/users', { q: '  Star ', role: 'admin', status: null }, null)).toBe('/api/admin/users?q=Star&role=admin');
    expect(adminListUrl('/api/admin/login-logs', { limit: 25, status: 'failure' }, '1234')).toBe(
      '/api/admin/login-logs?limit=25&status=failure&cursor=1234',
    );
    // A search text or cursor with characters of a query string stays one parameter.
    expect(adminListUrl('/api/admin/users', { q: 'a&b=c #1' }, 'n.YWI')).toBe('/api/admin/users?q=a%26b%3Dc+%231&cursor=n.YWI');
  });

  it('joins the pages loaded, each row once and in order', () => {
    const pages = [{ rows: [{ id: 5 }, { id: 4 }] }, { rows: [{ id: 4 }, { id: 3 }] }, { rows: [] }];
    expect(itemsOfPages(pages, (p) => p.rows).map((r) => r.id)).toEqual([5, 4, 3]);
    expect(itemsOfPages(undefined, (p: { rows: { id: number }[] }) => p.rows)).toEqual([]);
  });

  it('shows the users of every page with their marks and the figures of all accounts from the first page', () => {
    const pages: UserPage[] = [
      {
        users: [user(1), user(2)],
        nextCursor: '2',
        counts,
        throttled: [{ userId: 2, username: 'u2', failedSignIns: 9, retryAfterSeconds: 60 }],
        secondFactors: [{ userId: 1, methods: ['totp'] }],
        secondFactorRequired: true,
      },
      {
        users: [user(3)],
        nextCursor: null,
        counts: { ...counts, total: 50_001 },
        throttled: [],
        secondFactors: [{ userId: 3, methods: ['passkey'] }],
        secondFactorRequired: true,
      },
    ];
    const shown = usersOfPages(pages);
    expect(shown.users.map((u) => u.id)).toEqual([1, 2, 3]);
    expect(shown.throttled.map((t) => t.userId)).toEqual([2]);
    expect(shown.secondFactors.map((f) => f.userId)).toEqual([1, 3]);
    expect(shown.counts).toEqual(counts);
    expect(shown.secondFactorRequired).toBe(true);
    expect(usersOfPages(undefined)).toMatchObject({ users: [], counts: undefined, secondFactorRequired: false });
  });

  it('knows when a filter is set', () => {
    expect(hasUserFilters(NO_USER_FILTERS)).toBe(false);
    expect(hasUserFilters({ ...NO_USER_FILTERS, q: '   ' })).toBe(false);
    expect(hasUserFilters({ ...NO_USER_FILTERS, q: 'st' })).toBe(true);
    expect(hasUserFilters({ ...NO_USER_FILTERS, status: 'suspended' })).toBe(true);
  });

  it('lists the sign-in attempts of every page newest first, and the reports with the first page figures', () => {
    const log = (id: number, at: string) => ({ id, username: `w${id}`, ipAddress: '192.0.2.0', userAgent: 'ua', timestamp: at, loginStatus: 'failure' as const });
    const logs: LoginLogsPage[] = [
      { logs: [log(9, '2026-03-02T00:00:00Z'), log(8, '2026-03-01T00:00:00Z')], limit: 2, total: 3, nextCursor: '8' },
      { logs: [log(7, '2026-02-01T00:00:00Z')], limit: 2, total: 3, nextCursor: null },
    ];
    expect(loginLogsOfPages(logs).map((l) => l.id)).toEqual([9, 8, 7]);
    const report = (id: number) => ({
      id,
      reporterUsername: 'a',
      targetUsername: 'b',
      reason: 'scamming',
      category: 'scamming' as const,
      description: 'd',
      priority: 'low' as const,
      state: 'open' as const,
      createdAt: '2026-01-01T00:00:00Z',
      resolvedAt: null,
      resolutionNote: null,
    });
    const reports: ReportPage[] = [{ success: true, total: 2, open: 2, limit: 1, reports: [report(2)], nextCursor: '2' }];
    expect(reportsOfPages(reports)).toEqual({ reports: [report(2)], total: 2, open: 2 });
  });
});
