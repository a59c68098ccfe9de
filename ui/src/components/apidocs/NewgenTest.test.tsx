import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/preact';
import { NewgenTest, newgenTestError } from './NewgenTest';
import { renderWithClient } from '../../test/helpers';
import { mockApi } from '../admin/test-utils';
import { newgenCheck } from '../../test/roblox';

const KEY = 'fhk_aaaaaaaa11111111222222223333333344444444';

describe('API docs Testing: newgen check', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('needs both username and key', () => {
    expect(newgenTestError('', KEY)).toBe('Please enter both username and API key');
    expect(newgenTestError('x', '  ')).toBe('Please enter both username and API key');
    expect(newgenTestError(' x ', KEY)).toBeNull();
  });

  it('sends the key it shows and prints the answer; reports a missing field, the server error, or the fallback', async () => {
    let reply: { status: number; body?: unknown } = { status: 200, body: newgenCheck({ apiKey: { name: 'my bot', requests: 7 } }) };
    const api = mockApi({ '/api/newgen-check/OldBuilder': () => reply });
    renderWithClient(<NewgenTest currentKey={KEY} />);
    const submit = screen.getByRole('button', { name: 'Check player' });

    fireEvent.click(submit);
    expect(screen.getByRole('alert').textContent).toBe('Please enter both username and API key');
    expect(api.calls).toHaveLength(0);

    fireEvent.input(screen.getByLabelText('Roblox username'), { target: { value: ' OldBuilder ' } });
    fireEvent.click(submit);
    const result = await screen.findByTestId('newgen-test-result');
    expect(result.textContent).toContain('OldBuilder: Veteran (OG). Key “my bot” has made 7 requests.');
    expect(result.querySelector('pre')!.textContent).toContain('"userId": 1234');
    const call = api.fn.mock.calls[0] as unknown as [string, RequestInit];
    expect((call[1].headers as Record<string, string>)['X-API-Key']).toBe(KEY);

    reply = { status: 401, body: { error: 'Invalid API key' } };
    fireEvent.input(screen.getByLabelText('Key (X-API-Key)'), { target: { value: 'fhk_nope' } });
    fireEvent.click(submit);
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Invalid API key'));
    expect(screen.queryByTestId('newgen-test-result')).toBeNull();

    reply = { status: 500 };
    fireEvent.click(submit);
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Failed to check player'));
  });
});
