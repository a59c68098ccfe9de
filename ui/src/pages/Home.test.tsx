import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/preact';
import Home from './Home';
import { guides, renderWithClient, site, stats, stubFetch } from '../test/helpers';

describe('Home page', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('builds the hero from the site settings and the measured command count', async () => {
    const fetch = stubFetch({ '/api/site': site, '/api/stats': stats, '/api/guides': guides });
    renderWithClient(<Home />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Test Hero Title' })).toBeTruthy();
    await waitFor(() => expect(screen.getAllByTestId('hero-claim').map((c) => c.textContent)).toEqual([
      '100+ commands',
      '6 building tools',
      '36-player large servers',
    ]));
    const play = screen.getByRole('link', { name: /Play Now/ });
    expect(play.getAttribute('href')).toBe(site.links.game);
    expect(play.getAttribute('target')).toBe('_blank');
    expect(play.getAttribute('rel')).toContain('noopener');
    expect(screen.getByRole('link', { name: /Browse Commands/ }).getAttribute('href')).toBe('/commands');
    // The guides are loaded too (to warm the Guides page's cache), once the first screen is painted.
    await waitFor(() => expect(fetch.mock.calls.map((c) => c[0])).toContain('/api/guides'));
  });

  it('renders six features, four quick-start cards, three showcases and three creator videos', async () => {
    stubFetch({ '/api/site': site, '/api/stats': stats, '/api/guides': guides });
    renderWithClient(<Home />);
    await screen.findByText('Test Hero Title');
    expect(screen.getAllByTestId('feature-card')).toHaveLength(6);
    const quick = await screen.findAllByTestId('quick-start-card');
    expect(quick.map((a) => a.getAttribute('href'))).toEqual(['/commands', '/guides', '/community', '/newgen-detector']);
    expect(quick[3].textContent).toContain('Player Status');
    expect(screen.getAllByTestId('showcase-card')).toHaveLength(3);
    const videos = screen.getAllByTestId('creator-video-card');
    expect(videos).toHaveLength(3);
    const link = videos[1].querySelector('a')!;
    expect(link.getAttribute('href')).toBe('https://video.example.com/results?q=Bob%20Admin%20tricks%20%26%20tips');
    expect(link.getAttribute('target')).toBe('_blank');
  });

  it('shows an error when the site settings fail', async () => {
    stubFetch({ '/api/site': { status: 500, body: { error: 'x' } }, '/api/stats': stats, '/api/guides': guides });
    renderWithClient(<Home />);
    expect(await screen.findByRole('alert')).toBeTruthy();
  });
});
