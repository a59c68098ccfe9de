import { useId, useState } from 'react';
import { BookOpen, Hammer, Shield, Users } from 'lucide-react';
import { Badge, type BadgeVariant } from '../ui/Badge';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import type { IconComponent } from '../home/icons';
import type { Difficulty, Guide, GuideCategory } from '../../lib/types';

/** A guide card shows its first 2 tags. */
export const GUIDE_TAGS_SHOWN = 2;
/** Content longer than this (or with more than one paragraph) starts collapsed. */
export const COLLAPSE_CHARS = 240;

const CATEGORY_ICON: Record<GuideCategory, IconComponent> = {
  Beginner: BookOpen as IconComponent,
  Building: Hammer as IconComponent,
  Administration: Shield as IconComponent,
  Community: Users as IconComponent,
};

const DIFFICULTY_VARIANT: Record<Difficulty, BadgeVariant> = {
  easy: 'success',
  intermediate: 'warning',
  advanced: 'destructive',
};

export function paragraphsOf(content: string): string[] {
  return content
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

export function GuideCard({ guide }: { guide: Guide }) {
  const Icon = CATEGORY_ICON[guide.category] ?? (BookOpen as IconComponent);
  const paragraphs = paragraphsOf(guide.content);
  const long = paragraphs.length > 1 || guide.content.length > COLLAPSE_CHARS;
  const [open, setOpen] = useState(false);
  const contentId = useId();
  const shown = open || !long ? paragraphs : paragraphs.slice(0, 1);

  return (
    <Card className="flex min-w-0 flex-col p-5" data-testid="guide-card">
      <div className="flex items-center justify-between gap-3">
        <span
          className="flex h-10 w-10 items-center justify-center rounded-lg bg-violet-600/20 text-violet-300"
          title={guide.category}
        >
          <Icon className="h-5 w-5" aria-hidden="true" />
        </span>
        <Badge variant={DIFFICULTY_VARIANT[guide.difficulty] ?? 'secondary'} className="capitalize" data-testid="guide-difficulty">
          {guide.difficulty}
        </Badge>
      </div>
      <h3 className="mt-3 text-lg font-semibold text-white">{guide.title}</h3>
      <div id={contentId} className="mt-2 space-y-2 text-sm leading-relaxed text-slate-300">
        {shown.map((p, i) => (
          <p key={i} className={!open && long ? 'line-clamp-4' : undefined}>
            {p}
          </p>
        ))}
      </div>
      {long && (
        <button
          type="button"
          onClick={() => setOpen(!open)}
          aria-expanded={open}
          aria-controls={contentId}
          className="mt-2 self-start text-sm font-medium text-violet-300 hover:text-violet-200"
        >
          {open ? 'Show less' : 'Read more'}
        </button>
      )}
      <div className="mt-auto flex flex-wrap items-center gap-2 pt-4">
        <Badge variant="default" data-testid="guide-category">
          {guide.category}
        </Badge>
        {guide.tags.slice(0, GUIDE_TAGS_SHOWN).map((t) => (
          <Badge key={t} variant="outline" data-testid="guide-tag">
            #{t}
          </Badge>
        ))}
      </div>
    </Card>
  );
}

export function GuideCardSkeleton() {
  return (
    <div className="rounded-xl border border-slate-800 bg-slate-900 p-5" data-testid="guide-skeleton" aria-hidden="true">
      <div className="flex justify-between">
        <Skeleton className="h-10 w-10 rounded-lg" />
        <Skeleton className="h-5 w-20 rounded-full" />
      </div>
      <Skeleton className="mt-4 h-6 w-3/4" />
      <Skeleton className="mt-3 h-4 w-full" />
      <Skeleton className="mt-2 h-4 w-full" />
      <Skeleton className="mt-2 h-4 w-1/2" />
      <Skeleton className="mt-5 h-5 w-24 rounded-full" />
    </div>
  );
}
