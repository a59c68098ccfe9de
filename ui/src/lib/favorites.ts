// Favorites and ratings of commands for the signed-in user.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, errorSentence, throwIfNotOk } from './api';
import { useCurrentUser } from './auth';
import { toast } from './toast';
import type { components } from './api/schema';
import type { Command, Favorite } from './types';

/** The favorites query key includes the user id, so one user's cached favorites never show for another. */
export function favoritesKey(userId: number | null | undefined) {
  return ['/api/favorites', userId ?? null] as const;
}

export function isFavoriteOf(favorites: readonly Favorite[] | null | undefined, commandId: number): boolean {
  return !!favorites?.some((f) => f.itemType === 'command' && f.itemId === commandId);
}

export function useFavorites(userId: number | null | undefined) {
  return useQuery<Favorite[]>({
    queryKey: favoritesKey(userId),
    queryFn: async () => {
      const res = await fetch('/api/favorites', { credentials: 'include' });
      await throwIfNotOk(res);
      return (await res.json()) as Favorite[];
    },
    enabled: typeof userId === 'number',
  });
}

type RatingResponse = components['schemas']['RatingResult'];

/**
 * Everything a command card needs: whether the visitor is signed in, whether a command is a favorite, and the
 * toggle / rate actions (with their toasts). Signed-out visitors get `signedIn: false` and no-op actions.
 */
export function useCommandFavorites() {
  const qc = useQueryClient();
  const { data: user } = useCurrentUser();
  const userId = user?.id;
  const favorites = useFavorites(userId);
  // The user's own last rating per command in this page session (the API does not return it).
  const [myRatings, setMyRatings] = useState<Record<number, number>>({});

  // The user id travels in the variables: the mutation options of the previous render may still be current.
  const toggle = useMutation<unknown, unknown, { command: Command; favorite: boolean; userId: number }>({
    mutationFn: ({ command, favorite, userId }) =>
      favorite
        ? apiRequest('DELETE', `/api/favorites/${userId}/command/${command.id}`)
        : apiRequest('POST', '/api/favorites', { userId, itemType: 'command', itemId: command.id }),
    onSuccess: (_d, { command, favorite, userId }) => {
      qc.setQueryData<Favorite[]>(favoritesKey(userId), (old) =>
        favorite
          ? (old ?? []).filter((f) => !(f.itemType === 'command' && f.itemId === command.id))
          : [...(old ?? []), { userId, itemType: 'command', itemId: command.id }],
      );
      toast({ title: favorite ? 'Removed from favorites' : 'Added to favorites!' });
    },
    onError: (err) => toast({ title: 'Error', description: errorSentence(err, 'Failed to update favorites'), variant: 'destructive' }),
    onSettled: (_d, _e, { userId }) => {
      qc.invalidateQueries({ queryKey: favoritesKey(userId) });
      qc.invalidateQueries({ queryKey: ['/api/commands/popular'] });
    },
  });

  const rate = useMutation<RatingResponse, unknown, { command: Command; rating: number; userId: number }>({
    mutationFn: ({ command, rating, userId }) => apiRequest<RatingResponse>('POST', `/api/commands/${command.id}/rating`, { userId, rating }),
    onSuccess: (res, { command, rating }) => {
      setMyRatings((m) => ({ ...m, [command.id]: rating }));
      if (res && typeof res.avgRating === 'number') {
        qc.setQueryData<Command[]>(['/api/commands'], (old) =>
          old?.map((c) => (c.id === command.id ? { ...c, avgRating: res.avgRating, ratingCount: res.ratingCount } : c)),
        );
      }
      qc.invalidateQueries({ queryKey: ['/api/commands/popular'] });
      toast({ title: 'Rating submitted!' });
    },
    onError: (err) => toast({ title: 'Error', description: errorSentence(err, 'Failed to submit rating'), variant: 'destructive' }),
  });

  const signedIn = typeof userId === 'number';
  return {
    signedIn,
    userId,
    isFavorite: (commandId: number) => isFavoriteOf(favorites.data, commandId),
    myRating: (commandId: number) => myRatings[commandId] ?? 0,
    toggleFavorite: (command: Command) => {
      if (typeof userId !== 'number' || toggle.isPending) return;
      toggle.mutate({ command, favorite: isFavoriteOf(favorites.data, command.id), userId });
    },
    rate: (command: Command, rating: number) => {
      if (typeof userId !== 'number' || rate.isPending) return;
      const r = Math.round(rating);
      if (r < 1 || r > 5) return;
      rate.mutate({ command, rating: r, userId });
    },
    pending: toggle.isPending || rate.isPending,
  };
}
