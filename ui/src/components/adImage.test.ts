import { describe, expect, it } from 'vitest';
import { activeAd, adImageSrc, bannerLinks, fullscreenContent, isFullscreenAd, repeats, rollFullscreen, safeHref, FULLSCREEN_SESSION_KEY } from './adImage';
import type { ActiveBannerResponse, Advertisement } from '../lib/types';
import { adAnalysis } from '../test/fixtures';

const ad: Advertisement = {
  id: 7,
  websiteUrl: 'https://example.com',
  imagePath: '/uploads/a.png',
  adDescription: 'd',
  premiumFullscreen: false,
  duration: '1-day',
  fullscreenMessageType: null,
  fullscreenCustomMessage: null,
  aiAnalysis: adAnalysis(),
  links: [],
};
const banner = { isActive: true, backgroundColor: '#000', textColor: '#fff', borderColor: '#111', advertisementId: 7, expiresAt: null };

describe('adImageSrc', () => {
  it('keeps /uploads/ paths and maps others to /uploads/<name>', () => {
    expect(adImageSrc('/uploads/x.png')).toBe('/uploads/x.png');
    expect(adImageSrc('uploads/x.png')).toBe('/uploads/x.png');
    expect(adImageSrc('/var/data/uploads/abc.webp')).toBe('/uploads/abc.webp');
    expect(adImageSrc('C:\\tmp\\y.jpg')).toBe('/uploads/y.jpg');
    expect(adImageSrc('')).toBe('');
    expect(adImageSrc(null)).toBe('');
  });
});

describe('activeAd / isFullscreenAd', () => {
  it('needs an active banner with an ad', () => {
    const r: ActiveBannerResponse = { banner, advertisement: ad };
    expect(activeAd(r)).toBe(ad);
    expect(activeAd({ banner: { ...banner, isActive: false }, advertisement: ad })).toBeNull();
    expect(activeAd({ banner, advertisement: null })).toBeNull();
    expect(activeAd(undefined)).toBeNull();
  });
  it('fullscreen when premium or 10-fullscreen', () => {
    expect(isFullscreenAd(ad)).toBe(false);
    expect(isFullscreenAd({ ...ad, premiumFullscreen: true })).toBe(true);
    expect(isFullscreenAd({ ...ad, duration: '10-fullscreen' })).toBe(true);
    expect(isFullscreenAd(null)).toBe(false);
  });
});

describe('safeHref', () => {
  it('allows only http(s)', () => {
    expect(safeHref('https://a.example/x')).toBe('https://a.example/x');
    expect(safeHref('javascript:alert(1)')).toBeUndefined();
    expect(safeHref('')).toBeUndefined();
  });
});

describe('rollFullscreen', () => {
  const store = () => {
    const m = new Map<string, string>();
    return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
  };
  it('rolls once per session with a 50% chance', () => {
    const s = store();
    expect(rollFullscreen(s, () => 0.49)).toBe(true);
    expect(s.m.get(FULLSCREEN_SESSION_KEY)).toBe('shown');
    expect(rollFullscreen(s, () => 0)).toBe(false);
    const t = store();
    expect(rollFullscreen(t, () => 0.5)).toBe(false);
    expect(rollFullscreen(t, () => 0)).toBe(false);
  });
});

describe('bannerLinks', () => {
  it('keeps http(s) links, at most 3, labelled by their host', () => {
    expect(
      bannerLinks([
        'https://www.shop.example.com/',
        'javascript:alert(1)',
        '/relative',
        '',
        'http://video.example.com/watch/123/',
        'https://www.shop.example.com/',
        'https://third.example.com/a',
        'https://fourth.example.com',
      ]),
    ).toEqual([
      { href: 'https://www.shop.example.com/', label: 'shop.example.com' },
      { href: 'http://video.example.com/watch/123/', label: 'video.example.com' },
      { href: 'https://third.example.com/a', label: 'third.example.com' },
    ]);
    expect(bannerLinks(null)).toEqual([]);
  });
});

describe('fullscreenContent (each thing once; the call to action)', () => {
  const analysis = adAnalysis({
    summary: 'Build the best castle and win',
    mainProduct: 'contest.example',
    category: 'Unsure',
    priceRange: 'Not stated',
    keyFeatures: ['Entries close Friday', 'Winners shown live on stream', 'Judged by the community'],
    callToAction: 'Visit site',
  });
  const contest: Advertisement = {
    ...ad,
    adDescription: 'TH BUILD CONTEST: build the best castle and win! Entries close Friday. Winners shown live on stream.',
    aiAnalysis: analysis,
  };
  it('leaves out a summary and key features the description already says', () => {
    expect(fullscreenContent(contest)).toEqual({
      summary: null,
      features: ['Judged by the community'],
      callToAction: 'Visit site',
      advertisersWords: false,
    });
  });
  it("the advertiser's message first, the analysis's call to action only when confident, else 'Visit site'", () => {
    const own = { ...contest, fullscreenMessageType: 'user-input', fullscreenCustomMessage: ' Enter before Friday! ' };
    expect(fullscreenContent(own)).toMatchObject({ callToAction: 'Enter before Friday!', advertisersWords: true });
    // a message kept from an earlier ai-generated choice is not the advertiser's call to action
    expect(fullscreenContent({ ...own, fullscreenMessageType: 'ai-generated' }).callToAction).toBe('Visit site');
    const guessed = { ...contest, aiAnalysis: { ...analysis, callToAction: 'Watch and subscribe' } };
    expect(fullscreenContent(guessed).callToAction).toBe('Visit site');
    const sure = { ...contest, aiAnalysis: { ...analysis, callToAction: 'Join the server', certainty: 'confident' as const } };
    expect(fullscreenContent(sure).callToAction).toBe('Join the server');
    expect(fullscreenContent({ ...contest, aiAnalysis: adAnalysis() })).toEqual({ summary: null, features: [], callToAction: 'Visit site', advertisersWords: false });
  });
  it('keeps a summary that says something new, and at most 3 features', () => {
    const llm = { ...analysis, summary: 'A castle-building contest with a prize', keyFeatures: ['a one', 'b two', 'c three', 'd four'] };
    const c = fullscreenContent({ ...contest, aiAnalysis: llm });
    expect(c.summary).toBe('A castle-building contest with a prize');
    expect(c.features).toEqual(['a one', 'b two', 'c three']);
  });
  it('repeats: whole words, case and punctuation aside, a cut-off ellipsis too', () => {
    expect(repeats('Weekly build contests', 'The server! Weekly BUILD contests.')).toBe(true);
    expect(repeats('The friendliest survival…', 'The friendliest survival server')).toBe(true);
    expect(repeats('build', 'rebuilding')).toBe(false);
  });
});
