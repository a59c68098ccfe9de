import { BookOpen, Hammer, Shield, Users } from 'lucide-react';
import { Badge, type BadgeVariant } from '../ui/Badge';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import { ShareButton } from '../share/ShareButton';
import type { IconComponent } from '../home/icons';
import { guideLink, paragraphsOf } from '../../lib/guides';
import type { Difficulty, Guide, GuideCategory } from '../../lib/types';

/** A guide card shows its first 2 tags. */
export const GUIDE_TAGS_SHOWN = 2;

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

export function GuideCategoryIcon({ category }: { category: GuideCategory }) {
  const Icon = CATEGORY_ICON[category] ?? (BookOpen as IconComponent);
  return (
    <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-violet-600/20 text-violet-300" title={category}>
      <Icon className="h-5 w-5" aria-hidden="true" />
    </span>
  );
}

export function DifficultyBadge({ difficulty }: { difficulty: Difficulty }) {
  return (
    <Badge variant={DIFFICULTY_VARIANT[difficulty] ?? 'secondary'} className="capitalize" data-testid="guide-difficulty">
      {difficulty}
    </Badge>
  );
}

/**
 * One guide in the grid: its opening paragraph, cut to a few lines so every card keeps the grid's
 * shape; "Read more" opens the whole text in the reading view (GuideReader).
 */
export function GuideCard({ guide, onOpen }: { guide: Guide; onOpen: (guide: Guide) => void }) {
  const opening = paragraphsOf(guide.content)[0] ?? '';
  return (
    <Card className="flex min-w-0 flex-col p-5" data-testid="guide-card" data-guide-id={guide.id}>
      <div className="flex items-center justify-between gap-3">
        <GuideCategoryIcon category={guide.category} />
        <DifficultyBadge difficulty={guide.difficulty} />
      </div>
      <h3 className="mt-3 text-lg font-semibold text-white">{guide.title}</h3>
      <p className="mt-2 line-clamp-4 text-sm leading-relaxed text-slate-300" data-testid="guide-excerpt">
        {opening}
      </p>
      <div className="mt-2 flex flex-wrap items-center justify-between gap-2">
        <button
          type="button"
          onClick={() => onOpen(guide)}
          aria-haspopup="dialog"
          aria-label={`Read more: ${guide.title}`}
          data-guide-open={guide.id}
          className="cursor-pointer rounded text-sm font-medium text-violet-300 hover:text-violet-200"
        >
          Read more
        </button>
        <ShareButton title={guide.title} url={guideLink(guide.id)} variant="ghost" />
      </div>
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
