import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import Advertise from './Advertise';
import { renderWithClient, site, stats } from '../test/helpers';
import { lastToast, mockApi, type ApiRoutes } from '../components/admin/test-utils';
import { dismissToast } from '../lib/toast';

function routes(extra: ApiRoutes = {}): ApiRoutes {
  return { '/api/site': site, '/api/stats': stats, ...extra };
}

const png = (name = 'ad.png') => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], name, { type: 'image/png' });

const url = () => screen.getByLabelText(/Website URL/) as HTMLInputElement;
const description = () => screen.getByLabelText(/^Description/) as HTMLTextAreaElement;
const imageInput = () => screen.getByLabelText(/Advertisement Image/) as HTMLInputElement;
const linkInputs = () => screen.queryAllByRole('textbox', { name: /Additional link/ }) as HTMLInputElement[];
const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Submit Advertisement' }));

function chooseImage(file: File) {
  Object.defineProperty(imageInput(), 'files', { value: [file], configurable: true });
  fireEvent.input(imageInput());
}

function fillRequired() {
  fireEvent.input(url(), { target: { value: 'https://shop.example.com' } });
  fireEvent.input(description(), { target: { value: 'Blocks for builders' } });
  chooseImage(png());
}

describe('/advertise', () => {
  afterEach(() => {
    cleanup();
    dismissToast();
    vi.unstubAllGlobals();
  });

  it('shows the measured audience, says what is not measured, and the pricing and review', async () => {
    mockApi(routes({ '/api/stats': { ...stats, monthlyVisitors: 4321, discordMembers: null, userSatisfaction: null, ratingCount: 0, targetedAudience: 55 } }));
    renderWithClient(<Advertise />);
    expect(screen.getByRole('heading', { level: 1, name: /Advertise/ })).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('audience-monthlyVisitors').textContent).toContain('4,321'));
    expect(screen.getByTestId('audience-targetedAudience').textContent).toContain('55');
    expect(screen.getByTestId('audience-discordMembers').textContent).toContain('Not measured yet');
    expect(screen.getByTestId('audience-userSatisfaction').textContent).toContain('Not measured yet');
    expect(screen.getByTestId('audience-userSatisfaction').textContent).toContain('No fan has rated a command yet');

    const pricing = within(screen.getByRole('list', { name: 'Pricing' }));
    expect(pricing.getByText('Free')).toBeTruthy();
    expect(pricing.getByText('$1.00')).toBeTruthy();
    expect(pricing.getByText('$10.00')).toBeTruthy();
    const text = document.body.textContent ?? '';
    expect(text).toContain('1 to 2 business days');
    expect(text).toContain('Approval is notified through our chat community');
    expect((screen.getByRole('link', { name: 'chat community' }) as HTMLAnchorElement).href).toBe(site.links.community);
  });

  it('has every field: url input, target audiences, durations, image types', async () => {
    mockApi(routes());
    renderWithClient(<Advertise />);
    expect(url().type).toBe('url');
    const audience = screen.getByLabelText('Target Audience') as HTMLSelectElement;
    expect(Array.from(audience.options).map((o) => o.value)).toEqual([
      '',
      'young-gamers',
      'roblox-players',
      'game-developers',
      'general-gaming',
      'server-admins',
    ]);
    const durations = screen.getAllByRole('radio').map((r) => (r as HTMLInputElement).value);
    expect(durations).toEqual(['1-day', '1-month', '10-fullscreen']);
    expect(screen.getByRole('radio', { name: '1 day' })).toBeTruthy();
    expect(screen.getByRole('radio', { name: '1 month' })).toBeTruthy();
    expect(screen.getByRole('radio', { name: '10-fullscreen' })).toBeTruthy();
    expect((screen.getByRole('radio', { name: '1 day' }) as HTMLInputElement).checked).toBe(true);
    expect(imageInput().accept).toBe('image/png,image/jpeg,image/webp,image/gif');
  });

  it('premium options appear only for 10-fullscreen; user-input reveals the message box with its counter', async () => {
    mockApi(routes());
    renderWithClient(<Advertise />);
    expect(screen.queryByTestId('premium-options')).toBeNull();
    fireEvent.click(screen.getByRole('radio', { name: '10-fullscreen' }));
    const premium = within(await screen.findByTestId('premium-options'));
    expect((premium.getByRole('radio', { name: 'AI-generated message' }) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByLabelText('Custom full-screen message')).toBeNull();
    fireEvent.click(premium.getByRole('radio', { name: 'Custom message' }));
    const box = screen.getByLabelText('Custom full-screen message') as HTMLTextAreaElement;
    expect(box.maxLength).toBe(200);
    expect(screen.getByTestId('custom-message-count').textContent).toBe('0/200 characters');
    fireEvent.input(box, { target: { value: 'x'.repeat(250) } });
    await waitFor(() => expect(screen.getByTestId('custom-message-count').textContent).toBe('200/200 characters'));
    fireEvent.click(screen.getByRole('radio', { name: '1 month' }));
    expect(screen.queryByTestId('premium-options')).toBeNull();
  });

  it('adds and removes additional links (remove only with more than one)', async () => {
    mockApi(routes());
    renderWithClient(<Advertise />);
    expect(linkInputs()).toHaveLength(1);
    expect(screen.queryByRole('button', { name: /Remove link/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Add Link' }));
    fireEvent.click(screen.getByRole('button', { name: 'Add Link' }));
    expect(linkInputs()).toHaveLength(3);
    fireEvent.input(linkInputs()[0], { target: { value: 'https://a.example.com' } });
    fireEvent.input(linkInputs()[2], { target: { value: 'https://c.example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Remove link 2' }));
    expect(linkInputs().map((i) => i.value)).toEqual(['https://a.example.com', 'https://c.example.com']);
    fireEvent.click(screen.getByRole('button', { name: 'Remove link 1' }));
    expect(linkInputs().map((i) => i.value)).toEqual(['https://c.example.com']);
    expect(screen.queryByRole('button', { name: /Remove link/ })).toBeNull();
  });

  it('refuses to send without the required fields (Missing Information)', async () => {
    const api = mockApi(routes());
    renderWithClient(<Advertise />);
    fireEvent.input(url(), { target: { value: 'https://shop.example.com' } });
    fireEvent.input(description(), { target: { value: 'Blocks' } });
    submit();
    expect(lastToast()).toMatchObject({
      title: 'Missing Information',
      description: 'Please fill in website URL, description, and upload an image',
      variant: 'destructive',
    });
    expect(api.callsTo('POST', '/api/advertise')).toHaveLength(0);
    // The empty one is marked at the field, its message tied to it; the filled ones are not.
    const image = imageInput();
    expect(image.getAttribute('aria-invalid')).toBe('true');
    const described = (image.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent);
    expect(described).toContain('Choose an image for your ad.');
    expect(url().getAttribute('aria-invalid')).toBeNull();
    expect(description().getAttribute('aria-invalid')).toBeNull();
  });

  it('submits the multipart form, shows the success toast and resets', async () => {
    const api = mockApi(routes({ 'POST /api/advertise': { status: 201, body: { success: true, id: 9, message: 'ok' } } }));
    renderWithClient(<Advertise />);
    fillRequired();
    fireEvent.input(screen.getByLabelText('Target Audience'), { target: { value: 'server-admins' } });
    fireEvent.click(screen.getByRole('radio', { name: '10-fullscreen' }));
    fireEvent.click(await screen.findByRole('radio', { name: 'Custom message' }));
    fireEvent.input(screen.getByLabelText('Custom full-screen message'), { target: { value: 'Come build with us' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add Link' }));
    fireEvent.input(linkInputs()[1], { target: { value: 'https://b.example.com' } });
    await waitFor(() => expect(screen.getByTestId('ad-image-name').textContent).toContain('ad.png'));
    submit();
    await waitFor(() =>
      expect(lastToast()).toMatchObject({
        title: 'Advertisement Submitted!',
        description: "Your advertisement request has been sent for manual review. We'll get back to you soon.",
      }),
    );
    const sent = api.callsTo('POST', '/api/advertise')[0].body as FormData;
    expect(sent.get('websiteUrl')).toBe('https://shop.example.com');
    expect(sent.get('targetAudience')).toBe('server-admins');
    expect(sent.get('duration')).toBe('10-fullscreen');
    expect(sent.get('links')).toBe('["https://b.example.com"]');
    expect(sent.get('premiumFullscreen')).toBe('true');
    expect(sent.get('fullscreenMessageType')).toBe('user-input');
    expect(sent.get('fullscreenCustomMessage')).toBe('Come build with us');
    expect((sent.get('image') as File).name).toBe('ad.png');

    // The request's reference and what happens next.
    const notice = await screen.findByTestId('ad-submitted');
    expect(screen.getByTestId('ad-reference').textContent).toBe('#9');
    expect(notice.textContent).toMatch(/reviews it by hand/);
    expect(notice.textContent).toMatch(/runs for 10 days/);

    // reset
    await waitFor(() => expect(url().value).toBe(''));
    expect(description().value).toBe('');
    expect((screen.getByLabelText('Target Audience') as HTMLSelectElement).value).toBe('');
    expect((screen.getByRole('radio', { name: '1 day' }) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByTestId('premium-options')).toBeNull();
    expect(linkInputs().map((i) => i.value)).toEqual(['']);
    expect(screen.queryByTestId('ad-image-name')).toBeNull();
  });

  it("shows the server's error, and the product's sentence when there is none", async () => {
    mockApi(
      routes({
        'POST /api/advertise': {
          status: 400,
          body: { error: 'Enter a web address starting with https://', fields: { websiteUrl: 'Enter a web address starting with https://' } },
        },
      }),
    );
    renderWithClient(<Advertise />);
    fillRequired();
    submit();
    await waitFor(() =>
      expect(lastToast()).toMatchObject({ title: 'Submission Failed', description: 'Enter a web address starting with https://', variant: 'destructive' }),
    );
    expect(url().getAttribute('aria-invalid')).toBe('true');
    expect(url().value).toBe('https://shop.example.com');
    cleanup();

    mockApi(routes({ 'POST /api/advertise': () => Promise.reject(new TypeError('Failed to fetch')) }));
    renderWithClient(<Advertise />);
    fillRequired();
    submit();
    await waitFor(() =>
      expect(lastToast()).toMatchObject({
        title: 'Submission Failed',
        description: 'There was an error submitting your advertisement. Please try again.',
      }),
    );
  });

  it('renders ad texts as text, never HTML', async () => {
    mockApi(routes());
    renderWithClient(<Advertise />);
    fireEvent.input(description(), { target: { value: '<img src=x onerror=alert(1)>' } });
    expect(document.querySelector('img[src="x"]')).toBeNull();
  });
});
