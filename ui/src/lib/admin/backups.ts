// The backups card of the Settings tab.
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api';
import { ADMIN_KEYS, adminQuery, useAdminMutation, type Schemas } from './queries';

export type BackupArchive = Schemas['BackupInfo'];
export type BackupList = Schemas['BackupList'];

export function useBackups() {
  return useQuery<BackupList>(adminQuery(ADMIN_KEYS.backups));
}

/** The download address of one archive (names come from the server's list). */
export function backupDownloadUrl(name: string): string {
  return `/api/admin/backups/${encodeURIComponent(name)}`;
}

export function useBackupNow() {
  return useAdminMutation<void, BackupArchive>(() => apiRequest('POST', '/api/admin/backups'));
}
