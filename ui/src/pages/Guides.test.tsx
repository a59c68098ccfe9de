import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import Guides from './Guides';
import { guides, never, renderWithClient, site, stubFetch } from '../test/helpers';
import { getToastState } from '../lib/toast';

describe('Guides page', () => {
  beforeEach(() => {
    // The open guide is in the address, which outlives a test here.
    history.replaceState(null, '', '/guides');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('shows three skeletons while the guides load', async () => {
    stubFetch({ '/api/site': site, '/api/guides': never });
    renderWithClient(<Guides />);
    expect(screen.getAllByTestId('guide-skeleton')).toHaveLength(3);
  });

  it('shows the error state', async () => {
    stubFetch({ '/api/site': site, '/api/guides': { status: 500, body: { error: 'x' } } });
    renderWithClient(<Guides />);
    expect(await screen.findByText('Error Loading Guides')).toBeTruthy();
    expect(screen.getByText('Failed to load guides. Please try again later.')).toBeTruthy();
  });

  it('renders the static sections and the guide cards', async () => {
    stubFetch({ '/api/site': site, '/api/guides': guides });
    renderWithClient(<Guides />);
    const cards = await screen.findAllByTestId('guide-card');
    expect(cards).toHaveLength(2);
    const first = within(cards[0]);
    expect(first.getByText('First steps')).toBeTruthy();
    expect(first.getByText('easy')).toBeTruthy();
    expect(first.getByText('Beginner')).toBeTruthy();
    expect(first.getAllByTestId('guide-tag').map((t) => t.textContent)).toEqual(['#start', '#basics']);

    // Two paragraphs: the card shows the first; the reading view has the whole text.
    expect(first.getByText('Short paragraph one.')).toBeTruthy();
    expect(first.queryByText('Second paragraph here.')).toBeNull();
    expect(first.getByRole('button', { name: 'Read more: First steps' }).getAttribute('aria-haspopup')).toBe('dialog');
    expect(first.getByRole('button', { name: 'Share First steps' })).toBeTruthy();
    expect(within(cards[1]).getByRole('button', { name: 'Share Walls' })).toBeTruthy();

    expect(await screen.findAllByTestId('getting-started-step')).toHaveLength(4);
    expect(screen.getByText('Participate in elections')).toBeTruthy();
    expect(screen.getByText('Tip one')).toBeTruthy();
    expect(screen.getByText('Be fair')).toBeTruthy();
    expect(screen.getByText('Up to 36 players')).toBeTruthy();
    expect(screen.getByRole('link', { name: /Chat Community/ }).getAttribute('href')).toBe(site.links.community);
    expect(screen.getByRole('link', { name: /Official Wiki/ }).getAttribute('href')).toBe(site.links.wiki);
  });

  it('"Read more" opens the reading view and puts the guide in the address; closing returns focus to the card', async () => {
    stubFetch({ '/api/site': site, '/api/guides': guides });
    renderWithClient(<Guides />);
    const readMore = await screen.findByRole('button', { name: 'Read more: First steps' });
    readMore.focus();
    fireEvent.click(readMore);
    const dialog = await screen.findByRole('dialog', { name: 'First steps' });
    expect(location.search).toBe('?guide=1');
    expect(within(dialog).getByText('Second paragraph here.')).toBeTruthy();
    expect(within(dialog).getByText('#third')).toBeTruthy(); // every tag, not just the first 2
    // The grid card did not grow.
    expect(within(screen.getAllByTestId('guide-card')[0]).queryByText('Second paragraph here.')).toBeNull();

    fireEvent.click(within(dialog).getByRole('button', { name: 'Back to guides' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(location.search).toBe('');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Read more: First steps' })));
  });

  it('opens the guide a link names, Escape closes it and removes the parameter', async () => {
    history.replaceState(null, '', '/guides?guide=2');
    stubFetch({ '/api/site': site, '/api/guides': guides });
    renderWithClient(<Guides />);
    const dialog = await screen.findByRole('dialog', { name: 'Walls' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    // Focus moves into the view (its text), so Escape is heard there.
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByTestId('guide-reader-text')));
    fireEvent.keyDown(document, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(location.search).toBe('');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Read more: Walls' })));
  });

  it('says so for a link to a guide that is not there, and shows the grid', async () => {
    history.replaceState(null, '', '/guides?guide=abc');
    stubFetch({ '/api/site': site, '/api/guides': guides });
    renderWithClient(<Guides />);
    expect(await screen.findByTestId('guide-not-found')).toBeTruthy();
    expect(screen.getAllByTestId('guide-card')).toHaveLength(2);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shares a guide: the link is copied where there is no share sheet', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText } as unknown as Clipboard);
    stubFetch({ '/api/site': site, '/api/guides': guides });
    renderWithClient(<Guides />);
    fireEvent.click(await screen.findByRole('button', { name: 'Share Walls' }));
    await waitFor(() => expect(getToastState().toasts[0]?.title).toBe('Link copied'));
    expect(writeText).toHaveBeenCalledWith(`${location.origin}/guides?guide=2`);
  });
});
