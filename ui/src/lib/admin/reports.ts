// The Abuse Reports tab.
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api';
import { adminQuery, useAdminMutation, type Schemas } from './queries';

export type AbuseReport = Schemas['AbuseReport'];
export type ReportState = AbuseReport['state'];
export const REPORT_STATES: ReportState[] = ['open', 'reviewing', 'resolved', 'dismissed'];

export function useAbuseReports() {
  return useQuery<Schemas['ReportList']>(adminQuery(['/api/admin/abuse-reports?limit=100']));
}

export function useUpdateReport() {
  return useAdminMutation<{ id: number; state: ReportState; note?: string }, Schemas['ReportChanged']>(({ id, state, note }) =>
    apiRequest('PATCH', `/api/admin/abuse-reports/${id}`, { state, note }),
  );
}
