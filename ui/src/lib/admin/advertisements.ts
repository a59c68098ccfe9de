// The Advertisements tab: applications to review, and the sponsored banner they become.
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api';
import type { ActiveBannerResponse } from '../types';
import { itemsOfPages, useAdminPages } from './paging';
import { ADMIN_KEYS, adminQuery, useAdminMutation, type Schemas } from './queries';
import { isHexColor, type BannerColors } from './settings';

export type AdApplication = Schemas['Application'];
export type ApplicationPage = Schemas['Applications'];
export type ApplicationStatus = AdApplication['status'];
/** What a review may set: approved or rejected. */
export type ReviewDecision = Schemas['StatusChange']['status'];

/** '10-fullscreen' reads '10 days Premium Full-Screen'; other durations are shown as they are. */
export function durationLabel(duration: string): string {
  return duration === '10-fullscreen' ? '10 days Premium Full-Screen' : duration;
}

/** The default list of the Advertisements tab: everything except rejected applications, order kept. */
export function visibleApplications(apps: readonly AdApplication[] | null | undefined): AdApplication[] {
  return (apps ?? []).filter((a) => a.status !== 'rejected');
}

/** The colours Activate Banner sends: the ad's own design (from its image), else the saved default banner colours. */
export function activationColors(app: { design?: BannerColors | null }, fallback: BannerColors): BannerColors {
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

/** The server lists pending and approved applications page by page, newest first; `status` asks for one status instead (rejected ones for the audit). */
export function useAdminAdvertisements(enabled = true, status?: ApplicationStatus) {
  return useAdminPages<ApplicationPage>(ADMIN_KEYS.advertisements[0], { status }, enabled);
}

/** The applications of the pages loaded so far, each once, newest first. */
export function applicationsOfPages(pages: readonly ApplicationPage[] | undefined): AdApplication[] {
  return itemsOfPages(pages, (p) => p.applications);
}

/** The active banner (shared cache with the site's bottom banner). */
export function useAdminActiveBanner(enabled = true) {
  return useQuery<ActiveBannerResponse>({ ...adminQuery(ADMIN_KEYS.activeBanner, enabled), retry: false });
}

export function useUpdateAdStatus() {
  return useAdminMutation<{ id: number } & Schemas['StatusChange'], Schemas['Reviewed']>(({ id, status }) =>
    apiRequest('PATCH', `/api/admin/advertisements/${id}`, { status }),
  );
}

export function useActivateBanner() {
  return useAdminMutation<Schemas['Activation'], Schemas['Activated']>((body) => apiRequest('POST', '/api/admin/activate-banner', body));
}

export function useDeactivateBanner() {
  return useAdminMutation<void>(() => apiRequest('POST', '/api/admin/deactivate-banner'));
}
