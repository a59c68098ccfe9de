import { describe, expect, it } from 'vitest';
import { findGuide, guideLink, guideParam, paragraphsOf } from './guides';
import type { Guide } from './types';

const guides: Guide[] = [
  { id: 3, title: 'Three', content: 'a', category: 'Beginner', difficulty: 'easy', tags: [] },
  { id: 12, title: 'Twelve', content: 'b', category: 'Building', difficulty: 'advanced', tags: [] },
];

describe('guide links', () => {
  it('link one guide and read it back', () => {
    expect(guideLink(12)).toBe('/guides?guide=12');
    expect(guideParam('?guide=12')).toBe('12');
    expect(findGuide(guides, guideParam(guideLink(12).split('?')[1]))?.title).toBe('Twelve');
  });

  it('find nothing for hostile or unknown ids', () => {
    for (const q of ['', '?guide=', '?guide=abc', '?guide=-3', '?guide=3.0', '?guide=1e1', '?guide=99', '?guide=%00', '?other=3']) {
      expect(findGuide(guides, guideParam(q)), q).toBeUndefined();
    }
    expect(guideParam('?guide=' + 'x'.repeat(5000))).toHaveLength(40);
    expect(findGuide(guides, '003')?.id).toBe(3);
  });
});

describe('paragraphsOf', () => {
  it('splits on blank lines and drops empty paragraphs', () => {
    expect(paragraphsOf(' One.\n\n  \n\nTwo\nlines. \n\n')).toEqual(['One.', 'Two\nlines.']);
    expect(paragraphsOf('')).toEqual([]);
  });
});
