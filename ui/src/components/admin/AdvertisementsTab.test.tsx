import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/preact';
import { AdvertisementsTab } from './AdvertisementsTab';
import { chooseOption, renderWithClient } from '../../test/helpers';
import { lastToast, mockApi } from './test-utils';

const colors = { backgroundColor: '#7c3aed', textColor: '#ffffff', borderColor: '#8b5cf6' };
const design = { backgroundColor: '#0a3d62', textColor: '#f5f6fa', borderColor: '#3c6382' };
const noBanner = { banner: { isActive: false, ...colors, advertisementId: null, expiresAt: null }, advertisement: null };
const applications = [
  {
    id: 1,
    websiteUrl: 'https://one.example.com',
    adDescription: 'First ad',
    duration: '10-fullscreen',
    targetAudience: 'roblox-players',
    links: ['https://one.example.com/more', ''],
    status: 'pending',
    isActive: false,
    createdAt: '2026-02-01T10:00:00Z',
  },
  { id: 2, websiteUrl: 'https://two.example.com', adDescription: 'Rejected', duration: '1-day', status: 'rejected', isActive: false, createdAt: '2026-02-02T10:00:00Z' },
  {
    id: 3,
    websiteUrl: 'https://three.example.com',
    adDescription: 'Third',
    duration: '1-month',
    targetAudience: null,
    status: 'approved',
    isActive: false,
    createdAt: '2026-02-03T10:00:00Z',
    imagePath: '/uploads/0123456789abcdef0123456789abcdef.png',
    design,
    aiAnalysis: {
      summary: 'A <b>shop</b> for builders',
      mainProduct: 'Block packs',
      category: 'Gaming',
      priceRange: 'Free to try',
      keyFeatures: ['Fast delivery', 'Hand-made', 'Cheap', 'Fourth feature'],
      callToAction: 'Shop now',
      source: 'heuristic',
    },
  },
  { id: 4, websiteUrl: 'https://four.example.com', adDescription: 'Live', duration: '1-day', status: 'approved', isActive: true, createdAt: '2026-02-04T10:00:00Z' },
];

function item(id: number) {
  return document.querySelector(`[data-app-id="${id}"]`) as HTMLElement;
}

describe('Advertisements tab', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists applications without the rejected ones', async () => {
    mockApi({
      '/api/admin/advertisements': { applications },
      '/api/admin/active-banner': noBanner,
      '/api/admin/settings': { banner: colors, defaults: colors },
    });
    renderWithClient(<AdvertisementsTab defaultColors={colors} />);
    expect(await screen.findByText('Advertisement Applications')).toBeTruthy();
    await waitFor(() => expect(screen.getAllByTestId('ad-application')).toHaveLength(3));
    expect(item(2)).toBeNull();

    const first = within(item(1));
    expect(first.getByText('10 days Premium Full-Screen')).toBeTruthy();
    expect(first.getByText('Pending')).toBeTruthy();
    expect(first.getByText('roblox-players')).toBeTruthy();
    expect(first.getByText('Application #1')).toBeTruthy();
    const more = first.getByText('https://one.example.com/more') as HTMLAnchorElement;
    expect(more.getAttribute('target')).toBe('_blank');
    expect(first.getByRole('button', { name: /Approve/ })).toBeTruthy();
    expect(first.getByRole('button', { name: /Reject/ })).toBeTruthy();

    const third = within(item(3));
    expect(third.getByText('Not specified')).toBeTruthy();
    expect(third.getByText('Approved')).toBeTruthy();
    expect(third.getByRole('button', { name: /Activate Banner/ })).toBeTruthy();
    expect(within(item(4)).getByText('Active Banner')).toBeTruthy();
  });

  it("shows the image, the AI analysis (as text) and a preview in the ad's design colours", async () => {
    mockApi({
      '/api/admin/advertisements': { applications },
      '/api/admin/active-banner': noBanner,
      '/api/admin/settings': { banner: colors, defaults: colors },
    });
    renderWithClient(<AdvertisementsTab defaultColors={colors} />);
    await waitFor(() => expect(item(3)).toBeTruthy());
    const third = within(item(3));
    const img = item(3).querySelector('img[src="/uploads/0123456789abcdef0123456789abcdef.png"]');
    expect(img).toBeTruthy();
    const analysis = within(third.getByTestId('ad-analysis'));
    expect(analysis.getByText('A <b>shop</b> for builders')).toBeTruthy();
    expect(item(3).querySelector('b')).toBeNull();
    expect(analysis.getByText('Block packs')).toBeTruthy();
    expect(analysis.getByText('Shop now')).toBeTruthy();
    expect(analysis.getByText('Fourth feature')).toBeTruthy();
    const preview = third.getByTestId('ad-banner-preview');
    expect(preview.style.backgroundColor).toMatch(/#0a3d62|rgb\(10, 61, 98\)/);
    expect(within(preview).getByText('SPONSORED')).toBeTruthy();
    expect(within(preview).queryByRole('button', { name: /Test Full-Screen/ })).toBeNull();
    // An application without a design (older rows) has no preview.
    expect(within(item(1)).queryByTestId('ad-banner-preview')).toBeNull();
  });

  it('reaches rejected applications through the filter, with a deleted image shown as gone', async () => {
    const rejected = [
      { ...applications[1], imagePath: null, imageRemovedAt: '2026-02-10T10:00:00Z' },
      { id: 5, websiteUrl: 'https://five.example.com', adDescription: 'Kept', duration: '1-day', status: 'rejected', isActive: false, createdAt: '2026-02-05T10:00:00Z', imagePath: '/uploads/fedcba9876543210fedcba9876543210.png' },
    ];
    const api = mockApi({
      '/api/admin/advertisements': { applications: applications.filter((a) => a.status !== 'rejected') },
      '/api/admin/advertisements?status=rejected': { applications: rejected },
      '/api/admin/active-banner': noBanner,
      '/api/admin/settings': { banner: colors, defaults: colors },
    });
    renderWithClient(<AdvertisementsTab defaultColors={colors} />);
    await waitFor(() => expect(screen.getAllByTestId('ad-application')).toHaveLength(3));
    expect(api.callsTo('GET', '/api/admin/advertisements?status=rejected')).toHaveLength(0);
    chooseOption(screen.getByLabelText('Show'), 'rejected');
    await waitFor(() => expect(item(2)).toBeTruthy());
    expect(screen.getAllByTestId('ad-application')).toHaveLength(2);
    expect(within(item(2)).getByTestId('ad-status').textContent).toBe('Rejected');
    expect(within(item(2)).getByTestId('ad-image-removed').textContent).toMatch(/Image deleted/);
    expect(item(2).querySelector('img')).toBeNull();
    expect(item(5).querySelector('img[src="/uploads/fedcba9876543210fedcba9876543210.png"]')).toBeTruthy();
    expect(within(item(2)).queryByRole('button', { name: /Approve|Reject/ })).toBeNull();
  });

  it('shows the empty state', async () => {
    mockApi({ '/api/admin/advertisements': { applications: [] }, '/api/admin/active-banner': noBanner, '/api/admin/settings': { banner: colors, defaults: colors } });
    renderWithClient(<AdvertisementsTab defaultColors={colors} />);
    expect(await screen.findByText('No applications yet')).toBeTruthy();
  });

  it('approves, rejects and activates through the admin endpoints', async () => {
    const api = mockApi({
      '/api/admin/advertisements': { applications },
      '/api/admin/active-banner': noBanner,
      '/api/admin/settings': { banner: { ...colors, backgroundColor: '#111111' }, defaults: colors },
      'PATCH /api/admin/advertisements/1': { success: true },
      'POST /api/admin/activate-banner': { status: 500, body: { error: 'Database is busy' } },
    });
    renderWithClient(<AdvertisementsTab defaultColors={colors} />);
    await waitFor(() => expect(item(1)).toBeTruthy());
    fireEvent.click(within(item(1)).getByRole('button', { name: /Approve/ }));
    await waitFor(() => expect(lastToast()?.title).toBe('Advertisement Status Updated'));
    expect(api.callsTo('PATCH', '/api/admin/advertisements/1')[0].body).toEqual({ status: 'approved' });

    await waitFor(() => expect(within(item(3)).getByRole('button', { name: /Activate Banner/ })).toBeTruthy());
    fireEvent.click(within(item(3)).getByRole('button', { name: /Activate Banner/ }));
    await waitFor(() => expect(lastToast()).toMatchObject({ title: 'Failed to activate banner', description: 'Database is busy' }));
    // The ad's own design colours (taken from its image), not the default banner's.
    expect(api.callsTo('POST', '/api/admin/activate-banner')[0].body).toEqual({ advertisementId: 3, ...design });
  });

  it('asks before approving over an active banner', async () => {
    const active = {
      banner: { isActive: true, ...colors, advertisementId: 4, expiresAt: new Date(Date.now() + 3 * 3600_000 + 60_000).toISOString() },
      advertisement: null,
    };
    const api = mockApi({
      '/api/admin/advertisements': { applications },
      '/api/admin/active-banner': active,
      '/api/admin/settings': { banner: colors, defaults: colors },
      'PATCH /api/admin/advertisements/1': { success: true },
    });
    renderWithClient(<AdvertisementsTab defaultColors={colors} />);
    await waitFor(() => expect(item(1)).toBeTruthy());
    fireEvent.click(within(item(1)).getByRole('button', { name: /Approve/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Active Banner Conflict' });
    expect(dialog.textContent).toContain('#4');
    expect(dialog.textContent).toContain('3 hours remaining');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Nevermind' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.callsTo('PATCH', '/api/admin/advertisements/1')).toHaveLength(0);

    fireEvent.click(within(item(1)).getByRole('button', { name: /Approve/ }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(api.callsTo('PATCH', '/api/admin/advertisements/1')).toHaveLength(1));
  });
});
