import { CircleAlert } from 'lucide-react';
import { Link } from 'wouter';
import { Card } from '../components/ui/Card';
import { buttonClass } from '../components/ui/Button';

/** Any path the router does not know. */
export default function NotFound() {
  return (
    <div className="flex min-h-[60vh] w-full items-center justify-center px-4 py-16">
      <Card className="w-full max-w-md p-6">
        <div className="flex items-center gap-2">
          <CircleAlert size={28} aria-hidden="true" className="shrink-0 text-red-500" />
          <h1 className="text-2xl font-bold">404 Page Not Found</h1>
        </div>
        <p className="mt-4 text-sm text-slate-400">Did you forget to add the page to the router?</p>
        <Link href="/" className={buttonClass('outline', 'sm', 'mt-6')}>
          Back to Home
        </Link>
      </Card>
    </div>
  );
}
