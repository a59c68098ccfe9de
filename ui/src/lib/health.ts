import { useQuery } from '@tanstack/react-query';
import { POLL } from './queryClient';
import type { Health } from './types';

/** Live server health, polled every 10 s (one cache shared by the footer and the admin panel). */
export function useHealth() {
  return useQuery<Health>({ queryKey: ['/api/health'], refetchInterval: POLL.health });
}

export type ServerState = 'online' | 'degraded' | 'unreachable' | 'checking';

/**
 * The server's state from the last `/api/health` poll: a failed poll is `unreachable` even when an
 * earlier answer is still cached, any status but `ok` is `degraded`, and nothing yet is `checking`.
 */
export function serverState(health: Health | undefined, failed: boolean): ServerState {
  if (failed) return 'unreachable';
  if (!health) return 'checking';
  return health.status === 'ok' ? 'online' : 'degraded';
}
