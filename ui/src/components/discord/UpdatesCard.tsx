import type { LucideIcon } from 'lucide-react';
import { formatDateTime } from '../../lib/format';
import { sourceLabel, type SummaryInfo } from '../../lib/discord';

/** One list of the Updates page, its empty message, and who summarised it when. */
export function UpdatesCard({
  id,
  title,
  icon: Icon,
  lines,
  empty,
  source,
  level = 2,
}: {
  id: string;
  title: string;
  icon: LucideIcon;
  lines: string[];
  empty: string;
  source: SummaryInfo | null;
  /** The heading level: 2 under the page's title, 3 under a product's own heading. */
  level?: 2 | 3;
}) {
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <section aria-labelledby={id} className="flex flex-col rounded-xl border border-slate-800 bg-slate-900 p-5">
      <Heading id={id} className="flex items-center gap-2 text-lg font-semibold text-white">
        <Icon size={18} aria-hidden="true" className="text-violet-300" />
        {title}
      </Heading>
      {lines.length > 0 ? (
        <ul className="mt-3 grid gap-2 text-sm text-slate-200">
          {lines.map((line, i) => (
            <li key={i} className="flex gap-2">
              <span aria-hidden="true" className="mt-2 h-1.5 w-1.5 shrink-0 rounded-full bg-violet-400" />
              <span>{line}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-400">{empty}</p>
      )}
      {source && (
        <p className="mt-auto pt-4 text-xs text-slate-400" data-testid={`${id}-source`}>
          {sourceLabel(source)} of {source.messageCount} message{source.messageCount === 1 ? '' : 's'},{' '}
          <time dateTime={source.generatedAt}>{formatDateTime(source.generatedAt)}</time>
        </p>
      )}
    </section>
  );
}
