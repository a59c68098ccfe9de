import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import AdminAccess from './AdminAccess';
import GenerateKey from './GenerateKey';
import { renderWithClient } from '../test/helpers';
import { mockApi } from '../components/admin/test-utils';

describe('Admin key creation (three steps)', () => {
  beforeEach(() => window.history.replaceState(null, '', '/admin-access'));
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('goes phrase -> challenge -> key -> /admin?key=', async () => {
    const api = mockApi({
      'POST /api/admin/generate-challenge': (b) =>
        (b as { phrase: string }).phrase === 'open sesame'
          ? { status: 200, body: { success: true, challenge: 'CH-123', ip: '203.0.113.7' } }
          : { status: 403, body: { error: 'Invalid secret phrase' } },
      'POST /api/admin/create-lifetime-key': { status: 201, body: { success: true, key: 'fk_abc', ip: '203.0.113.7' } },
    });
    renderWithClient(<AdminAccess />);
    const input = screen.getByLabelText('Secret Phrase') as HTMLInputElement;
    expect(input.type).toBe('password');
    const btn = screen.getByRole('button', { name: 'Generate Challenge' }) as HTMLButtonElement;
    expect(btn.disabled).toBe(true);
    expect(document.body.textContent).toContain("set by this site's operator");
    expect(document.body.textContent).not.toMatch(/source/i);

    fireEvent.input(input, { target: { value: 'wrong' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate Challenge' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid secret phrase');

    fireEvent.input(input, { target: { value: 'open sesame' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate Challenge' }));
    expect((await screen.findByTestId('challenge')).textContent).toBe('CH-123');
    expect(document.body.textContent).toContain('203.0.113.7');

    fireEvent.click(screen.getByRole('button', { name: 'Create Lifetime Key' }));
    expect((await screen.findByTestId('created-key')).textContent).toBe('fk_abc');
    expect(api.callsTo('POST', '/api/admin/create-lifetime-key')[0].body).toEqual({ phrase: 'open sesame', challenge: 'CH-123' });
    expect(screen.getByRole('heading', { name: 'Admin Key Created' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Access Admin Panel' }));
    expect(window.location.pathname + window.location.search).toBe('/admin?key=fk_abc');
  });

  it('reports a network failure', async () => {
    mockApi({ 'POST /api/admin/generate-challenge': () => Promise.reject(new TypeError('Failed to fetch')) });
    renderWithClient(<AdminAccess />);
    fireEvent.input(screen.getByLabelText('Secret Phrase'), { target: { value: 'x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate Challenge' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to generate challenge. Try again.');
  });

  it('registers window.fanhubAdmin.verify while mounted', async () => {
    const api = mockApi({ 'POST /api/admin/verify-key': { success: true } });
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { unmount } = renderWithClient(<AdminAccess />);
    expect(typeof window.fanhubAdmin?.verify).toBe('function');
    await expect(window.fanhubAdmin!.verify('k1')).resolves.toBe(true);
    expect(api.callsTo('POST', '/api/admin/verify-key')[0].body).toEqual({ key: 'k1' });
    expect(log).toHaveBeenCalled();
    unmount();
    await waitFor(() => expect(window.fanhubAdmin).toBeUndefined());
  });
});

describe('Direct key screen', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('shows the server refusal and logs it', async () => {
    const msg = 'Direct keys are only issued on the server itself: run `fanhub admin-key` on the server';
    mockApi({ 'POST /api/admin/generate-direct-key': { status: 403, body: { error: msg } } });
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    renderWithClient(<GenerateKey />);
    fireEvent.click(screen.getByRole('button', { name: 'Generate Admin Key' }));
    expect((await screen.findByTestId('direct-key-error')).textContent).toBe(msg);
    expect(err).toHaveBeenCalled();
  });

  it('shows the key with Copy Key -> Copied! for 2 s', async () => {
    mockApi({ 'POST /api/admin/generate-direct-key': { status: 201, body: { success: true, key: 'fk_direct' } } });
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText } as unknown as Clipboard);
    renderWithClient(<GenerateKey />);
    fireEvent.click(screen.getByRole('button', { name: 'Generate Admin Key' }));
    expect((await screen.findByTestId('created-key')).textContent).toBe('fk_direct');
    vi.useFakeTimers();
    fireEvent.click(screen.getByRole('button', { name: 'Copy Key' }));
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Copied!' })).toBeTruthy());
    expect(writeText).toHaveBeenCalledWith('fk_direct');
    vi.advanceTimersByTime(2000);
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Copy Key' })).toBeTruthy());
  });
});
