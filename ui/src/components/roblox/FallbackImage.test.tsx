import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { Award } from 'lucide-react';
import { FallbackImage } from './FallbackImage';

describe('FallbackImage', () => {
  afterEach(cleanup);

  it('walks the image, two alternatives, then the placeholder icon', () => {
    render(<FallbackImage src="a.png" fallbacks={['b.png', 'c.png']} alt="Welcome badge image" placeholder={Award} testId="img" />);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const img = screen.getByTestId('img') as HTMLImageElement;
      seen.push(img.getAttribute('src')!);
      fireEvent.error(img);
    }
    expect(seen).toEqual(['a.png', 'b.png', 'c.png']);
    const placeholder = screen.getByTestId('img');
    expect(placeholder.tagName).toBe('SPAN');
    expect(placeholder.getAttribute('role')).toBe('img');
    expect(placeholder.getAttribute('aria-label')).toBe('Welcome badge image');
    expect(placeholder.querySelector('svg')).toBeTruthy();
  });

  it('starts again when the sources change', () => {
    const { rerender } = render(<FallbackImage src="a.png" alt="x" placeholder={Award} testId="img" />);
    fireEvent.error(screen.getByTestId('img'));
    expect(screen.getByTestId('img').tagName).toBe('SPAN');
    rerender(<FallbackImage src="new.png" alt="x" placeholder={Award} testId="img" />);
    expect(screen.getByTestId('img').getAttribute('src')).toBe('new.png');
  });
});
