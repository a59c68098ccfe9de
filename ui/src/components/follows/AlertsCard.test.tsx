import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import { AlertsCard } from './AlertsCard';
import { renderWithClient } from '../../test/helpers';
import { lastToast, mockApi } from '../admin/test-utils';
import type { AlertSettings, AlertWebhook } from '../../lib/follows';

const KINDS = ['elc_badge', 'classification', 'name'];
const URL_OK = 'https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyzABCDEF_-12';

function settings(webhook: Partial<AlertWebhook> | null): AlertSettings {
  return {
    kinds: KINDS,
    webhook: webhook && {
      url: 'https://discord.com/api/webhooks/123456789012345678/…',
      kinds: KINDS,
      broken: false,
      brokenSince: null,
      lastDeliveredAt: null,
      pending: 0,
      ...webhook,
    },
  };
}

/** The message linked to `input` by aria-describedby, with the input marked invalid. */
function messageOf(input: HTMLElement): string {
  expect(input.getAttribute('aria-invalid')).toBe('true');
  const ids = (input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
}

function typeUrl(value: string) {
  fireEvent.input(screen.getByLabelText('Webhook URL'), { target: { value } });
}

const save = () => fireEvent.click(screen.getByRole('button', { name: 'Save and send a test message' }));

describe('the account page: Discord alerts', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('without a webhook: the how-to, the three kinds checked, the test-message note; the URL and kinds are sent', async () => {
    let saved: AlertSettings = settings(null);
    const api = mockApi({
      '/api/account/alerts': () => saved,
      'PUT /api/account/alerts': (body: { kinds: string[] }) => {
        saved = settings({ kinds: body.kinds, lastDeliveredAt: '2026-11-20T12:00:00Z' });
        return saved;
      },
    });
    renderWithClient(<AlertsCard />);
    const form = await screen.findByTestId('webhook-form');
    expect(screen.getByTestId('webhook-how-to').textContent).toContain('Edit Channel');
    expect(screen.getByTestId('webhook-how-to').textContent).toContain('Integrations, then Webhooks');
    expect(screen.getByTestId('webhook-how-to').textContent).toContain('Copy Webhook URL');
    expect(form.textContent).toContain('Saving sends a test message to that channel');
    const boxes = within(screen.getByTestId('alert-kinds')).getAllByRole('checkbox') as HTMLInputElement[];
    expect(boxes.map((b) => b.checked)).toEqual([true, true, true]);
    expect(screen.getByLabelText('New ELC badge')).toBeTruthy();
    expect(screen.getByLabelText('Classification change')).toBeTruthy();
    expect(screen.getByLabelText('Name change')).toBeTruthy();

    fireEvent.click(screen.getByLabelText('Classification change'));
    typeUrl(`  ${URL_OK} `);
    save();
    await screen.findByTestId('saved-webhook');
    expect(api.callsTo('PUT', '/api/account/alerts')[0].body).toEqual({ url: URL_OK, kinds: ['elc_badge', 'name'] });
    expect(lastToast().title).toBe('Discord alerts are on');
    expect(screen.getByTestId('webhook-url').textContent).toBe('https://discord.com/api/webhooks/123456789012345678/…');
    expect(screen.getByTestId('alerts-status').textContent).toBe('On');
    expect(screen.getByTestId('webhook-pending').textContent).toBe('Nothing');
    expect(screen.queryByTestId('webhook-form')).toBeNull();
  });

  it("shows the server's reasons under their fields, and a refusal without fields above the button", async () => {
    let reply: { status: number; body: unknown } = {
      status: 400,
      body: { error: 'Only Discord webhook URLs are taken.', fields: { url: 'Only Discord webhook URLs are taken: https://discord.com/api/webhooks/...' } },
    };
    mockApi({ '/api/account/alerts': settings(null), 'PUT /api/account/alerts': () => reply });
    renderWithClient(<AlertsCard />);
    await screen.findByTestId('webhook-form');
    typeUrl('https://evil.example.com/api/webhooks/1/2');
    save();
    const input = screen.getByLabelText('Webhook URL');
    await waitFor(() => expect(messageOf(input)).toBe('Only Discord webhook URLs are taken: https://discord.com/api/webhooks/...'));
    await waitFor(() => expect(document.activeElement).toBe(input));
    // Typing clears it.
    typeUrl(URL_OK);
    expect(input.getAttribute('aria-invalid')).toBeNull();

    reply = { status: 400, body: { error: 'Choose at least one change to hear about.', fields: { kinds: 'Choose at least one change to hear about.' } } };
    for (const label of ['New ELC badge', 'Classification change', 'Name change']) fireEvent.click(screen.getByLabelText(label));
    save();
    expect((await screen.findByTestId('kinds-error')).textContent).toBe('Choose at least one change to hear about.');
    expect(screen.getByTestId('alert-kinds').getAttribute('aria-describedby')).toBe(screen.getByTestId('kinds-error').id);

    reply = { status: 502, body: { error: 'Discord did not take the test message; nothing was saved.', message: 'Timed out. Try again in a minute.' } };
    save();
    expect((await screen.findByRole('alert')).textContent).toBe('Discord did not take the test message; nothing was saved. Timed out. Try again in a minute.');

    reply = { status: 429, body: { error: 'Too many requests. Please wait and try again.' } };
    save();
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Too many requests. Please wait and try again.'));
  });

  it('a saved webhook: the masked URL, the last delivery, what waits; a kind changed at once; removed', async () => {
    let current = settings({ lastDeliveredAt: '2026-11-20T12:00:00Z', pending: 2 });
    const api = mockApi({
      '/api/account/alerts': () => current,
      'PATCH /api/account/alerts': (body: { kinds: string[] }) => {
        if (body.kinds.length === 0) return { status: 400, body: { error: 'x', fields: { kinds: 'Choose at least one change to hear about.' } } };
        current = settings({ ...current.webhook, kinds: body.kinds });
        return current;
      },
      'DELETE /api/account/alerts': () => {
        current = settings(null);
        return { status: 204 };
      },
    });
    renderWithClient(<AlertsCard />);
    await screen.findByTestId('saved-webhook');
    expect(screen.getByTestId('webhook-last-delivered').textContent).toMatch(/^Nov 20, 2026, \d{1,2}:\d{2} [AP]M$/);
    expect(screen.getByTestId('webhook-pending').textContent).toBe('2 alerts');
    expect(screen.queryByTestId('webhook-form')).toBeNull();

    fireEvent.click(screen.getByLabelText('Name change'));
    await waitFor(() => expect(api.callsTo('PATCH', '/api/account/alerts')).toHaveLength(1));
    expect(api.callsTo('PATCH', '/api/account/alerts')[0].body).toEqual({ kinds: ['elc_badge', 'classification'] });
    await waitFor(() => expect((screen.getByLabelText('Name change') as HTMLInputElement).checked).toBe(false));

    // Another URL: the form asks for the URL only (the kinds stay as chosen).
    fireEvent.click(screen.getByRole('button', { name: 'Use another webhook URL' }));
    expect(screen.getByTestId('webhook-form')).toBeTruthy();
    expect(within(screen.getByTestId('webhook-form')).queryAllByRole('checkbox')).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByTestId('webhook-form')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    await screen.findByTestId('webhook-form');
    expect(api.callsTo('DELETE', '/api/account/alerts')).toHaveLength(1);
    expect(lastToast().title).toBe('Discord alerts removed');
  });

  it('a broken webhook: the warning with what to do, and the form for a new URL', async () => {
    mockApi({ '/api/account/alerts': settings({ broken: true, brokenSince: '2026-11-21T12:00:00Z', pending: 0 }) });
    renderWithClient(<AlertsCard />);
    const warning = await screen.findByTestId('webhook-broken');
    expect(warning.getAttribute('role')).toBe('alert');
    expect(warning.textContent).toMatch(/^Broken: Discord has refused this webhook since Nov 21, 2026, /);
    expect(warning.textContent).toContain('Paste a new webhook URL below and save it');
    expect(screen.getByTestId('alerts-status').textContent).toBe('Broken');
    expect(screen.getByTestId('webhook-form')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Use another webhook URL' })).toBeNull();
  });
});
