import { Skeleton } from './ui/Skeleton';

/** Suspense fallback while a lazy page loads. */
export function PageLoader() {
  return (
    <div role="status" aria-label="Loading page" className="mx-auto max-w-7xl px-4 py-10">
      <Skeleton className="h-9 w-64" />
      <Skeleton className="mt-4 h-5 w-full max-w-xl" />
      <div className="mt-8 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} className="h-40 rounded-xl" />
        ))}
      </div>
    </div>
  );
}
