import type { ComponentChildren } from 'preact';
import { CircleCheck } from 'lucide-react';
import { Card } from '../ui/Card';

/** A titled card with a checklist of short tips. */
export function TipList({ title, icon, items, testId }: { title: string; icon: ComponentChildren; items: string[]; testId?: string }) {
  return (
    <Card className="p-5" data-testid={testId}>
      <h3 className="flex items-center gap-2 text-lg font-semibold text-white">
        {icon}
        {title}
      </h3>
      <ul className="mt-3 space-y-2">
        {items.map((tip) => (
          <li key={tip} className="flex gap-2 text-sm text-slate-300">
            <CircleCheck className="mt-0.5 h-4 w-4 shrink-0 text-emerald-400" aria-hidden="true" />
            <span>{tip}</span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
