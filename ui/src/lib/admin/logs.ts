// The Login Logs and App Logs tabs.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { throwIfNotOk } from '../api';
import { ADMIN_STALE_TIME } from '../queryClient';
import { ADMIN_KEYS, adminQuery, type Schemas } from './queries';

/** One sign-in attempt and a page of them. */
export type LoginLog = Schemas['LoginLog'];
export type LoginLogsPage = Schemas['LoginLogPage'];
export type AppLogRecord = Schemas['LogRecord'];
export type LogLevel = AppLogRecord['level'];
export type ExceptionsSummary = Schemas['Exceptions'];

export const LOGIN_LOGS_PAGE_SIZE = 25;

/** Newest first by timestamp (stable for equal or unreadable times). */
export function newestFirst<T extends { timestamp: string }>(rows: readonly T[]): T[] {
  const t = (r: T) => {
    const v = new Date(r.timestamp).getTime();
    return Number.isNaN(v) ? 0 : v;
  };
  return rows
    .map((r, i) => [r, i] as const)
    .sort((a, b) => t(b[0]) - t(a[0]) || a[1] - b[1])
    .map(([r]) => r);
}

export function useLoginLogs(page: number, pageSize = LOGIN_LOGS_PAGE_SIZE) {
  return useQuery<LoginLogsPage>({
    queryKey: [...ADMIN_KEYS.loginLogs, { page, pageSize }],
    queryFn: async () => {
      const res = await fetch(`/api/admin/login-logs?page=${page}&limit=${pageSize}`, { credentials: 'include' });
      await throwIfNotOk(res);
      return (await res.json()) as LoginLogsPage;
    },
    staleTime: ADMIN_STALE_TIME,
    placeholderData: keepPreviousData,
  });
}

export function useAppLogs() {
  return useQuery<Schemas['AppLogs']>(adminQuery(ADMIN_KEYS.appLogs));
}

export function useExceptions() {
  return useQuery<ExceptionsSummary>(adminQuery(ADMIN_KEYS.exceptions));
}
