// The Login Logs and App Logs tabs.
import { useQuery } from '@tanstack/react-query';
import { itemsOfPages, useAdminPages } from './paging';
import { ADMIN_KEYS, adminQuery, type Schemas } from './queries';

/** One sign-in attempt and a page of them. */
export type LoginLog = Schemas['LoginLog'];
export type LoginLogsPage = Schemas['LoginLogPage'];
export type AppLogRecord = Schemas['LogRecord'];
export type LogLevel = AppLogRecord['level'];
export type LoginStatus = LoginLog['loginStatus'];
/** The outcomes the Login Logs tab filters by, in the words it shows. */
export const LOGIN_STATUS_LABELS: Record<LoginStatus, string> = {
  success: 'Success',
  failure: 'Wrong password',
  second_factor_failure: 'Wrong second factor',
  suspended: 'Suspended account',
  rate_limited: 'Rate limited',
};
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

/** Sign-in attempts page by page, newest first, of one outcome when `status` is set. */
export function useLoginLogs(status: LoginStatus | '' = '', pageSize = LOGIN_LOGS_PAGE_SIZE) {
  return useAdminPages<LoginLogsPage>(ADMIN_KEYS.loginLogs[0], { limit: pageSize, status });
}

/** The attempts of the pages loaded so far, each once, newest first. */
export function loginLogsOfPages(pages: readonly LoginLogsPage[] | undefined): LoginLog[] {
  return newestFirst(itemsOfPages(pages, (p) => p.logs));
}

export function useAppLogs() {
  return useQuery<Schemas['AppLogs']>(adminQuery(ADMIN_KEYS.appLogs));
}

export function useExceptions() {
  return useQuery<ExceptionsSummary>(adminQuery(ADMIN_KEYS.exceptions));
}
