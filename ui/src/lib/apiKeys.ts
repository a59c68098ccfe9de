// The visitor's API keys: generate, list, revoke, and the database status check a key opens.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from './api';
import type { components } from './api/schema';

/** A key as its owner sees it: the full key in the answer to a generation only, its first KEY_PREFIX_LENGTH characters everywhere else. */
export type ApiKey = components['schemas']['ApiKeyView'];

/** The public database check: the schema and the file, nothing about accounts, sessions or backups. */
export type DatabaseInfo = components['schemas']['DatabaseHealth'];

/** The key list shows the first 12 characters of each key. */
export const KEY_PREFIX_LENGTH = 12;
export const KEY_NAME_MAX = 64;

export const KEYS_QUERY = ['/api/keys'] as const;

/** The key's display prefix (what the list shows and what DELETE takes). */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}

/** The name must not be empty after trimming. Returns the message to show, or null. */
export function keyNameError(name: string): string | null {
  return name.trim() ? null : 'Please enter a key name';
}

/** The database check needs a key. Returns the message to show, or null. */
export function apiKeyError(key: string): string | null {
  return key.trim() ? null : 'Please enter an API key';
}

/** Stale at once: the usage figures change with every call, so each mount shows the server's current counts. */
export function useApiKeys() {
  return useQuery<{ success: boolean; keys: ApiKey[] }>({ queryKey: KEYS_QUERY, staleTime: 0 });
}

export function useGenerateKey() {
  const qc = useQueryClient();
  return useMutation<ApiKey, unknown, string>({
    mutationFn: async (name) => {
      const res = await apiRequest<{ success: boolean; apiKey: ApiKey }>('POST', '/api/generate-key', { name: name.trim() });
      return res.apiKey;
    },
    onSettled: () => qc.invalidateQueries({ queryKey: KEYS_QUERY }),
  });
}

export function useRevokeKey() {
  const qc = useQueryClient();
  return useMutation<unknown, unknown, string>({
    mutationFn: (prefix) => apiRequest('DELETE', `/api/keys/${encodeURIComponent(prefix)}`),
    onSettled: () => qc.invalidateQueries({ queryKey: KEYS_QUERY }),
  });
}

/** GET /api/database with the key in the X-API-Key header (the Testing tab's status check). */
export async function fetchDatabaseInfo(key: string): Promise<DatabaseInfo> {
  const res = await apiRequest<{ success: boolean; database: DatabaseInfo }>('GET', '/api/database', undefined, {
    'X-API-Key': key.trim(),
  });
  return res.database;
}
