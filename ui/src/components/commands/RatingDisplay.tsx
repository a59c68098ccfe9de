import { Star } from 'lucide-react';

/** "★ 4.5 (12 ratings)"; renders nothing when unrated. */
export function RatingDisplay({ avgRating, ratingCount }: { avgRating: number; ratingCount: number }) {
  if (!(ratingCount > 0)) return null;
  return (
    <span
      className="inline-flex items-center gap-1 text-xs text-amber-300"
      aria-label={`Average rating ${avgRating.toFixed(1)} out of 5 from ${ratingCount} ${ratingCount === 1 ? 'rating' : 'ratings'}`}
      data-testid="rating-display"
    >
      <Star className="h-3.5 w-3.5 fill-current" aria-hidden="true" />
      <span aria-hidden="true">
        {avgRating.toFixed(1)} <span className="text-slate-400">({ratingCount})</span>
      </span>
    </span>
  );
}
