import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import BadgeMonitor from './BadgeMonitor';
import { renderWithClient } from '../test/helpers';
import { mockApi } from '../components/admin/test-utils';
import { monitorResponse, monitoredBadge } from '../test/roblox';

describe('/badge-monitor', () => {
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("shows 'Loading badge data...', then the summary, the cards with abbreviated counts and 'Last updated'", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    mockApi({ '/api/badge-monitor': async () => (await gate, { status: 200, body: monitorResponse() }) });
    renderWithClient(<BadgeMonitor />);
    expect(screen.getByText('Loading badge data...')).toBeTruthy();
    release();
    expect((await screen.findByTestId('total-tracked')).textContent).toBe('2');
    expect(screen.getByTestId('total-awarded').textContent).toBe('1.2M');
    expect(screen.getByTestId('most-popular').textContent).toBe('Welcome');
    expect(screen.getByTestId('rarest').textContent).toBe('Elected');
    expect(screen.getByTestId('last-updated').textContent).toMatch(/^Last updated: /);
    const cards = screen.getAllByTestId('badge-card');
    expect(cards).toHaveLength(2);
    const first = cards[0];
    expect(first.textContent).toContain('ID: 101');
    expect(first.textContent).toContain('easy');
    expect(first.querySelector('[data-testid="figure-Total awarded"]')!.textContent).toBe('1.2M');
    expect(first.querySelector('[data-testid="figure-Today"]')!.textContent).toBe('1.5K');
    expect(first.querySelector('[data-testid="figure-Weekly avg"]')!.textContent).toBe('1.3K');
    expect(cards[1].querySelector('[data-testid="figure-Total awarded"]')!.textContent).toBe('999');
    // the 7-day chart: 7 bars, described in words
    const svg = first.querySelector('svg[role="img"]')!;
    expect(svg.querySelectorAll('rect')).toHaveLength(7);
    expect(svg.getAttribute('aria-label')).toContain('Nov 19, 2026: not measured');
    expect(screen.queryByTestId('stale-notice')).toBeNull();
  });

  it('a longer range asks for its history once, draws it with the best day and since when, and offers it as CSV', async () => {
    const days = Array.from({ length: 20 }, (_, i) => ({
      date: new Date(Date.UTC(2026, 10, 8 + i)).toISOString().slice(0, 10),
      awardedCount: 1000 + i,
      pastDay: i === 4 ? 900 : 10 + i,
    }));
    const api = mockApi({
      '/api/badge-monitor': monitorResponse(),
      '/api/badge-monitor/history?days=30': {
        success: true,
        days: 30,
        from: '2026-10-29',
        to: '2026-11-27',
        badges: [{ badgeId: 101, name: 'Welcome', since: '2026-03-01', bestDay: days[4], days }],
      },
      '/api/badge-monitor/history?days=90': { status: 500, body: { error: 'Database is busy' } },
    });
    renderWithClient(<BadgeMonitor />);
    await screen.findAllByTestId('badge-card');
    const download = screen.getByTestId('download-history') as HTMLAnchorElement;
    expect(download.getAttribute('href')).toBe('/api/badge-monitor/history?days=7&format=csv');
    expect(api.calls.some((c) => c.path.startsWith('/api/badge-monitor/history'))).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: '30 days' }));
    expect(screen.getByRole('button', { name: '30 days' }).getAttribute('aria-pressed')).toBe('true');
    expect(download.getAttribute('href')).toBe('/api/badge-monitor/history?days=30&format=csv');
    const [first, second] = screen.getAllByTestId('badge-card');
    await waitFor(() => expect(first.querySelector('[data-testid="history-chart"]')?.getAttribute('data-days')).toBe('30'));
    expect(first.querySelectorAll('svg rect')).toHaveLength(20);
    expect(first.querySelector('[data-testid="best-day"]')!.textContent).toBe('Best day: Nov 12, 2026, 900 awarded');
    expect(first.querySelector('[data-testid="recorded-since"]')!.textContent).toBe('Recorded since Mar 1, 2026');
    expect(second.querySelector('[data-testid="history-unavailable"]')!.textContent).toBe('No history recorded for this badge yet.');
    expect(api.callsTo('GET', '/api/badge-monitor/history?days=30')).toHaveLength(1);

    fireEvent.click(screen.getByRole('button', { name: '90 days' }));
    await waitFor(() => expect(first.querySelector('[data-testid="history-unavailable"]')!.textContent).toContain('The 90-day history could not be loaded (Database is busy'));
  });

  it('with one recorded day says since when it records and shows the weekly average as not yet known', async () => {
    const badge = monitoredBadge({ dailyStats: { today: 40, weekAverage: 40 }, history: [{ date: '2026-11-27', awardedCount: 500, pastDay: 40 }] });
    mockApi({ '/api/badge-monitor': monitorResponse({ badges: [badge], totalTracked: 1 }) });
    renderWithClient(<BadgeMonitor />);
    const card = await screen.findByTestId('badge-card');
    expect(card.querySelector('svg[role="img"]')).toBeNull();
    expect(card.querySelector('[data-testid="history-since"]')!.textContent).toContain('Recording since Nov 27, 2026: 40 awarded');
    const week = card.querySelector('[data-testid="figure-Weekly avg"]')!;
    expect(week.textContent).toMatch(/^Not yet/);
    expect(week.textContent).not.toContain('40');
    expect(card.querySelector('[data-testid="figure-Today"]')!.textContent).toBe('40');
  });

  it('with three recorded days draws three bars from the first, captioned since then', async () => {
    const history = ['2026-11-25', '2026-11-26', '2026-11-27'].map((date, i) => ({ date, awardedCount: 500 + i, pastDay: 10 + i }));
    mockApi({ '/api/badge-monitor': monitorResponse({ badges: [monitoredBadge({ history })], totalTracked: 1 }) });
    renderWithClient(<BadgeMonitor />);
    const card = await screen.findByTestId('badge-card');
    expect(card.querySelectorAll('svg[role="img"] rect')).toHaveLength(3);
    expect(card.querySelector('figcaption')!.textContent).toContain('Since Nov 25, 2026');
    expect(card.querySelector('[data-testid="figure-Weekly avg"]')!.textContent).toBe('1.3K');
  });

  it("shows each of the six rarity levels in its colour, with Roblox's own word in the title", async () => {
    const levels = [
      ['impossible', 'Impossible', 'text-red-300'],
      ['insane', 'Insane', 'text-red-300'],
      ['extremely hard', 'Extreme', 'text-amber-300'],
      ['hard', 'Hard', 'text-amber-300'],
      ['medium', 'Moderate', 'text-violet-300'],
      ['easy', 'Cakewalk', 'text-emerald-300'],
    ] as const;
    const badges = levels.map(([rarity, difficulty], i) => monitoredBadge({ badgeId: 300 + i, name: `B${i}`, rarity, difficulty }));
    mockApi({ '/api/badge-monitor': monitorResponse({ badges, totalTracked: badges.length }) });
    renderWithClient(<BadgeMonitor />);
    await screen.findAllByTestId('badge-card');
    const pills = screen.getAllByTestId('rarity');
    expect(pills.map((p) => p.textContent)).toEqual(levels.map(([rarity]) => rarity));
    pills.forEach((pill, i) => {
      expect(pill.className).toContain(levels[i][2]);
      expect(pill.getAttribute('title')).toBe(`Roblox: ${levels[i][1]}`);
    });
  });

  it('searches name and description', async () => {
    mockApi({ '/api/badge-monitor': monitorResponse() });
    renderWithClient(<BadgeMonitor />);
    await screen.findAllByTestId('badge-card');
    const search = screen.getByLabelText('Search badges');
    fireEvent.input(search, { target: { value: 'ELECTION' } });
    expect(screen.getAllByTestId('badge-card').map((c) => c.getAttribute('data-badge-id'))).toEqual(['202']);
    fireEvent.input(search, { target: { value: 'first time' } });
    expect(screen.getAllByTestId('badge-card').map((c) => c.getAttribute('data-badge-id'))).toEqual(['101']);
    fireEvent.input(search, { target: { value: 'nothing like this' } });
    expect(screen.queryAllByTestId('badge-card')).toHaveLength(0);
    expect(screen.getByTestId('no-match').textContent).toContain('No badges found');
  });

  it('marks stale figures with their time', async () => {
    mockApi({ '/api/badge-monitor': monitorResponse({ stale: true, error: 'Roblox timed out' }) });
    renderWithClient(<BadgeMonitor />);
    const notice = await screen.findByTestId('stale-notice');
    expect(notice.textContent).toContain('Roblox cannot be reached right now (Roblox timed out)');
    expect(notice.textContent).toContain('These are the last figures measured, at');
    expect(screen.getByTestId('last-updated').textContent).toContain('Stale');
    expect(screen.getAllByTestId('badge-stale')[0].textContent).toMatch(/^Figures as of /);
  });

  it('Refresh fetches again; Auto Refresh is ON by default and polls every 30 s until switched OFF', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let n = 0;
    const api = mockApi({
      '/api/badge-monitor': () => {
        n++;
        return { status: 200, body: monitorResponse({ badges: [monitoredBadge({ awardedCount: n * 1000 })], totalTracked: 1 }) };
      },
    });
    renderWithClient(<BadgeMonitor />);
    await screen.findByTestId('badge-card');
    expect(screen.getByTestId('auto-refresh-state').textContent).toBe('ON');
    const toggle = screen.getByRole('switch', { name: /Auto Refresh/ });
    expect(toggle.getAttribute('aria-checked')).toBe('true');

    fireEvent.click(screen.getByTestId('refresh'));
    await waitFor(() => expect(api.callsTo('GET', '/api/badge-monitor')).toHaveLength(2));
    await waitFor(() => expect(screen.getByTestId('figure-Total awarded').textContent).toBe('2K'));

    await act(async () => {
      await vi.advanceTimersByTimeAsync(30_500);
    });
    await waitFor(() => expect(api.callsTo('GET', '/api/badge-monitor')).toHaveLength(3));

    fireEvent.click(toggle);
    expect(screen.getByTestId('auto-refresh-state').textContent).toBe('OFF');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(65_000);
    });
    expect(api.callsTo('GET', '/api/badge-monitor')).toHaveLength(3);
  });

  it("says so when the monitor answers an error before any figures", async () => {
    mockApi({ '/api/badge-monitor': { status: 503, body: { error: 'Roblox is unreachable and no figures are stored yet' } } });
    renderWithClient(<BadgeMonitor />);
    const panel = await screen.findByTestId('monitor-error');
    expect(panel.textContent).toContain('Roblox is unreachable and no figures are stored yet');
  });
});
