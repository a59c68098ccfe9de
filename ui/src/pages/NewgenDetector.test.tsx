import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import NewgenDetector from './NewgenDetector';
import { renderWithClient, site } from '../test/helpers';
import { lastToast, mockApi, type ApiRoutes } from '../components/admin/test-utils';
import { newgenCheck } from '../test/roblox';

const KEY = 'fhk_publicpublicpublicpublicpublicpublic0';

function routes(extra: ApiRoutes = {}): ApiRoutes {
  // The badges' words from site.toml [classification] (elc_words, elc_name); the eras are left to the answer.
  const classification = { generations: [], elcName: 'ELC', elcWords: 'early-player' };
  return { '/api/site': { ...site, publicApiKey: KEY, classification }, ...extra };
}

async function typeAndSubmit(name: string) {
  const input = screen.getByLabelText('Roblox username');
  fireEvent.input(input, { target: { value: name } });
  const button = screen.getByTestId('analyze') as HTMLButtonElement;
  await waitFor(() => expect(button.disabled).toBe(false));
  fireEvent.click(button);
}

describe('/newgen-detector', () => {
  beforeEach(() => window.history.replaceState(null, '', '/newgen-detector'));
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('is disabled while empty; sends the trimmed name with the public key; shows every field of the answer', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const api = mockApi(routes({ '/api/newgen-check/OldBuilder': async () => (await gate, { status: 200, body: newgenCheck() }) }));
    renderWithClient(<NewgenDetector />);
    const button = screen.getByTestId('analyze') as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    fireEvent.input(screen.getByLabelText('Roblox username'), { target: { value: '   ' } });
    expect(button.disabled).toBe(true);

    await typeAndSubmit('  OldBuilder ');
    await waitFor(() => expect(button.textContent).toBe('Analyzing Player...'));
    expect(button.disabled).toBe(true);
    release();

    const result = await screen.findByTestId('newgen-result');
    const call = api.fn.mock.calls.find(([p]) => p === '/api/newgen-check/OldBuilder') as unknown as [string, RequestInit];
    expect((call[1].headers as Record<string, string>)['X-API-Key']).toBe(KEY);
    const text = (id: string) => screen.getByTestId(id).textContent;
    expect(text('username')).toBe('OldBuilder');
    expect(screen.getByTestId('verified').textContent).toBe('Verified');
    expect(text('display-name')).toBe('The Old Builder');
    expect(text('user-id')).toBe('1234');
    expect(text('join-date')).toMatch(/^May 1, 2009 \(\d+ years ago\)$/);
    // people see the site's name of the era; the code the API answered stays on the element
    expect(text('generation')).toBe('OG');
    expect(screen.getByTestId('generation').getAttribute('data-generation')).toBe('VETERAN');
    expect(text('account-age')).toBe('6,415 days');
    expect(text('elc-count')).toBe('2 of 3');
    expect(text('classification')).toBe('Veteran');
    expect(text('confidence')).toBe(', 95% confidence');
    // one headline and one sentence; the two facts explain themselves
    expect(text('verdict-headline')).toBe('Verdict: Veteran');
    expect(text('verdict-sentence')).toMatch(/^Veteran: this account joined Roblox on May 1, 2009 \(\d+ years ago\) and owns 2 of the 3 early-player \(ELC\) badges\.$/);
    expect(text('elc-fact-explanation')).toBe('Owning at least one makes a player a Veteran, whatever the join date.');
    expect(screen.queryByTestId('reason')).toBeNull();
    expect(screen.getAllByTestId('elc-badge').map((li) => li.textContent)).toEqual([
      'Early Builder ID: 11Awarded Jan 2, 2010',
      'First Election ID: 12Awarded Mar 4, 2010',
    ]);
    const profile = screen.getByTestId('profile-link');
    expect(profile.getAttribute('href')).toBe('https://www.roblox.com/users/1234/profile');
    expect(profile.getAttribute('target')).toBe('_blank');
    expect(profile.getAttribute('rel')).toBe('noopener noreferrer');
    expect(screen.getByRole('button', { name: 'Share OldBuilder is a Veteran' })).toBeTruthy();
    // the check is in the address, replacing the entry the page was opened with
    expect(window.location.pathname + window.location.search).toBe('/newgen-detector?username=OldBuilder');
    expect(text('key-name')).toBe('Public key');
    expect(text('key-requests')).toBe('42');
    expect(text('checked-at')).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M$/);
    expect(result.querySelector('img')!.getAttribute('alt')).toBe("OldBuilder's avatar");
    expect(screen.getByTestId('avatar-initials').textContent).toBe('OB');
    expect(lastToast().title).toBe('Analysis Complete');
    expect(button.textContent).toBe('Analyze Player');
  });

  it('hides the display name when it equals the username and the mark when not verified', async () => {
    mockApi(routes({ '/api/newgen-check/Same': newgenCheck({ username: 'Same', displayName: 'Same', hasVerifiedBadge: false }) }));
    renderWithClient(<NewgenDetector />);
    await typeAndSubmit('Same');
    await screen.findByTestId('newgen-result');
    expect(screen.queryByTestId('display-name')).toBeNull();
    expect(screen.queryByTestId('verified')).toBeNull();
  });

  it("offers Follow (a sign-in link when signed out) and lists the player's history from the site", async () => {
    const api = mockApi(
      routes({
        '/api/newgen-check/OldBuilder': newgenCheck(),
        '/api/players/1234/history': {
          userId: 1234,
          events: [
            { id: 2, userId: 1234, kind: 'username', before: 'OldName', after: 'OldBuilder', badgeId: null, awardedAt: null, baseline: false, noticedAt: '2026-11-22T12:00:00Z' },
            { id: 1, userId: 1234, kind: 'first_seen', before: null, after: 'OldName', badgeId: null, awardedAt: null, baseline: false, noticedAt: '2026-11-20T12:00:00Z' },
          ],
        },
      }),
    );
    renderWithClient(<NewgenDetector />);
    await typeAndSubmit('OldBuilder');
    const result = await screen.findByTestId('newgen-result');
    // Signing in comes back to this result.
    expect(within(result).getByRole('link', { name: 'Sign in to follow' }).getAttribute('href')).toBe('/login?next=%2Fnewgen-detector%3Fusername%3DOldBuilder');
    expect(within(result).getByRole('button', { name: 'Share OldBuilder is a Veteran' })).toBeTruthy();
    await within(result).findByRole('heading', { name: 'History' });
    expect(within(result).getAllByTestId('history-event').map((li) => li.textContent)).toEqual([
      'Renamed from OldName to OldBuilder (noticed Nov 22, 2026)',
      'First seen here on Nov 20, 2026',
    ]);
    expect(within(result).queryByTestId('history-toggle')).toBeNull();
    // Signed out, nothing is asked about follows.
    expect(api.calls.some((c) => c.path.startsWith('/api/account/'))).toBe(false);
  });

  it('states plainly that award dates are unavailable, and why, when Roblox refused them', async () => {
    const refused = newgenCheck({
      generation: 'OLDGEN',
      classification: 'Oldgen',
      confidence: 60,
      elcBadges: { count: 0, total: 3, badges: [], available: false, unavailableReason: 'Roblox now requires a signed-in cookie to read award dates.', unavailableCode: 'needsCookie' },
    });
    mockApi(routes({ '/api/newgen-check/OldBuilder': refused }));
    renderWithClient(<NewgenDetector />);
    await typeAndSubmit('OldBuilder');
    const note = await screen.findByTestId('award-dates-unavailable');
    expect(note.textContent).toContain('Award dates are unavailable: Roblox now requires a signed-in cookie to read award dates.');
    expect(note.textContent).toContain('from the join date alone, with a lower confidence');
    expect(screen.getByTestId('elc-count').textContent).toBe('Not shown by Roblox');
    expect(screen.getByTestId('confidence').textContent).toBe(', 60% confidence');
    expect(screen.getByTestId('verdict-sentence').textContent).toContain('so the join date alone decides');
    expect(screen.queryByTestId('elc-list')).toBeNull();
  });

  it("toasts 'Analysis Failed' with the server's error, or 'Failed to analyze player'", async () => {
    let reply: { status: number; body?: unknown } = { status: 404, body: { error: 'No Roblox user is named Ghost' } };
    mockApi(routes({ '/api/newgen-check/Ghost': () => reply }));
    renderWithClient(<NewgenDetector />);
    await typeAndSubmit('Ghost');
    await waitFor(() => expect(lastToast().title).toBe('Analysis Failed'));
    expect(lastToast().description).toBe('No Roblox user is named Ghost');
    expect(lastToast().variant).toBe('destructive');
    expect(screen.getByTestId('newgen-error').textContent).toBe('Analysis Failed: No Roblox user is named Ghost');
    expect(screen.queryByTestId('newgen-result')).toBeNull();

    reply = { status: 502 };
    await typeAndSubmit('Ghost');
    await waitFor(() => expect(screen.getByTestId('newgen-error').textContent).toBe('Analysis Failed: Failed to analyze player'));
    expect(lastToast().description).toBe('Failed to analyze player');
  });

  it('cannot run without a public key, and says so', async () => {
    const api = mockApi({ '/api/site': { ...site, publicApiKey: null } });
    renderWithClient(<NewgenDetector />);
    await waitFor(() => expect(screen.getByTestId('key-note').textContent).toContain('no public API key'));
    fireEvent.input(screen.getByLabelText('Roblox username'), { target: { value: 'x' } });
    expect((screen.getByTestId('analyze') as HTMLButtonElement).disabled).toBe(true);
    expect(api.calls.filter((c) => c.path.startsWith('/api/newgen-check'))).toHaveLength(0);
  });

  it('runs the check of ?username= when opened, and refuses a name Roblox would not accept without calling', async () => {
    window.history.replaceState(null, '', '/newgen-detector?username=OldBuilder');
    const api = mockApi(routes({ '/api/newgen-check/OldBuilder': newgenCheck() }));
    renderWithClient(<NewgenDetector />);
    await screen.findByTestId('newgen-result');
    expect((screen.getByLabelText('Roblox username') as HTMLInputElement).value).toBe('OldBuilder');
    expect(api.calls.filter((c) => c.path.startsWith('/api/newgen-check'))).toHaveLength(1);
    cleanup();

    window.history.replaceState(null, '', '/newgen-detector?username=bad%20name!');
    const api2 = mockApi(routes());
    renderWithClient(<NewgenDetector />);
    const problem = await screen.findByTestId('username-problem');
    expect(problem.textContent).toBe('“bad name!” is not a Roblox username. Roblox usernames use only letters, digits and one underscore.');
    expect(screen.getByLabelText('Roblox username').getAttribute('aria-invalid')).toBe('true');
    await new Promise((r) => setTimeout(r, 50));
    expect(api2.calls.filter((c) => c.path.startsWith('/api/newgen-check'))).toHaveLength(0);
  });

  it('says what is wrong with a name typed in the form, and sends nothing', async () => {
    const api = mockApi(routes());
    renderWithClient(<NewgenDetector />);
    await typeAndSubmit('a_b_c');
    expect((await screen.findByTestId('username-problem')).textContent).toContain('at most one underscore');
    expect(api.calls.filter((c) => c.path.startsWith('/api/newgen-check'))).toHaveLength(0);
    expect(window.location.search).toBe('');
  });
});
