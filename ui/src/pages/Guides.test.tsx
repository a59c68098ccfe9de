import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, within } from '@testing-library/preact';
import Guides from './Guides';
import { guides, never, renderWithClient, site, stubFetch } from '../test/helpers';

describe('Guides page', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
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

    // Two paragraphs: collapsed to the first until expanded.
    expect(first.queryByText('Second paragraph here.')).toBeNull();
    const toggle = first.getByRole('button', { name: 'Read more' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(first.getByText('Second paragraph here.')).toBeTruthy();
    expect(first.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');
    // A short one-paragraph guide has no toggle.
    expect(within(cards[1]).queryByRole('button')).toBeNull();

    expect(await screen.findAllByTestId('getting-started-step')).toHaveLength(4);
    expect(screen.getByText('Participate in elections')).toBeTruthy();
    expect(screen.getByText('Tip one')).toBeTruthy();
    expect(screen.getByText('Be fair')).toBeTruthy();
    expect(screen.getByText('Up to 36 players')).toBeTruthy();
    expect(screen.getByRole('link', { name: /Chat Community/ }).getAttribute('href')).toBe(site.links.community);
    expect(screen.getByRole('link', { name: /Official Wiki/ }).getAttribute('href')).toBe(site.links.wiki);
  });
});
