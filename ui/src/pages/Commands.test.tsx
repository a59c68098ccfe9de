import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import Commands from './Commands';
import { chooseOption, makeCommands, never, renderWithClient, site, stubFetch } from '../test/helpers';
import { getToastState } from '../lib/toast';

// Each test renders pages of cards many times over: slow on a busy machine, hence the longer timeout.
describe('Commands page', { timeout: 15_000 }, () => {
  beforeEach(() => {
    // The page's state is in the address, which outlives a test here.
    history.replaceState(null, '', '/commands');
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText: vi.fn().mockResolvedValue(undefined) } as unknown as Clipboard);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('shows six skeleton cards while loading', () => {
    stubFetch({ '/api/site': site, '/api/commands': never, '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    expect(screen.getAllByTestId('command-skeleton')).toHaveLength(6);
  });

  it('shows the error state', async () => {
    stubFetch({ '/api/site': site, '/api/commands': { status: 500, body: { error: 'boom' } }, '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    expect(await screen.findByText('Error Loading Commands')).toBeTruthy();
    expect(screen.getByText('Failed to load commands. Please try again later.')).toBeTruthy();
  });

  it('renders cards, searches, filters by chip and paginates', async () => {
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(30), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(12));
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();
    expect(screen.getByPlaceholderText('Search commands...').hasAttribute('data-search-input')).toBe(true);

    const chips = screen.getAllByTestId('category-chip').map((c) => c.textContent);
    expect(chips).toEqual(['Building', 'Fun', 'Moderation']);

    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(screen.getByText('Page 2 of 3')).toBeTruthy();

    // Search goes back to page 1 and matches descriptions case-insensitively.
    fireEvent.input(screen.getByPlaceholderText('Search commands...'), { target: { value: 'fly' } });
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(1));
    expect(screen.queryByText(/Page \d of/)).toBeNull();

    fireEvent.input(screen.getByPlaceholderText('Search commands...'), { target: { value: '' } });
    const fun = screen.getAllByTestId('category-chip').find((c) => c.textContent === 'Fun')!;
    fireEvent.click(fun);
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(10));
    expect(fun.getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(fun); // clicking the active chip clears it
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(12));
    fireEvent.click(fun);
    fireEvent.click(screen.getByRole('button', { name: 'All Categories' }));
    await waitFor(() => expect(screen.getByText('Page 1 of 3')).toBeTruthy());
  });

  it('filters by permission and rating and shows the empty state', async () => {
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(8), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(8));
    chooseOption(screen.getByTestId('permission-filter'), 'OR');
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(2));
    chooseOption(screen.getByTestId('rating-filter'), '4');
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(1));
    chooseOption(screen.getByTestId('permission-filter'), 'NE');
    expect(await screen.findByText('No commands found')).toBeTruthy();
    expect(screen.getByText('Try adjusting your search or filter criteria')).toBeTruthy();
  });

  it('shows card details, at most 3 examples, and copies with a toast', async () => {
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(2), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(2));
    const card = screen.getAllByTestId('command-card')[1];
    const c = within(card);
    expect(c.getByText('cmd2')).toBeTruthy();
    expect(c.getByText('OR')).toBeTruthy();
    await waitFor(() => expect(c.getByText('Only Administrator')).toBeTruthy());
    expect(c.getByText('Moderation')).toBeTruthy();
    expect(c.getAllByRole('button', { name: /^Copy example/ })).toHaveLength(3);
    expect(c.getByTestId('rating-display')).toBeTruthy();
    expect(within(screen.getAllByTestId('command-card')[0]).queryByTestId('rating-display')).toBeNull();
    // No favorite/rating controls without their props.
    expect(c.queryByRole('button', { name: /favorites/ })).toBeNull();

    fireEvent.click(c.getByRole('button', { name: 'Copy usage' }));
    await waitFor(() => expect(getToastState().toasts[0]?.title).toBe('Copied to clipboard'));
    expect(navigator.clipboard.writeText).toHaveBeenCalledWith(':cmd2 <player>');
    fireEvent.click(c.getByRole('button', { name: 'Copy example: :cmd2 all' }));
    await waitFor(() => expect(navigator.clipboard.writeText).toHaveBeenCalledWith(':cmd2 all'));
  });

  it('shows the usage guide, links and the empty popular list', async () => {
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(1), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    expect(await screen.findByText('No popular commands yet')).toBeTruthy();
    expect(await screen.findByText('%teamname')).toBeTruthy();
    expect(screen.getAllByText('Usable by Perm Admin').length).toBeGreaterThan(0);
    expect(screen.getByRole('link', { name: /Official Wiki/ }).getAttribute('href')).toBe(site.links.wiki);
    expect(screen.getByRole('link', { name: /Game Page/ }).getAttribute('target')).toBe('_blank');
  });

  it('lists popular commands', async () => {
    const popular = makeCommands(3).map((c) => ({ ...c, favoriteCount: 2 }));
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(3), '/api/commands/popular': popular });
    renderWithClient(<Commands />);
    expect(await screen.findByRole('button', { name: 'Show cmd3' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Show cmd3' }));
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(1));
    expect((screen.getByPlaceholderText('Search commands...') as HTMLInputElement).value).toBe('cmd3');
  });

  it('keeps the search, filters and page in the address, adding history entries a person can go Back through', async () => {
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(30), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(12));
    const entries = history.length;

    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(location.search).toBe('?page=2&per=12'));
    expect(history.length).toBe(entries + 1);

    // Typing: the first character adds an entry, the next ones replace it.
    const search = screen.getByPlaceholderText('Search commands...');
    fireEvent.input(search, { target: { value: 'c' } });
    fireEvent.input(search, { target: { value: 'cm' } });
    fireEvent.input(search, { target: { value: 'cmd' } });
    await waitFor(() => expect(location.search).toBe('?search=cmd'));
    expect(history.length).toBe(entries + 2);

    chooseOption(screen.getByTestId('permission-filter'), 'OR');
    await waitFor(() => expect(location.search).toBe('?search=cmd&permission=OR'));
    const fun = screen.getAllByTestId('category-chip').find((c) => c.textContent === 'Fun')!;
    fireEvent.click(fun);
    await waitFor(() => expect(location.search).toBe('?search=cmd&category=Fun&permission=OR'));
    expect(history.length).toBe(entries + 4);

    // Back shows the list the previous address describes.
    history.back();
    await waitFor(() => expect(location.search).toBe('?search=cmd&permission=OR'));
    await waitFor(() => expect(fun.getAttribute('aria-pressed')).toBe('false'));
    expect((screen.getByTestId('permission-filter') as HTMLSelectElement).value).toBe('OR');
  });

  it('reads its state from the address and corrects hostile values', async () => {
    history.replaceState(null, '', '/commands?search=cmd&category=fun&permission=XX&rating=9&page=-1');
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(30), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(10));
    expect((screen.getByPlaceholderText('Search commands...') as HTMLInputElement).value).toBe('cmd');
    await waitFor(() => expect(location.search).toBe('?search=cmd&category=Fun'));
    expect(screen.getAllByTestId('category-chip').find((c) => c.textContent === 'Fun')!.getAttribute('aria-pressed')).toBe('true');

    history.pushState(null, '', '/commands?page=99999999999&category=Nope');
    await waitFor(() => expect(screen.getByText('Page 3 of 3')).toBeTruthy());
    await waitFor(() => expect(location.search).toBe('?page=3&per=12'));
  });

  it('shows a linked command on its page, highlighted, and clears filters that hide it', async () => {
    history.replaceState(null, '', '/commands?category=Moderation&command=cmd28');
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(30), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    await waitFor(() => expect(screen.getByText('Page 3 of 3')).toBeTruthy());
    const card = document.querySelector<HTMLElement>('[data-highlighted="true"]')!;
    expect(card.getAttribute('data-command-id')).toBe('28');
    expect(card.getAttribute('tabindex')).toBe('-1');
    expect(within(card).getByText('Linked command')).toBeTruthy();
    expect(screen.getByTestId('filters-cleared').textContent).toBe('The filters were cleared to show cmd28.');
    await waitFor(() => expect(location.search).toBe('?command=cmd28'));
    await waitFor(() => expect(document.activeElement).toBe(card));
    expect(screen.getAllByTestId('command-card').filter((c) => c.dataset.highlighted)).toHaveLength(1);

    // Paging on lets the link go.
    fireEvent.click(screen.getByRole('button', { name: 'Previous page' }));
    await waitFor(() => expect(location.search).toBe('?page=2&per=12'));
    expect(document.querySelector('[data-highlighted]')).toBeNull();
  });

  it('says so, politely, when a link names no command', async () => {
    history.replaceState(null, '', '/commands?command=nope');
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(30), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(12));
    expect(screen.getByTestId('command-not-found').textContent).toContain('no command is named “nope”');
    expect(document.querySelector('[data-highlighted]')).toBeNull();
  });

  it('has one clear button in the search box, the permission legend by its filter, and a Share button per command', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText } as unknown as Clipboard);
    stubFetch({ '/api/site': site, '/api/commands': makeCommands(2), '/api/commands/popular': [] });
    renderWithClient(<Commands />);
    await waitFor(() => expect(screen.getAllByTestId('command-card')).toHaveLength(2));

    const search = screen.getByRole('searchbox', { name: 'Search commands' }) as HTMLInputElement;
    expect(search.type).toBe('text'); // a type="search" field would add the browser's own clear button
    expect(screen.queryByRole('button', { name: 'Clear search' })).toBeNull();
    fireEvent.input(search, { target: { value: 'cmd2' } });
    await waitFor(() => expect(screen.getAllByRole('button', { name: 'Clear search' })).toHaveLength(1));
    fireEvent.click(screen.getByRole('button', { name: 'Clear search' }));
    await waitFor(() => expect(search.value).toBe(''));

    const legend = await screen.findByTestId('permission-legend');
    expect(screen.getByTestId('permission-filter').getAttribute('aria-describedby')).toBe(legend.id);
    expect(legend.textContent).toBe('OAOnly AdminsOROnly AdministratorUPUsable by Perm AdminNENot Everyone Has It');

    const share = within(screen.getAllByTestId('command-card')[1]).getByRole('button', { name: 'Share cmd2' });
    fireEvent.click(share);
    await waitFor(() => expect(getToastState().toasts[0]?.title).toBe('Link copied'));
    expect(writeText).toHaveBeenCalledWith(`${location.origin}/commands?command=cmd2`);
  });
});
