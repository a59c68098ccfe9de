import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/preact';
import { UsageText, usageTokens } from './UsageText';

describe('usage text', () => {
  afterEach(cleanup);

  it('keeps placeholders whole and loses nothing', () => {
    const usage = ':tp <player> <destination player>';
    expect(usageTokens(usage)).toEqual([':tp', ' ', '<player>', ' ', '<destination player>']);
    expect(usageTokens(':play  [sound id]')).toEqual([':play', '  ', '[sound id]']);
    for (const text of [usage, ':cmd<player>', 'a < b [c', ' lead and trail ', '']) {
      expect(usageTokens(text).join('')).toBe(text);
    }
  });

  it('renders each word and placeholder as one unbreakable piece', () => {
    const { container } = render(<UsageText text=":tp <player> <destination player>" />);
    const pieces = [...container.querySelectorAll('[data-usage-token]')];
    expect(pieces.map((p) => p.textContent)).toEqual([':tp', '<player>', '<destination player>']);
    expect(pieces.every((p) => p.classList.contains('whitespace-nowrap'))).toBe(true);
    expect(container.textContent).toBe(':tp <player> <destination player>');
  });
});
