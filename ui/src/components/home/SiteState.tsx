import { Skeleton } from '../ui/Skeleton';

/** Placeholder while GET /api/site loads. */
export function PageSkeleton() {
  return (
    <div className="space-y-6" aria-busy="true" aria-label="Loading">
      <Skeleton className="h-10 w-2/3 max-w-md" />
      <Skeleton className="h-5 w-full max-w-2xl" />
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} className="h-36 rounded-xl" />
        ))}
      </div>
    </div>
  );
}

/** Shown when GET /api/site failed. */
export function SiteError() {
  return (
    <div role="alert" className="rounded-xl border border-red-500/40 bg-red-950/30 p-6 text-center">
      <h2 className="text-lg font-semibold text-red-300">Error Loading Site</h2>
      <p className="mt-1 text-sm text-red-200/80">Failed to load the site settings. Please try again later.</p>
    </div>
  );
}
