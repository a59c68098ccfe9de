import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { Award, User } from 'lucide-react';
import { FallbackImage } from './FallbackImage';

const img = () => screen.getByTestId('img').querySelector('img');

describe('FallbackImage', () => {
  afterEach(cleanup);

  it('walks the image, two alternatives, then the placeholder icon', () => {
    render(<FallbackImage src="a.png" fallbacks={['b.png', 'c.png']} alt="Welcome badge image" placeholder={Award} testId="img" />);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const el = img()!;
      seen.push(el.getAttribute('src')!);
      fireEvent.error(el);
    }
    expect(seen).toEqual(['a.png', 'b.png', 'c.png']);
    const placeholder = screen.getByTestId('img');
    expect(img()).toBeNull();
    expect(placeholder.getAttribute('data-fallback')).toBe('placeholder');
    expect(placeholder.getAttribute('role')).toBe('img');
    expect(placeholder.getAttribute('aria-label')).toBe('Welcome badge image');
    expect(placeholder.querySelector('svg')).toBeTruthy();
  });

  it('keeps the image invisible (and its alt text unseen) until it has loaded', () => {
    render(<FallbackImage src="a.png" alt="OldBuilder2009's avatar" placeholder={User} initials="OB" testId="img" />);
    const el = img()!;
    expect(el.getAttribute('alt')).toBe("OldBuilder2009's avatar");
    expect(el.className).toContain('opacity-0');
    expect(el.className).toContain('text-transparent');
    expect(screen.getByTestId('img-initials').textContent).toBe('OB');
    fireEvent.load(el);
    expect(img()!.className).toContain('opacity-100');
    expect(screen.getByTestId('img').getAttribute('data-loaded')).toBe('true');
  });

  it('shows the initials, not the icon, when no source loads', () => {
    render(<FallbackImage src="a.png" alt="x's avatar" placeholder={User} initials="OB" testId="img" />);
    fireEvent.error(img()!);
    const placeholder = screen.getByTestId('img');
    expect(placeholder.getAttribute('role')).toBe('img');
    expect(placeholder.textContent).toBe('OB');
    expect(placeholder.querySelector('svg')).toBeNull();
  });

  it('starts again when the sources change', () => {
    const { rerender } = render(<FallbackImage src="a.png" alt="x" placeholder={Award} testId="img" />);
    fireEvent.error(img()!);
    expect(img()).toBeNull();
    rerender(<FallbackImage src="new.png" alt="x" placeholder={Award} testId="img" />);
    expect(img()!.getAttribute('src')).toBe('new.png');
  });
});
