// Admin panel data: response types, query hooks (fresh for ADMIN_STALE_TIME) and mutations that refresh the
// admin queries (and the active banner) after every change. Pure helpers are exported for tests.
import { useEffect, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { apiRequest, getQueryFn, throwIfNotOk } from './api';
import { CURRENT_USER_KEY, hasSessionHint } from './auth';
import { ADMIN_STALE_TIME } from './queryClient';
import type { ActiveBannerResponse, AiAnalysis, Role, User } from './types';
import type { components } from './api/schema';

type Schemas = components['schemas'];

// ---------- types ----------

export interface AdminCheck {
  admin: boolean;
  via: 'key' | 'session' | 'user';
}

export interface AdminStats {
  totalUsers: number;
  newUsersToday: number;
  pageViews: number;
  pageViewsToday: number;
  adminSessions: number;
  lastAdminAccess: string | null;
  startedAt: string;
  uptimeSeconds: number;
  ads: { approved: number; pending: number; active: number };
  scans: { running: number; total: number };
  elcBadgesFound: number;
  scanProgress: { processed: number; total: number };
}

export type ApplicationStatus = 'pending' | 'approved' | 'rejected';

export interface AdApplication {
  id: number;
  websiteUrl: string;
  adDescription: string;
  duration: string;
  targetAudience?: string | null;
  links?: string[] | null;
  status: ApplicationStatus;
  isActive: boolean;
  createdAt: string;
  reviewedAt?: string | null;
  /** '/uploads/NAME' (see adImageSrc for other shapes); null once a rejected application's image was deleted. */
  imagePath?: string | null;
  /** When the image of a rejected application was deleted (after the audit window). */
  imageRemovedAt?: string | null;
  premiumFullscreen?: boolean;
  fullscreenMessageType?: string | null;
  fullscreenCustomMessage?: string | null;
  aiAnalysis?: AiAnalysis | null;
  /** The banner colours the server took from the image (text meets WCAG AA on the background). */
  design?: BannerColors | null;
}

/** One sign-in attempt and a page of them, as the server's OpenAPI document types them. */
export type LoginLog = Schemas['LoginLog'];
export type LoginLogsPage = Schemas['LoginLogPage'];

export type LogLevel = 'ERROR' | 'WARN' | 'INFO';

export interface AppLogRecord {
  id: number;
  timestamp: string;
  level: LogLevel | string;
  target: string;
  message: string;
}

export interface ExceptionsSummary {
  errors: number;
  warnings: number;
  info: number;
  recent: { timestamp: string; level: LogLevel | string; target: string; message: string }[];
}

export interface BannerColors {
  backgroundColor: string;
  textColor: string;
  borderColor: string;
}

export interface AdminSettings {
  banner: BannerColors;
  defaults: BannerColors;
}

export interface AdminKey {
  id: number;
  prefix: string;
  name: string;
  createdAt: string;
  lastUsed: string | null;
  boundIp: string | null;
  source: 'cli' | 'phrase' | 'direct' | string;
}

export interface BackupArchive {
  name: string;
  sizeBytes: number;
  createdAt: string;
}

export interface BackupList {
  backups: BackupArchive[];
  every: string | null;
  keep: number;
  directory: string;
  lastSuccess: string | null;
  lastError: string | null;
}

export interface HealthCheck {
  name: string;
  status: 'ok' | 'error' | 'not_configured' | string;
  detail: string;
}

// ---------- query keys ----------

export const ADMIN_KEYS = {
  check: ['/api/admin/check-key'],
  stats: ['/api/admin/stats'],
  advertisements: ['/api/admin/advertisements'],
  activeBanner: ['/api/admin/active-banner'],
  users: ['/api/admin/users'],
  loginLogs: ['/api/admin/login-logs'],
  appLogs: ['/api/admin/app-logs'],
  exceptions: ['/api/admin/exceptions'],
  settings: ['/api/admin/settings'],
  keys: ['/api/admin/keys'],
  health: ['/api/admin/health'],
  backups: ['/api/admin/backups'],
  abuseReports: ['/api/admin/abuse-reports'],
} as const;

export const LOGIN_LOGS_PAGE_SIZE = 25;

// ---------- pure helpers ----------

/** '10-fullscreen' reads '10 days Premium Full-Screen'; other durations are shown as they are. */
export function durationLabel(duration: string): string {
  return duration === '10-fullscreen' ? '10 days Premium Full-Screen' : duration;
}

/** The default list of the Advertisements tab: everything except rejected applications, order kept. */
export function visibleApplications(apps: readonly AdApplication[] | null | undefined): AdApplication[] {
  return (apps ?? []).filter((a) => a.status !== 'rejected');
}

/** The colours Activate Banner sends: the ad's own design (from its image), else the saved default banner colours. */
export function activationColors(app: Pick<AdApplication, 'design'>, fallback: BannerColors): BannerColors {
  const d = app.design;
  if (d && isHexColor(d.backgroundColor) && isHexColor(d.textColor) && isHexColor(d.borderColor)) {
    return { backgroundColor: d.backgroundColor, textColor: d.textColor, borderColor: d.borderColor };
  }
  return { backgroundColor: fallback.backgroundColor, textColor: fallback.textColor, borderColor: fallback.borderColor };
}

export function statusLabel(status: ApplicationStatus | string): string {
  if (status === 'approved') return 'Approved';
  if (status === 'rejected') return 'Rejected';
  return 'Pending';
}

/** "3d 4h 5m 6s" (leading zero units dropped; seconds always shown). */
export function formatUptime(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(totalSeconds) ? totalSeconds : 0));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  const sec = s % 60;
  const parts: string[] = [];
  if (d) parts.push(`${d}d`);
  if (d || h) parts.push(`${h}h`);
  if (d || h || m) parts.push(`${m}m`);
  parts.push(`${sec}s`);
  return parts.join(' ');
}

/** Seconds since `startedAt` at `now`; falls back to the server's figure when the date is unreadable. */
export function uptimeSecondsAt(startedAt: string | null | undefined, now: number, fallback = 0): number {
  const t = startedAt ? new Date(startedAt).getTime() : NaN;
  return Number.isNaN(t) ? fallback : Math.max(0, (now - t) / 1000);
}

export function isHexColor(value: string): boolean {
  return /^#[0-9a-fA-F]{6}$/.test(value);
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / Math.max(1, pageSize)));
}

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

/** The current time, re-read every `intervalMs` (the admin countdown ticks every second). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return now;
}

// ---------- queries ----------

/** Is this browser already an admin (admin session cookie or signed-in admin user)? null when not. */
export function useAdminCheck() {
  return useQuery<AdminCheck | null>({
    queryKey: ADMIN_KEYS.check,
    queryFn: getQueryFn<AdminCheck>({ on401: 'returnNull' }),
    staleTime: ADMIN_STALE_TIME,
    // Only a browser holding an admin session or a signed-in account can already be an admin.
    enabled: hasSessionHint('fanhub_hint_admin') || hasSessionHint('fanhub_hint_user'),
  });
}

function adminQuery(queryKey: readonly string[], enabled = true) {
  return { queryKey, staleTime: ADMIN_STALE_TIME, enabled };
}

export function useAdminStats(enabled = true) {
  return useQuery<AdminStats>(adminQuery(ADMIN_KEYS.stats, enabled));
}

/** The server lists pending and approved applications; `status` asks for one status instead (rejected ones for the audit). */
export function useAdminAdvertisements(enabled = true, status?: ApplicationStatus) {
  const key = status ? [`${ADMIN_KEYS.advertisements[0]}?status=${status}`] : ADMIN_KEYS.advertisements;
  return useQuery<{ applications: AdApplication[] }>(adminQuery(key, enabled));
}

/** The active banner (shared cache with the site's bottom banner). */
export function useAdminActiveBanner(enabled = true) {
  return useQuery<ActiveBannerResponse>({ ...adminQuery(ADMIN_KEYS.activeBanner, enabled), retry: false });
}

export function useAdminUsers() {
  return useQuery<{ users: User[] }>(adminQuery(ADMIN_KEYS.users));
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
  return useQuery<{ logs: AppLogRecord[] }>(adminQuery(ADMIN_KEYS.appLogs));
}

export function useExceptions() {
  return useQuery<ExceptionsSummary>(adminQuery(ADMIN_KEYS.exceptions));
}

export function useAdminSettings() {
  return useQuery<AdminSettings>(adminQuery(ADMIN_KEYS.settings));
}

export function useAdminKeys() {
  return useQuery<{ keys: AdminKey[] }>(adminQuery(ADMIN_KEYS.keys));
}

export function useBackups() {
  return useQuery<BackupList>(adminQuery(ADMIN_KEYS.backups));
}

/** The download address of one archive (names come from the server's list). */
export function backupDownloadUrl(name: string): string {
  return `/api/admin/backups/${encodeURIComponent(name)}`;
}

export function useAdminHealth() {
  return useQuery<{ checks: HealthCheck[] }>(adminQuery(ADMIN_KEYS.health));
}

// ---------- mutations ----------

/** Refreshes every admin query except the access check, and the active banner. */
export function invalidateAdmin(qc: QueryClient) {
  return qc.invalidateQueries({
    predicate: (q) => {
      const head = q.queryKey[0];
      return typeof head === 'string' && head.startsWith('/api/admin/') && head !== ADMIN_KEYS.check[0];
    },
  });
}

function useAdminMutation<TVars, TData = unknown>(fn: (vars: TVars) => Promise<TData>) {
  const qc = useQueryClient();
  return useMutation<TData, unknown, TVars>({
    mutationFn: fn,
    onSettled: () => invalidateAdmin(qc),
  });
}

export function useVerifyKey() {
  const qc = useQueryClient();
  return useMutation<{ success: boolean }, unknown, string>({
    mutationFn: (key) => apiRequest('POST', '/api/admin/verify-key', { key }),
    onSuccess: () => {
      qc.setQueryData<AdminCheck>(ADMIN_KEYS.check, { admin: true, via: 'key' });
      invalidateAdmin(qc);
    },
  });
}

/**
 * Sign out of the admin panel. An admin session (a verified key) is ended by POST /api/admin/logout; a signed-in
 * admin account by the account's own sign-out, which ends both.
 */
export function useAdminSignOut() {
  const qc = useQueryClient();
  return useMutation<unknown, unknown, AdminCheck['via'] | undefined>({
    mutationFn: (via) => apiRequest('POST', via === 'user' ? '/api/auth/logout' : '/api/admin/logout'),
    onSuccess: (_data, via) => {
      qc.setQueryData(ADMIN_KEYS.check, null);
      qc.removeQueries({
        predicate: (q) => {
          const head = q.queryKey[0];
          return typeof head === 'string' && head.startsWith('/api/admin/') && head !== ADMIN_KEYS.check[0] && head !== ADMIN_KEYS.activeBanner[0];
        },
      });
      if (via === 'user') qc.setQueryData(CURRENT_USER_KEY, null);
    },
  });
}

export interface UserPatch {
  role?: Role;
  isActive?: boolean;
}

export function useUpdateUser() {
  return useAdminMutation<{ id: number; patch: UserPatch }, { success: boolean; user: User }>(({ id, patch }) =>
    apiRequest('PATCH', `/api/admin/users/${id}`, patch),
  );
}

export function useDeleteUser() {
  return useAdminMutation<number>((id) => apiRequest('DELETE', `/api/admin/users/${id}`));
}

export function useUpdateAdStatus() {
  return useAdminMutation<{ id: number; status: ApplicationStatus }>(({ id, status }) =>
    apiRequest('PATCH', `/api/admin/advertisements/${id}`, { status }),
  );
}

export function useActivateBanner() {
  return useAdminMutation<{ advertisementId: number } & BannerColors>((body) => apiRequest('POST', '/api/admin/activate-banner', body));
}

export function useDeactivateBanner() {
  return useAdminMutation<void>(() => apiRequest('POST', '/api/admin/deactivate-banner'));
}

export function useRevertBanner() {
  return useAdminMutation<void, { success: boolean; banner: BannerColors }>(() => apiRequest('POST', '/api/admin/revert-banner'));
}

export function useSaveSettings() {
  return useAdminMutation<BannerColors, { success: boolean; banner: BannerColors }>((banner) =>
    apiRequest('PUT', '/api/admin/settings', { banner }),
  );
}

export function useClearCache() {
  return useAdminMutation<void, { success: boolean; message?: string }>(() => apiRequest('POST', '/api/admin/clear-cache'));
}

export function useBackupNow() {
  return useAdminMutation<void, BackupArchive>(() => apiRequest('POST', '/api/admin/backups'));
}

export function useRevokeKey() {
  return useAdminMutation<number>((id) => apiRequest('DELETE', `/api/admin/keys/${id}`));
}

export type ReportState = 'open' | 'reviewing' | 'resolved' | 'dismissed';
export const REPORT_STATES: ReportState[] = ['open', 'reviewing', 'resolved', 'dismissed'];

export interface AbuseReport {
  id: number;
  reporterUsername: string;
  targetUsername: string;
  /** Free text, in the reporter's words. */
  reason: string;
  /** Derived by the server from the reason: one of its categories, else 'other'. */
  category: string;
  description: string;
  priority: 'low' | 'medium' | 'high' | 'urgent';
  state: ReportState;
  createdAt: string;
  resolvedAt: string | null;
  resolutionNote: string | null;
}

export function useAbuseReports() {
  return useQuery<{ total: number; open: number; reports: AbuseReport[] }>(adminQuery(['/api/admin/abuse-reports?limit=100']));
}

export function useUpdateReport() {
  return useAdminMutation<{ id: number; state: ReportState; note?: string }>(({ id, state, note }) =>
    apiRequest('PATCH', `/api/admin/abuse-reports/${id}`, { state, note }),
  );
}
