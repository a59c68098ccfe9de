import { Sparkles } from 'lucide-react';
import { Card } from '../ui/Card';

export function FunFacts({ facts }: { facts: string[] }) {
  return (
    <Card className="p-5">
      <ul className="grid gap-3 md:grid-cols-2">
        {facts.map((fact) => (
          <li key={fact} className="flex gap-3 text-sm text-slate-300" data-testid="fun-fact">
            <Sparkles className="mt-0.5 h-4 w-4 shrink-0 text-amber-300" aria-hidden="true" />
            <span>{fact}</span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
