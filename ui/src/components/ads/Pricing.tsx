import { Check } from 'lucide-react';
import { DURATIONS } from '../../lib/ads';
import { cn } from '../ui/cn';

/** The pricing summary: 1 day free, 1 month $1.00, premium fullscreen $10.00. */
export function Pricing({ chancePercent, takeoverSeconds }: { chancePercent: number; takeoverSeconds: number }) {
  return (
    <ul className="grid gap-4 md:grid-cols-3" aria-label="Pricing">
      {DURATIONS.map((d) => {
        const premium = d.value === '10-fullscreen';
        return (
          <li
            key={d.value}
            className={cn(
              'flex flex-col rounded-xl border bg-slate-900 p-5',
              premium ? 'border-violet-500/60 shadow-lg shadow-violet-900/30' : 'border-slate-800',
            )}
          >
            <p className="text-sm font-semibold uppercase tracking-wider text-violet-300">{premium ? 'Premium Full-Screen' : d.label}</p>
            <p className="mt-2 text-3xl font-bold text-white">{d.price}</p>
            <p className="mt-1 text-sm text-slate-400">{d.detail}</p>
            <ul className="mt-4 grid gap-1.5 text-sm text-slate-300">
              <li className="flex gap-2">
                <Check size={16} aria-hidden="true" className="mt-0.5 shrink-0 text-emerald-400" /> Sponsored banner at the bottom of every page
              </li>
              <li className="flex gap-2">
                <Check size={16} aria-hidden="true" className="mt-0.5 shrink-0 text-emerald-400" /> Your image, description and links
              </li>
              {premium && (
                <li className="flex gap-2">
                  <Check size={16} aria-hidden="true" className="mt-0.5 shrink-0 text-emerald-400" />
                  Full-screen ad: a {chancePercent}% chance once per visit, shown for {takeoverSeconds} seconds
                </li>
              )}
            </ul>
          </li>
        );
      })}
    </ul>
  );
}
