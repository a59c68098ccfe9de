import { useEffect, useRef } from 'react';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { ShareButton } from '../share/ShareButton';
import { guideLink, paragraphsOf } from '../../lib/guides';
import type { Guide } from '../../lib/types';
import { DifficultyBadge, GuideCategoryIcon } from './GuideCard';

/**
 * The reading view of one guide (/guides?guide=ID): a dialog with the whole text, labelled by the guide's
 * title. Escape, the close button and "Back to guides" all call onClose.
 */
export function GuideReader({ guide, onClose }: { guide: Guide | undefined; onClose: () => void }) {
  const body = useRef<HTMLDivElement>(null);
  // The dialog focuses the text, and a browser scrolls a focused element to its top: taller than the
  // screen, the text would hide the title above it. Start at the top, the title in view.
  const id = guide?.id;
  useEffect(() => {
    if (id === undefined) return;
    const frame = requestAnimationFrame(() => body.current?.closest('[role="dialog"]')?.scrollTo?.(0, 0));
    return () => cancelAnimationFrame(frame);
  }, [id]);
  return (
    <Dialog open={!!guide} onClose={onClose} title={guide?.title} className="max-w-3xl! sm:p-8">
      {guide && (
        <div ref={body} data-testid="guide-reader">
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <GuideCategoryIcon category={guide.category} />
            <Badge variant="default">{guide.category}</Badge>
            <DifficultyBadge difficulty={guide.difficulty} />
            {guide.tags.map((t) => (
              <Badge key={t} variant="outline">
                #{t}
              </Badge>
            ))}
          </div>
          {/* Focused on open, so a screen reader starts at the text and the arrow keys scroll it. */}
          <div
            data-autofocus=""
            tabIndex={-1}
            className="mt-5 space-y-4 leading-relaxed text-slate-200 outline-none"
            data-testid="guide-reader-text"
          >
            {paragraphsOf(guide.content).map((p, i) => (
              <p key={i}>{p}</p>
            ))}
          </div>
          <div className="mt-8 flex flex-wrap items-center justify-between gap-3 border-t border-slate-800 pt-4">
            <ShareButton title={guide.title} url={guideLink(guide.id)} />
            <Button variant="outline" size="sm" onClick={onClose}>
              Back to guides
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
