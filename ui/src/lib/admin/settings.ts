// The Settings tab: the default banner's colours, the cache, admin keys and the server's health checks.
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api';
import { ADMIN_KEYS, adminQuery, useAdminMutation, type Schemas } from './queries';

export type BannerColors = Schemas['BannerColors'];
export type AdminSettings = Schemas['SettingsView'];
export type AdminKey = Schemas['KeyRecord'];
export type HealthCheck = Schemas['HealthCheck'];

export function isHexColor(value: string): boolean {
  return /^#[0-9a-fA-F]{6}$/.test(value);
}

export function useAdminSettings() {
  return useQuery<AdminSettings>(adminQuery(ADMIN_KEYS.settings));
}

export function useSaveSettings() {
  return useAdminMutation<BannerColors, Schemas['SavedBanner']>((banner) => apiRequest('PUT', '/api/admin/settings', { banner }));
}

export function useRevertBanner() {
  return useAdminMutation<void, Schemas['SavedBanner']>(() => apiRequest('POST', '/api/admin/revert-banner'));
}

export function useClearCache() {
  return useAdminMutation<void, Schemas['CacheCleared']>(() => apiRequest('POST', '/api/admin/clear-cache'));
}

export function useAdminKeys() {
  return useQuery<Schemas['AdminKeyList']>(adminQuery(ADMIN_KEYS.keys));
}

export function useRevokeKey() {
  return useAdminMutation<number>((id) => apiRequest('DELETE', `/api/admin/keys/${id}`));
}

export function useAdminHealth() {
  return useQuery<Schemas['HealthChecks']>(adminQuery(ADMIN_KEYS.health));
}
