import { describe, expect, it, vi, beforeEach } from 'vitest';

const copied: string[] = [];
vi.mock('./clipboard', () => ({ copyText: vi.fn(async (t: string) => (copied.push(t), true)) }));
const toasts: { title: string }[] = [];
vi.mock('./toast', () => ({ toast: vi.fn((t: { title: string }) => (toasts.push(t), { id: '1', dismiss() {} })) }));

import { absoluteUrl, shareLink } from './share';

beforeEach(() => {
  copied.length = 0;
  toasts.length = 0;
});

describe('shareLink', () => {
  it('resolves relative addresses against the page', () => {
    expect(absoluteUrl('/commands?command=fly', 'https://fans.example/guides')).toBe('https://fans.example/commands?command=fly');
  });

  it('uses the share sheet when the browser has one, and copies nothing', async () => {
    const share = vi.fn(async () => {});
    const out = await shareLink({ title: 'fly', url: 'https://fans.example/commands?command=fly' }, { share } as unknown as Navigator);
    expect(out).toBe('shared');
    expect(share).toHaveBeenCalledWith({ title: 'fly', text: undefined, url: 'https://fans.example/commands?command=fly' });
    expect(copied).toEqual([]);
  });

  it('a closed share sheet is a choice: no copy, no toast', async () => {
    const share = vi.fn(async () => {
      throw new DOMException('closed', 'AbortError');
    });
    expect(await shareLink({ title: 'x', url: 'https://a.example/' }, { share } as unknown as Navigator)).toBe('cancelled');
    expect(copied).toEqual([]);
    expect(toasts).toEqual([]);
  });

  it('without the Web Share API, or when it is refused, the link is copied with a toast', async () => {
    expect(await shareLink({ title: 'x', url: 'https://a.example/p' }, {} as Navigator)).toBe('copied');
    const refused = vi.fn(async () => {
      throw new DOMException('no', 'NotAllowedError');
    });
    expect(await shareLink({ title: 'x', url: 'https://a.example/q' }, { share: refused } as unknown as Navigator)).toBe('copied');
    expect(copied).toEqual(['https://a.example/p', 'https://a.example/q']);
    expect(toasts.map((t) => t.title)).toEqual(['Link copied', 'Link copied']);
  });
});
