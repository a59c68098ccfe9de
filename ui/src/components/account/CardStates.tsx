import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';

/** The account page's cards while their data loads. */
export function LoadingCard() {
  return (
    <Card className="p-5 sm:p-6" aria-busy="true">
      <Skeleton className="h-6 w-48" />
      <Skeleton className="mt-4 h-20 w-full" />
    </Card>
  );
}

/** An account page card whose data could not be loaded: the sentence, and what to do. */
export function LoadErrorCard({ sentence, testId }: { sentence: string; testId?: string }) {
  return (
    <Card className="p-5 sm:p-6" role="alert" data-testid={testId}>
      <p className="text-sm text-red-300">{sentence} Reload the page to try again.</p>
    </Card>
  );
}
