import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import ApiDocs from './ApiDocs';
import { renderWithClient, makeCommands, guides, site } from '../test/helpers';
import { lastToast, mockApi, type ApiRoutes } from '../components/admin/test-utils';
import type { ApiKey } from '../lib/apiKeys';
import { formatDateTime } from '../lib/format';

const PUBLIC_KEY = 'fhk_publicpublicpublicpublicpublicpublic0';
const NEW_KEY = 'fhk_aaaaaaaa11111111222222223333333344444444';
const OTHER_KEY = 'fhk_bbbbbbbb11111111222222223333333344444444';

function apiKey(over: Partial<ApiKey> = {}): ApiKey {
  return {
    name: 'my bot',
    key: NEW_KEY.slice(0, 12),
    created: '2026-11-20T10:00:00Z',
    requests: 42,
    lastUsed: '2026-11-21T09:30:00Z',
    createdFromIp: '203.0.113.0',
    lastUsedFromIp: '198.51.100.0',
    uniqueIps: 3,
    ...over,
  };
}

function routes(extra: ApiRoutes = {}): ApiRoutes {
  return {
    '/api/site': { ...site, publicApiKey: PUBLIC_KEY },
    '/api/keys': { success: true, keys: [] },
    '/api/commands': makeCommands(4),
    '/api/guides': guides,
    ...extra,
  };
}

const curls = () => Array.from(document.querySelectorAll<HTMLElement>('[data-curl]')).map((el) => el.textContent ?? '');
const tab = (name: string) => screen.getByRole('tab', { name });

describe('/api-docs', () => {
  beforeEach(() => window.history.replaceState(null, '', '/api-docs'));
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('Getting Started: base URL from the origin, the header, the limits, and the public key in use', async () => {
    mockApi(routes());
    renderWithClient(<ApiDocs />);
    expect(screen.getByRole('heading', { level: 1, name: 'API Documentation' })).toBeTruthy();
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual([
      'Getting Started',
      'Core APIs',
      'Group Scanning',
      'Commands & Guides',
      'Analytics',
      'Testing',
    ]);
    expect(screen.getByTestId('base-url').textContent).toBe(`${window.location.origin}/api/v1`);
    expect(screen.getByTestId('rate-limits').textContent).toContain('100 requests per minute');
    expect(screen.getByTestId('rate-limits').textContent).toContain('1,000 requests per hour');
    expect(screen.getByTestId('rate-limits').textContent).toContain('10,000 requests per day');
    const text = document.body.textContent ?? '';
    for (const h of ['X-API-Key', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', '429']) {
      expect(text).toContain(h);
    }
    await waitFor(() => expect(screen.getByTestId('current-key').textContent).toContain("the site's public key"));
    expect(curls()).toEqual([`curl -s -H "X-API-Key: ${PUBLIC_KEY}" "${window.location.origin}/api/v1/stats"`]);
    expect(await screen.findByText('No keys yet')).toBeTruthy();
  });

  it("empty name: 'Please enter a key name' and no request", async () => {
    const api = mockApi(routes());
    renderWithClient(<ApiDocs />);
    fireEvent.input(screen.getByLabelText('Key name'), { target: { value: '   ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }));
    expect(lastToast()).toMatchObject({ title: 'Error', description: 'Please enter a key name', variant: 'destructive' });
    expect(screen.getByLabelText('Key name').getAttribute('aria-invalid')).toBe('true');
    expect(api.callsTo('POST', '/api/generate-key')).toHaveLength(0);
  });

  it('generates a key: toast, shown once with Copy, used by the examples, cleared by the next generation', async () => {
    let keys: ApiKey[] = [];
    let release: (() => void) | null = null;
    const api = mockApi(
      routes({
        '/api/keys': () => ({ status: 200, body: { success: true, keys } }),
        'POST /api/generate-key': async (body: { name: string }) => {
          if (body.name === 'second') await new Promise<void>((r) => (release = r));
          const full = body.name === 'second' ? OTHER_KEY : NEW_KEY;
          keys = [apiKey({ name: body.name, key: full.slice(0, 12), requests: 0, lastUsed: null, lastUsedFromIp: null, uniqueIps: 0 }), ...keys];
          return { status: 201, body: { success: true, apiKey: apiKey({ name: body.name, key: full }) } };
        },
      }),
    );
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText } as unknown as Clipboard);
    renderWithClient(<ApiDocs />);

    fireEvent.input(screen.getByLabelText('Key name'), { target: { value: '  my bot ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }));
    expect((await screen.findByTestId('created-key')).textContent).toBe(NEW_KEY);
    expect(api.callsTo('POST', '/api/generate-key')[0].body).toEqual({ name: 'my bot' });
    expect(lastToast()).toMatchObject({ title: 'API key generated successfully' });
    expect(screen.getByTestId('current-key').textContent).toContain('your new key “my bot”');
    expect(screen.getByTestId('current-key').textContent).toContain(NEW_KEY.slice(0, 12));
    expect(curls()[0]).toBe(`curl -s -H "X-API-Key: ${NEW_KEY}" "${window.location.origin}/api/v1/stats"`);
    // the list shows the new key by its prefix, never in full
    const list = await screen.findByTestId('key-list');
    expect(list.textContent).toContain(NEW_KEY.slice(0, 12));
    expect(list.textContent).not.toContain(NEW_KEY);
    expect(list.textContent).toContain('Never');

    fireEvent.click(screen.getByRole('button', { name: 'Copy Key' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Copied!' })).toBeTruthy());
    expect(writeText).toHaveBeenCalledWith(NEW_KEY);
    expect(lastToast()).toMatchObject({ title: 'Copied to clipboard' });

    // the next generation clears the shown key at once, then shows only the new one
    fireEvent.input(screen.getByLabelText('Key name'), { target: { value: 'second' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }));
    await waitFor(() => expect(screen.queryByTestId('created-key')).toBeNull());
    expect(document.body.textContent).not.toContain(NEW_KEY);
    await waitFor(() => expect(release).not.toBeNull());
    await act(async () => release!());
    expect((await screen.findByTestId('created-key')).textContent).toBe(OTHER_KEY);
    expect(document.body.textContent).not.toContain(NEW_KEY);
  });

  it("a refused generation: 'Error' toast with the server's sentence, else 'Failed to generate API key'", async () => {
    let reply = { status: 429, body: { error: 'Too many new keys from your address: try again in an hour' } as unknown };
    mockApi(routes({ 'POST /api/generate-key': () => reply }));
    renderWithClient(<ApiDocs />);
    fireEvent.input(screen.getByLabelText('Key name'), { target: { value: 'bot' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }));
    await waitFor(() =>
      expect(lastToast()).toMatchObject({ title: 'Error', description: 'Too many new keys from your address: try again in an hour' }),
    );
    expect(screen.queryByTestId('created-key')).toBeNull();

    reply = { status: 500, body: undefined };
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Error', description: 'Failed to generate API key' }));
  });

  it('lists the keys with their usage; Revoke asks first, then DELETEs the prefix', async () => {
    let keys = [apiKey(), apiKey({ name: 'unused', key: OTHER_KEY.slice(0, 12), requests: 0, lastUsed: null, lastUsedFromIp: null, uniqueIps: 0 })];
    const api = mockApi(
      routes({
        '/api/keys': () => ({ status: 200, body: { success: true, keys } }),
        [`DELETE /api/keys/${NEW_KEY.slice(0, 12)}`]: () => {
          keys = keys.filter((k) => k.key !== NEW_KEY.slice(0, 12));
          return { status: 200, body: { success: true } };
        },
      }),
    );
    renderWithClient(<ApiDocs />);
    const list = await screen.findByTestId('key-list');
    const cards = within(list).getAllByRole('listitem');
    expect(cards).toHaveLength(2);
    const first = within(cards[0]);
    expect(first.getByText('my bot')).toBeTruthy();
    expect(first.getByText(`${NEW_KEY.slice(0, 12)}…`)).toBeTruthy();
    expect(first.getByTestId('key-requests').textContent).toBe('42');
    expect(cards[0].textContent).toContain('198.51.100.0');
    expect(cards[0].textContent).toContain(formatDateTime('2026-11-21T09:30:00Z'));
    expect(cards[0].textContent).toContain('Unique IPs3');
    expect(cards[1].textContent).toContain('Last usedNever');

    fireEvent.click(first.getByRole('button', { name: /^Revoke my bot/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke this API key?' });
    expect(api.callsTo('DELETE', `/api/keys/${NEW_KEY.slice(0, 12)}`)).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(within(screen.getByTestId('key-list')).getAllByRole('listitem')).toHaveLength(1));
    expect(api.callsTo('DELETE', `/api/keys/${NEW_KEY.slice(0, 12)}`)).toHaveLength(1);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(lastToast()).toMatchObject({ title: 'API key revoked' });
  });

  it('revoking the key generated here switches the examples back to the public key', async () => {
    let keys: ApiKey[] = [];
    mockApi(
      routes({
        '/api/keys': () => ({ status: 200, body: { success: true, keys } }),
        'POST /api/generate-key': () => {
          keys = [apiKey()];
          return { status: 201, body: { success: true, apiKey: apiKey({ key: NEW_KEY }) } };
        },
        [`DELETE /api/keys/${NEW_KEY.slice(0, 12)}`]: () => {
          keys = [];
          return { status: 200, body: { success: true } };
        },
      }),
    );
    renderWithClient(<ApiDocs />);
    fireEvent.input(screen.getByLabelText('Key name'), { target: { value: 'my bot' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }));
    await screen.findByTestId('created-key');
    await waitFor(() => expect(within(screen.getByTestId('key-list')).getAllByRole('listitem')).toHaveLength(1));
    fireEvent.click(screen.getByRole('button', { name: /^Revoke my bot/ }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(screen.getByTestId('current-key').textContent).toContain("the site's public key"));
    expect(screen.queryByTestId('created-key')).toBeNull();
    expect(curls()[0]).toContain(PUBLIC_KEY);
  });

  it('Core APIs, Commands & Guides and Analytics print runnable curls with the current key; health has none', async () => {
    mockApi(routes());
    renderWithClient(<ApiDocs />);
    await waitFor(() => expect(screen.getByTestId('current-key').textContent).toContain('public key'));
    const origin = window.location.origin;

    fireEvent.click(tab('Core APIs'));
    const core = curls();
    expect(core).toContain(`curl -s "${origin}/api/v1/health"`);
    for (const p of ['database', 'stats', 'events?since=0&limit=20', 'discord-updates', 'badge-history?days=30', 'wiki?q=fly']) {
      expect(core).toContain(`curl -s -H "X-API-Key: ${PUBLIC_KEY}" "${origin}/api/v1/${p}"`);
    }
    expect(core).toHaveLength(7);

    fireEvent.click(tab('Commands & Guides'));
    // the category examples use the first category of the real data (makeCommands: cmd1 is Fun / OA; guides: Beginner)
    await waitFor(() => expect(document.querySelector('[data-curl="guides-category"]')).toBeTruthy());
    const cg = curls();
    for (const p of [
      'commands?page=1&limit=5',
      'commands?page=1&limit=10&category=Fun&permission=OA',
      'commands/category/Fun',
      'commands/search?q=fly',
      'commands/popular',
      'guides?page=1&limit=5',
      'guides/category/Beginner',
      'guides/search?q=build',
      'commands-stats',
    ]) {
      expect(cg).toContain(`curl -s -H "X-API-Key: ${PUBLIC_KEY}" "${origin}/api/v1/${p}"`);
    }

    fireEvent.click(tab('Analytics'));
    expect(curls()).toEqual(
      ['analytics?days=7', 'commands-stats', 'events?since=0&limit=20'].map((p) => `curl -s -H "X-API-Key: ${PUBLIC_KEY}" "${origin}/api/v1/${p}"`),
    );
  });

  it('a curl copy button copies the command with the toast and a check mark', async () => {
    mockApi(routes());
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText } as unknown as Clipboard);
    renderWithClient(<ApiDocs />);
    await waitFor(() => expect(screen.getByTestId('current-key').textContent).toContain('public key'));
    fireEvent.click(tab('Core APIs'));
    fireEvent.click(screen.getByRole('button', { name: 'Copy curl command: Health' }));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Copied to clipboard' }));
    expect(writeText).toHaveBeenCalledWith(`curl -s "${window.location.origin}/api/v1/health"`);
    expect(screen.getByRole('button', { name: 'Copied: Health' })).toBeTruthy();
  });

  it('Group Scanning: validates the form, starts a scan with the current key and shows its progress', async () => {
    const scan = {
      id: 3, groupId: 7001, groupName: 'Fake Group', state: 'completed', total: 25, processed: 25, veterans: 9, newgens: 6,
      failed: 0, percent: 100, ratePerMinute: 30, maxRatePerMinute: 30, etaSeconds: null, notice: 'No cookie.', error: null,
    };
    const api = mockApi(routes({
      'POST /api/v1/scan-group': { status: 202, body: { success: true, scanId: 3 } },
      '/api/v1/scan-status/3': { success: true, scan },
    }));
    renderWithClient(<ApiDocs />);
    fireEvent.click(tab('Group Scanning'));
    await waitFor(() => expect(curls().some((c) => c.includes('/api/v1/all-scans') && c.includes(PUBLIC_KEY))).toBe(true));
    fireEvent.input(screen.getByLabelText('Group id'), { target: { value: 'abc' } });
    fireEvent.click(screen.getByRole('button', { name: 'Start scan' }));
    expect(screen.getByRole('alert').textContent).toBe('Enter a Roblox group id (a whole number)');
    fireEvent.input(screen.getByLabelText('Group id'), { target: { value: '7001' } });
    fireEvent.input(screen.getByLabelText('Scanned by'), { target: { value: 'Alice' } });
    fireEvent.click(screen.getByRole('button', { name: 'Start scan' }));
    await waitFor(() => expect(screen.getByTestId('scan-state').textContent).toBe('completed'));
    const [call] = api.callsTo('POST', '/api/v1/scan-group');
    expect(call.body).toEqual({ groupId: 7001, scannedBy: 'Alice' });
    const sent = (api.fn.mock.calls as unknown as [string, RequestInit][]).find(([p]) => p === '/api/v1/scan-group')!;
    expect((sent[1].headers as Record<string, string>)['X-API-Key']).toBe(PUBLIC_KEY);
    expect(screen.getByRole('progressbar', { name: 'Scan progress' }).getAttribute('aria-valuenow')).toBe('100');
    expect(screen.getByTestId('scan-figures').textContent).toContain('25 of 25 members (100%)');
    expect(screen.getByTestId('scan-figures').textContent).toContain('9 veterans');
  });

  it('Group Scanning: the server\'s error is shown', async () => {
    mockApi(routes({ 'POST /api/v1/scan-group': { status: 404, body: { error: 'Group not found' } } }));
    renderWithClient(<ApiDocs />);
    fireEvent.click(tab('Group Scanning'));
    await waitFor(() => expect(curls().some((c) => c.includes(PUBLIC_KEY))).toBe(true));
    fireEvent.input(screen.getByLabelText('Group id'), { target: { value: '1404' } });
    fireEvent.input(screen.getByLabelText('Scanned by'), { target: { value: 'Alice' } });
    fireEvent.click(screen.getByRole('button', { name: 'Start scan' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Group not found'));
  });

  it('tabs follow the ARIA tabs pattern: arrow keys, Home/End, the #hash', async () => {
    mockApi(routes());
    renderWithClient(<ApiDocs />);
    const first = tab('Getting Started');
    expect(first.getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe(first.id);
    fireEvent.keyDown(first, { key: 'ArrowRight' });
    expect(tab('Core APIs').getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(tab('Core APIs'));
    expect(window.location.hash).toBe('#core');
    fireEvent.keyDown(tab('Core APIs'), { key: 'End' });
    expect(tab('Testing').getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(tab('Testing'), { key: 'ArrowRight' });
    expect(tab('Getting Started').getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(tab('Getting Started'), { key: 'ArrowLeft' });
    expect(tab('Testing').getAttribute('aria-selected')).toBe('true');
    cleanup();
    window.history.replaceState(null, '', '/api-docs#analytics');
    renderWithClient(<ApiDocs />);
    expect(tab('Analytics').getAttribute('aria-selected')).toBe('true');
  });

  describe('Testing: database status', () => {
    const info = { schemaVersion: 7, latestSchemaVersion: 7, sizeBytes: 3 * 1024 * 1024, journalMode: 'wal' };

    it('prefilled with the current key; shows schema version, size, journal mode', async () => {
      const api = mockApi(routes({ '/api/database': { success: true, database: info } }));
      renderWithClient(<ApiDocs />);
      fireEvent.click(tab('Testing'));
      const input = screen.getByLabelText('API key') as HTMLInputElement;
      await waitFor(() => expect(input.value).toBe(PUBLIC_KEY));
      fireEvent.click(screen.getByRole('button', { name: 'Check database' }));
      expect((await screen.findByTestId('db-schema')).textContent).toBe('7');
      expect(screen.getByTestId('db-size').textContent).toBe('3.0 MB');
      expect(screen.getByTestId('db-journal').textContent).toBe('wal');
      expect(screen.getByTestId('db-status').textContent).toBe('Up to date');
      expect(document.querySelectorAll('[data-table]')).toHaveLength(0);
      const call = (api.fn.mock.calls as unknown as [string, RequestInit][]).find(([p]) => p === '/api/database')!;
      expect((call[1].headers as Record<string, string>)['X-API-Key']).toBe(PUBLIC_KEY);
    });

    it("'Please enter an API key' without a key; the server's error or 'Failed to load database info'", async () => {
      let reply: { status: number; body?: unknown } = { status: 401, body: { error: 'Invalid API key' } };
      const api = mockApi(routes({ '/api/database': () => reply }));
      renderWithClient(<ApiDocs />);
      fireEvent.click(tab('Testing'));
      const input = screen.getByLabelText('API key') as HTMLInputElement;
      fireEvent.input(input, { target: { value: '  ' } });
      fireEvent.click(screen.getByRole('button', { name: 'Check database' }));
      expect((await screen.findByRole('alert')).textContent).toBe('Please enter an API key');
      expect(api.callsTo('GET', '/api/database')).toHaveLength(0);

      fireEvent.input(input, { target: { value: 'fhk_nope' } });
      fireEvent.click(screen.getByRole('button', { name: 'Check database' }));
      await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Invalid API key'));

      reply = { status: 500 };
      fireEvent.click(screen.getByRole('button', { name: 'Check database' }));
      await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Failed to load database info'));
      expect(screen.queryByTestId('db-info')).toBeNull();
    });
  });

  it('without a public key and before a generation the examples say so and show a placeholder', async () => {
    mockApi(routes({ '/api/site': { ...site, publicApiKey: null } }));
    renderWithClient(<ApiDocs />);
    await waitFor(() => expect(screen.getByTestId('current-key').textContent).toContain('This server has no public key'));
    expect(curls()[0]).toContain('X-API-Key: YOUR_API_KEY');
  });
});
