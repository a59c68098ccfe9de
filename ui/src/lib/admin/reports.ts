// The Abuse Reports tab.
import { apiRequest } from '../api';
import { itemsOfPages, useAdminPages } from './paging';
import { ADMIN_KEYS, useAdminMutation, type Schemas } from './queries';

export type AbuseReport = Schemas['AbuseReport'];
export type ReportState = AbuseReport['state'];
export type ReportPage = Schemas['ReportList'];
export const REPORT_STATES: ReportState[] = ['open', 'reviewing', 'resolved', 'dismissed'];

/** Reports page by page, newest first, of one state when `state` is set. */
export function useAbuseReports(state: ReportState | '' = '') {
  return useAdminPages<ReportPage>(ADMIN_KEYS.abuseReports[0], { state });
}

/** The reports of the pages loaded so far, each once, with the first page's figures. */
export function reportsOfPages(pages: readonly ReportPage[] | undefined) {
  return { reports: itemsOfPages(pages, (p) => p.reports), total: pages?.[0]?.total, open: pages?.[0]?.open };
}

export function useUpdateReport() {
  return useAdminMutation<{ id: number; state: ReportState; note?: string }, Schemas['ReportChanged']>(({ id, state, note }) =>
    apiRequest('PATCH', `/api/admin/abuse-reports/${id}`, { state, note }),
  );
}
