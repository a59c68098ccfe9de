import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import DiscordBotApi from './DiscordBotApi';
import { renderWithClient } from '../test/helpers';
import { mockApi } from '../components/admin/test-utils';
import { botAnalysis, botQuickCheck } from '../test/roblox';

function type(name: string) {
  fireEvent.input(screen.getByLabelText('Roblox username'), { target: { value: name } });
}

describe('/discord-bot-api', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists the three endpoints', () => {
    mockApi({});
    renderWithClient(<DiscordBotApi />);
    const items = screen.getByTestId('bot-endpoints').querySelectorAll('li');
    expect(Array.from(items).map((li) => li.querySelector('code')!.textContent)).toEqual([
      'GET/api/discord-bot/analyze/{username}',
      'GET/api/discord-bot/check/{username}',
      'GET/api/discord-bot/test',
    ]);
  });

  it('Enter analyzes; the analysis shows the first 5 ELC badges and a count of the rest', async () => {
    const api = mockApi({ '/api/discord-bot/analyze/OldBuilder': botAnalysis(7) });
    renderWithClient(<DiscordBotApi />);
    type(' OldBuilder ');
    fireEvent.submit(screen.getByLabelText('Roblox username').closest('form')!);
    const result = await screen.findByTestId('analysis-result');
    expect(api.callsTo('GET', '/api/discord-bot/analyze/OldBuilder')).toHaveLength(1);
    expect(screen.getAllByTestId('elc-badge').map((b) => b.textContent!.split('Awarded')[0])).toEqual(['ELC 1', 'ELC 2', 'ELC 3', 'ELC 4', 'ELC 5']);
    expect(screen.getByTestId('elc-more').textContent).toBe('and 2 more');
    expect(screen.getByTestId('elc-count').textContent).toBe('(7 of 9)');
    expect(screen.getByTestId('confidence').textContent).toBe('95%');
    expect(screen.getByTestId('generation').textContent).toBe('OG');
    expect(screen.getByTestId('generation').getAttribute('data-generation')).toBe('VETERAN');
    expect(screen.getByTestId('reason').textContent).toContain('Joined in 2009');
    expect(result.textContent).toContain('I build things');
  });

  it('no rest count at 5 or fewer; empty input is ignored', async () => {
    const api = mockApi({ '/api/discord-bot/analyze/A': botAnalysis(5) });
    renderWithClient(<DiscordBotApi />);
    type('   ');
    fireEvent.click(screen.getByTestId('bot-analyze'));
    fireEvent.click(screen.getByTestId('bot-check'));
    expect(api.calls.filter((c) => c.path.startsWith('/api/discord-bot'))).toHaveLength(0);
    type('A');
    fireEvent.click(screen.getByTestId('bot-analyze'));
    await screen.findByTestId('analysis-result');
    expect(screen.getAllByTestId('elc-badge')).toHaveLength(5);
    expect(screen.queryByTestId('elc-more')).toBeNull();
  });

  it('showing one result clears the other', async () => {
    mockApi({ '/api/discord-bot/analyze/OldBuilder': botAnalysis(2), '/api/discord-bot/check/OldBuilder': botQuickCheck() });
    renderWithClient(<DiscordBotApi />);
    type('OldBuilder');
    fireEvent.click(screen.getByTestId('bot-analyze'));
    await screen.findByTestId('analysis-result');
    fireEvent.click(screen.getByTestId('bot-check'));
    const check = await screen.findByTestId('check-result');
    expect(screen.queryByTestId('analysis-result')).toBeNull();
    expect(screen.getByTestId('status').textContent).toBe('Veteran(95% confidence)');
    expect(screen.getByTestId('elc-count').textContent).toBe('7');
    expect(screen.getByTestId('total-badges').textContent).toBe('120');
    expect(screen.getByTestId('earliest-badge').textContent).toBe('Early Builder (Jan 2, 2010)');
    expect(check.textContent).toContain('6,415 days');
    fireEvent.click(screen.getByTestId('bot-analyze'));
    await screen.findByTestId('analysis-result');
    expect(screen.queryByTestId('check-result')).toBeNull();
  });

  it("shows the server's {error, message}, and 'Network error' / 'Failed to connect to API' when the network fails", async () => {
    mockApi({ '/api/discord-bot/check/Ghost': { status: 404, body: { error: 'User not found', message: 'No Roblox user is named Ghost' } } });
    renderWithClient(<DiscordBotApi />);
    type('Ghost');
    fireEvent.click(screen.getByTestId('bot-check'));
    await waitFor(() => expect(screen.getByTestId('bot-error-title').textContent).toBe('User not found'));
    expect(screen.getByTestId('bot-error-message').textContent).toBe('No Roblox user is named Ghost');

    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    fireEvent.click(screen.getByTestId('bot-analyze'));
    await waitFor(() => expect(screen.getByTestId('bot-error-title').textContent).toBe('Network error'));
    expect(screen.getByTestId('bot-error-message').textContent).toBe('Failed to connect to API');
  });
});
