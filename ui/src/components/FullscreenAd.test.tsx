import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import { useState } from 'react';
import { BANNER_CLOSED_KEY, BottomBanner } from './BottomBanner';
import { FullscreenAd } from './FullscreenAd';
import { FULLSCREEN_SESSION_KEY } from './adImage';
import { renderWithClient, site, stubFetch } from '../test/helpers';
import { adAnalysis } from '../test/fixtures';
import type { ActiveBannerResponse, Advertisement } from '../lib/types';

const ad: Advertisement = {
  id: 5,
  websiteUrl: 'https://shop.example.com',
  imagePath: '/uploads/0123456789abcdef0123456789abcdef.png',
  adDescription: 'Blocks <script>alert(1)</script> for builders',
  premiumFullscreen: true,
  duration: '10-fullscreen',
  fullscreenMessageType: 'ai-generated',
  fullscreenCustomMessage: null,
  aiAnalysis: adAnalysis({
    summary: 'The best block shop',
    mainProduct: 'Blocks',
    category: 'Gaming',
    priceRange: 'Free',
    keyFeatures: ['One', 'Two', 'Three', 'Four'],
    callToAction: 'Shop now',
  }),
  links: ['https://video.example.com/watch', 'javascript:alert(1)'],
};

function active(a: Advertisement): ActiveBannerResponse {
  return {
    banner: { isActive: true, backgroundColor: '#0a3d62', textColor: '#f5f6fa', borderColor: '#3c6382', advertisementId: a.id, expiresAt: '2030-01-01T00:00:00Z' },
    advertisement: a,
  };
}

function Shell() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <BottomBanner onTestFullscreen={() => setOpen(true)} />
      <FullscreenAd open={open} onOpenChange={setOpen} />
    </>
  );
}

describe('sponsored banner and fullscreen ad', () => {
  beforeEach(() => sessionStorage.setItem(FULLSCREEN_SESSION_KEY, 'skipped'));
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
    sessionStorage.clear();
  });

  it("shows SPONSORED in the banner's colours with the image, the links and Test Full-Screen", async () => {
    stubFetch({ '/api/site': site, '/api/admin/active-banner': active(ad) });
    renderWithClient(<Shell />);
    const banner = await screen.findByRole('complementary', { name: 'Sponsored' });
    expect(banner.style.backgroundColor).toMatch(/#0a3d62|rgb\(10, 61, 98\)/);
    expect(within(banner).getByText('SPONSORED')).toBeTruthy();
    expect(within(banner).getByText('Blocks <script>alert(1)</script> for builders')).toBeTruthy();
    expect(banner.querySelector('script')).toBeNull();
    const links = within(within(banner).getByRole('list', { name: 'Advertiser links' })).getAllByRole('link');
    expect(links.map((l) => l.getAttribute('href'))).toEqual(['https://video.example.com/watch']);
    const img = banner.querySelector('img') as HTMLImageElement;
    expect(img.getAttribute('src')).toBe(ad.imagePath);
    fireEvent.error(img);
    await waitFor(() => expect(within(banner).getByRole('img', { name: 'Advertisement image unavailable' })).toBeTruthy());
    expect(banner.querySelector('img')).toBeNull();
  });

  it('Test Full-Screen opens the ad: first 3 key features, closes on the close button and after 8 s', async () => {
    stubFetch({ '/api/site': site, '/api/admin/active-banner': active(ad) });
    renderWithClient(<Shell />);
    fireEvent.click(await screen.findByRole('button', { name: /Test Full-Screen/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Sponsored advertisement' });
    expect(within(dialog).getByTestId('fullscreen-ad-summary').textContent).toBe('The best block shop');
    const features = within(dialog).getByRole('list', { name: 'Key features' });
    expect(within(features).getAllByRole('listitem').map((li) => li.textContent?.replace('•', '').trim())).toEqual(['One', 'Two', 'Three']);
    // The advertiser's links, which a phone's banner has no room for, labelled by their host.
    const links = within(within(dialog).getByRole('list', { name: 'Advertiser links' })).getAllByRole('link');
    expect(links.map((l) => [l.textContent, l.getAttribute('href')])).toEqual([['video.example.com', 'https://video.example.com/watch']]);
    // An analysis that does not say it is confident gets the neutral call to action.
    expect(within(dialog).getByRole('link', { name: 'Visit site' }).getAttribute('href')).toBe(ad.websiteUrl);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();

    vi.useFakeTimers();
    fireEvent.click(screen.getByRole('button', { name: /Test Full-Screen/ }));
    expect(screen.getByRole('dialog')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(7_900);
    });
    expect(screen.getByRole('dialog')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(200);
    });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it("the advertiser's own message is the call to action; closes on the backdrop", async () => {
    stubFetch({
      '/api/site': site,
      '/api/admin/active-banner': active({ ...ad, fullscreenMessageType: 'user-input', fullscreenCustomMessage: 'Come <b>build</b>' }),
    });
    renderWithClient(<Shell />);
    fireEvent.click(await screen.findByRole('button', { name: /Test Full-Screen/ }));
    const dialog = await screen.findByRole('dialog');
    const cta = within(dialog).getByTestId('fullscreen-ad-cta');
    expect(cta.textContent).toBe('Come <b>build</b>');
    expect(cta.getAttribute('href')).toBe(ad.websiteUrl);
    expect(dialog.querySelector('b')).toBeNull();
    expect(within(dialog).queryByTestId('fullscreen-ad-summary')).toBeNull();
    fireEvent.click(screen.getByTestId('dialog-backdrop'));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shows the description once: a summary and features that repeat it are left out; a confident analysis gives the call to action', async () => {
    const description = 'The friendliest survival server! Weekly build contests. Free ranks.';
    stubFetch({
      '/api/site': site,
      '/api/admin/active-banner': active({
        ...ad,
        adDescription: description,
        aiAnalysis: adAnalysis({
          summary: 'The friendliest survival server',
          mainProduct: 'blockcraft.example',
          category: 'Game server',
          priceRange: 'Free',
          keyFeatures: ['Weekly build contests', 'Free ranks', 'Friendly staff'],
          callToAction: 'Join the server',
          certainty: 'confident',
        }),
      }),
    });
    renderWithClient(<Shell />);
    fireEvent.click(await screen.findByRole('button', { name: /Test Full-Screen/ }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent?.split('friendliest survival server').length).toBe(2);
    expect(within(dialog).queryByTestId('fullscreen-ad-summary')).toBeNull();
    const features = within(dialog).getByRole('list', { name: 'Key features' });
    expect(within(features).getAllByRole('listitem').map((li) => li.textContent?.replace('•', '').trim())).toEqual(['Friendly staff']);
    expect(within(dialog).getByTestId('fullscreen-ad-cta').textContent).toBe('Join the server');
  });

  it('a closed banner stays closed for the visit (sessionStorage) and comes back on a new one', async () => {
    stubFetch({ '/api/site': site, '/api/admin/active-banner': active(ad) });
    const first = renderWithClient(<Shell />);
    fireEvent.click(within(await screen.findByRole('complementary', { name: 'Sponsored' })).getByRole('button', { name: 'Close banner' }));
    expect(screen.queryByRole('complementary')).toBeNull();
    expect(sessionStorage.getItem(BANNER_CLOSED_KEY)).toBe('1');
    first.unmount();
    renderWithClient(<Shell />);
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('complementary')).toBeNull();
    cleanup();
    sessionStorage.removeItem(BANNER_CLOSED_KEY);
    renderWithClient(<Shell />);
    expect(await screen.findByRole('complementary', { name: 'Sponsored' })).toBeTruthy();
  });

  it('the banner text is one line with the whole text in its title', async () => {
    stubFetch({ '/api/site': site, '/api/admin/active-banner': active(ad) });
    renderWithClient(<Shell />);
    const text = within(await screen.findByRole('complementary', { name: 'Sponsored' })).getByTestId('banner-text');
    expect(text.className).toContain('truncate');
    expect(text.getAttribute('title')).toBe(ad.adDescription);
  });

  it('opens by itself once a session when the roll says so', async () => {
    sessionStorage.clear();
    vi.spyOn(Math, 'random').mockReturnValue(0.2);
    stubFetch({ '/api/site': site, '/api/admin/active-banner': active(ad) });
    renderWithClient(<Shell />);
    expect(await screen.findByRole('dialog', { name: 'Sponsored advertisement' })).toBeTruthy();
    expect(sessionStorage.getItem(FULLSCREEN_SESSION_KEY)).toBe('shown');
    vi.restoreAllMocks();
  });

  it('the default banner has no Test Full-Screen', async () => {
    stubFetch({
      '/api/site': site,
      '/api/admin/active-banner': { banner: { isActive: false, ...site.defaultBanner, advertisementId: null, expiresAt: null }, advertisement: null },
    });
    renderWithClient(<Shell />);
    const banner = await screen.findByRole('complementary', { name: 'Announcement' });
    expect(within(banner).getByText('EXCLUSIVE')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Test Full-Screen/ })).toBeNull();
  });
});
