import { TriangleAlert } from 'lucide-react';

export function GuidesError() {
  return (
    <div role="alert" className="rounded-xl border border-red-500/40 bg-red-950/30 p-8 text-center" data-testid="guides-error">
      <TriangleAlert className="mx-auto h-8 w-8 text-red-400" aria-hidden="true" />
      <h3 className="mt-3 text-lg font-semibold text-red-300">Error Loading Guides</h3>
      <p className="mt-1 text-sm text-red-200/80">Failed to load guides. Please try again later.</p>
    </div>
  );
}
