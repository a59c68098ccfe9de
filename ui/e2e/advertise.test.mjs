// Advertising end to end (the advertise page and its form, the bottom banner, the fullscreen ad, the admin
// Advertisements tab, the ad's status and countdown), desktop and phone, against one real server whose data dir
// is known (for `fanhub admin-key`).
//
// The server allows 5 submissions an hour per IP and checks the fields before counting: this file makes 2
// accepted submissions (a 400 for a bad URL is not counted). The tests run in order and share the ads.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, VIEWPORT_NAMES, visible, hidden, hasCount, hasAttr, eventually, gotoApp, atPath } from './harness.mjs';
import { makePng } from './png.mjs';
import { axeViolations, assertClean } from './axe.mjs';
import { adminSessionCookies, adminApi, expectToast, dismissToasts, backgroundHex, cssColorToHex, assertNoHorizontalOverflow } from './admin-helpers.mjs';

const TEAL_PNG = makePng(120, 80, [10, 95, 115], [250, 200, 40], 12);
const ORANGE_PNG = makePng(96, 96, [232, 89, 12], [20, 20, 20], 10);

const MISSING = 'Please fill in website URL, description, and upload an image';
const SUBMITTED = "Your advertisement request has been sent for manual review. We'll get back to you soon.";
const FALLBACK = 'There was an error submitting your advertisement. Please try again.';
const FAILED_FETCH = /^Failed to load resource: net::ERR_FAILED/;
const BAD_REQUEST = /^Failed to load resource: the server responded with a status of 400 /;

/** What each viewport submits (desktop: the premium fullscreen ad with its own message). */
const ADS = {
  desktop: {
    websiteUrl: 'https://blocks-shop.example.com/',
    adDescription: 'Hand-made <b>block</b> packs for builders: castles, towers and bridges.',
    targetAudience: 'game-developers',
    duration: '10-fullscreen',
    links: ['https://video.example.com/watch/blocks', 'https://store.example.com/packs'],
    message: 'Build your dream castle today!',
    png: TEAL_PNG,
  },
  phone: {
    websiteUrl: 'https://server-host.example.org/',
    adDescription: 'Fast game servers for your clan, set up in a minute.',
    targetAudience: 'server-admins',
    duration: '1-month',
    links: ['https://server-host.example.org/pricing'],
    message: null,
    png: ORANGE_PNG,
  },
};

const VIEWPORT_HEIGHT = { desktop: 800, phone: 844 };

async function openAdminTab(page, id) {
  const tab = page.locator(`[role="tab"][data-tab="${id}"]`);
  await tab.click();
  await hasAttr(tab, 'aria-selected', 'true');
}

/** Pages of the public site start with the once-a-session fullscreen roll already made ("skipped"). */
async function skipFullscreenRoll(page) {
  await page.addInitScript(() => sessionStorage.setItem('fanhub_fullscreen_ad', 'skipped'));
}

function form(page) {
  return {
    url: page.getByRole('textbox', { name: 'Website URL', exact: true }),
    description: page.getByRole('textbox', { name: 'Description', exact: true }),
    audience: page.getByLabel('Target Audience'),
    image: page.getByLabel('Advertisement Image'),
    links: page.getByRole('textbox', { name: /^Additional link \d+$/ }),
    addLink: page.getByRole('button', { name: 'Add Link' }),
    removeLink: page.getByRole('button', { name: /^Remove link \d+$/ }),
    submit: page.getByRole('button', { name: 'Submit Advertisement' }),
    premium: page.getByTestId('premium-options'),
    message: page.getByLabel('Custom full-screen message'),
    counter: page.getByTestId('custom-message-count'),
  };
}

async function openAdvertise(env, vp) {
  const page = await env.open(vp, null);
  await skipFullscreenRoll(page);
  await gotoApp(page, '/advertise');
  await visible(page.getByRole('heading', { level: 1, name: 'Advertise' }));
  return page;
}

describe('advertising', () => {
  const env = useSuite({ withDataDir: true });
  let key;
  let cookies;
  /** vp -> the id the server gave the submission */
  const submitted = {};

  before(async () => {
    key = await env.adminKey('e2e ads');
    cookies = await adminSessionCookies(env, key);
  });

  async function openAdmin(vp, tab) {
    const page = await env.open(vp, null);
    await skipFullscreenRoll(page);
    await page.context().addCookies(cookies);
    await gotoApp(page, '/admin');
    await visible(page.getByRole('heading', { level: 1, name: 'Admin Control Center', exact: true }), 15_000);
    if (tab) await openAdminTab(page, tab);
    return page;
  }

  it('the footer leads to /advertise, which shows the audience figures the server measured, the pricing and the manual review (desktop)', async () => {
    const page = await env.open('desktop', null);
    await skipFullscreenRoll(page);
    await gotoApp(page, '/');
    await page.locator('footer').getByRole('link', { name: 'Advertise', exact: true }).click();
    await atPath(page, '/advertise');
    await visible(page.getByRole('heading', { level: 1, name: 'Advertise' }));
    const stats = await env.api('/api/stats');
    const figure = (k) => page.getByTestId(`audience-${k}`);
    await visible(figure('monthlyVisitors'));
    await eventually(async () => {
      const now = await env.api('/api/stats');
      assert.match(await figure('monthlyVisitors').innerText(), new RegExp(`\\b${now.monthlyVisitors.toLocaleString('en-US')}\\b`));
    });
    assert.match(await figure('targetedAudience').innerText(), new RegExp(`\\b${stats.targetedAudience.toLocaleString('en-US')}\\b`));
    // No Discord and no ratings on a fresh server: shown as not measured, never as a number.
    assert.equal(stats.discordMembers, null);
    assert.equal(stats.userSatisfaction, null);
    for (const k of ['discordMembers', 'userSatisfaction']) {
      const text = await figure(k).innerText();
      assert.match(text, /Not measured yet/, `${k} is shown as not measured`);
      assert.doesNotMatch(text.replace(/Not measured yet/, ''), /\d/, `${k} shows no invented figure`);
    }

    const pricing = page.getByRole('list', { name: 'Pricing' });
    const prices = await pricing.locator(':scope > li').allInnerTexts();
    assert.equal(prices.length, 3);
    assert.match(prices[0], /1 day[\s\S]*Free/i);
    assert.match(prices[1], /1 month[\s\S]*\$1\.00/i);
    assert.match(prices[2], /Premium Full-Screen[\s\S]*\$10\.00/i);
    const review = page.locator('#review');
    assert.match(await review.innerText(), /1 to 2 business days/);
    assert.match(await review.innerText(), /Approval is notified through our chat community/);
    const site = await env.api('/api/site');
    assert.equal(await review.getByRole('link', { name: 'chat community' }).getAttribute('href'), site.links.community);
    env.assertNoConsoleErrors(page);
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`the form: Missing Information, links add/remove, premium options and the 200-character counter, a failure, then a submission that resets the form (${vp})`, async () => {
      const ad = ADS[vp];
      const page = await openAdvertise(env, vp);
      const f = form(page);
      assert.equal(await f.url.getAttribute('type'), 'url');
      assert.equal(await f.image.getAttribute('accept'), 'image/png,image/jpeg,image/webp,image/gif');

      // Nothing filled in: the missing-fields message, nothing sent.
      let posts = 0;
      page.on('request', (r) => {
        if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/advertise') posts++;
      });
      await f.submit.click();
      await expectToast(page, 'Missing Information', { description: MISSING, destructive: true });
      assert.equal(posts, 0);
      // Each required field left empty is marked at the field, with its message tied to it; the focus goes to the first.
      for (const [field, message] of [
        [f.url, "Enter your website's address."],
        [f.description, 'Describe what you advertise.'],
        [f.image, 'Choose an image for your ad.'],
      ]) {
        await hasAttr(field, 'aria-invalid', 'true');
        const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
        const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).innerText()));
        assert.ok(texts.includes(message), `"${message}" is tied to the field (${texts.join(' | ')})`);
        await visible(page.getByText(message, { exact: true }));
      }
      await eventually(async () => assert.equal(await f.url.evaluate((el) => el === document.activeElement), true, 'the first empty field has the focus'));
      await dismissToasts(page);

      // Links: one field, no remove; add two, remove the middle one; remove only while more than one.
      await hasCount(f.links, 1);
      await hasCount(f.removeLink, 0);
      await f.addLink.click();
      await f.addLink.click();
      await hasCount(f.links, 3);
      await hasCount(f.removeLink, 3);
      await f.links.nth(0).fill(ad.links[0]);
      await f.links.nth(1).fill('https://removed.example.com');
      await page.getByRole('button', { name: 'Remove link 2' }).click();
      await hasCount(f.links, 2);
      assert.equal(await f.links.nth(0).inputValue(), ad.links[0]);
      assert.equal(await f.links.nth(1).inputValue(), '');
      if (ad.links[1]) await f.links.nth(1).fill(ad.links[1]);
      else {
        // an empty entry stays in the list and is dropped on submit
        await f.addLink.click();
        await hasCount(f.links, 3);
        await page.getByRole('button', { name: 'Remove link 3' }).click();
        await hasCount(f.links, 2);
      }

      // Premium options only for 10-fullscreen; user-input reveals the message box with its counter.
      await hasCount(f.premium, 0);
      await page.getByRole('radio', { name: '10-fullscreen', exact: true }).check();
      await visible(f.premium);
      assert.equal(await page.getByRole('radio', { name: 'AI-generated message' }).isChecked(), true, 'ai-generated is the default');
      await hasCount(f.message, 0);
      await page.getByRole('radio', { name: 'Custom message' }).check();
      await visible(f.message);
      assert.equal((await f.counter.innerText()).trim(), '0/200 characters');
      await f.message.fill('x'.repeat(230));
      assert.equal((await f.message.inputValue()).length, 200, 'at most 200 characters');
      assert.equal((await f.counter.innerText()).trim(), '200/200 characters');
      await f.message.fill(ad.message ?? 'not sent');
      assert.equal((await f.counter.innerText()).trim(), `${(ad.message ?? 'not sent').length}/200 characters`);
      if (ad.duration !== '10-fullscreen') {
        await page.getByRole('radio', { name: ad.duration === '1-month' ? '1 month' : '1 day', exact: true }).check();
        await hasCount(f.premium, 0);
      }

      await f.url.fill(vp === 'desktop' ? 'not a web address' : ad.websiteUrl);
      await f.description.fill(ad.adDescription);
      await f.audience.selectOption(ad.targetAudience);
      await f.image.setInputFiles({ name: `ad-${vp}.png`, mimeType: 'image/png', buffer: ad.png });
      await visible(page.getByTestId('ad-image-name'));
      assert.match(await page.getByTestId('ad-image-name').innerText(), new RegExp(`ad-${vp}\\.png`));

      if (vp === 'desktop') {
        // The server refuses the address: its sentence in the failure toast, the field marked.
        const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/advertise');
        await f.submit.click();
        const res = await answered;
        assert.equal(res.status(), 400);
        const { error } = await res.json();
        await expectToast(page, 'Submission Failed', { description: error, destructive: true });
        await hasAttr(f.url, 'aria-invalid', 'true');
        await dismissToasts(page);
        await f.url.fill(ad.websiteUrl);
      } else {
        // No answer at all: the fallback sentence.
        await page.route('**/api/advertise', (route) => route.abort());
        await f.submit.click();
        await expectToast(page, 'Submission Failed', { description: FALLBACK, destructive: true });
        await page.unroute('**/api/advertise');
        await dismissToasts(page);
      }
      assert.equal(await f.description.inputValue(), ad.adDescription, 'a failure keeps what was typed');

      const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/advertise' && r.request().method() === 'POST');
      await f.submit.click();
      const res = await answer;
      assert.equal(res.status(), 201);
      submitted[vp] = (await res.json()).id;
      await expectToast(page, 'Advertisement Submitted!', { description: SUBMITTED, destructive: false });
      // The request's reference (its id) and what happens next stay in view.
      const notice = page.getByTestId('ad-submitted');
      await visible(notice);
      assert.equal((await notice.getByTestId('ad-reference').innerText()).trim(), `#${submitted[vp]}`);
      assert.match(await notice.innerText(), /reviews it by hand/);
      assert.match(await notice.innerText(), new RegExp(`runs for ${ad.duration === '1-month' ? '30 days' : '10 days'}`));
      for (const field of [f.url, f.description, f.image]) await hasAttr(field, 'aria-invalid', null);
      assertClean(await axeViolations(page), `/advertise after a submission (${vp})`);

      // The form is back to its start.
      await eventually(async () => assert.equal(await f.url.inputValue(), ''));
      assert.equal(await f.description.inputValue(), '');
      assert.equal(await f.audience.inputValue(), '');
      assert.equal(await page.getByRole('radio', { name: '1 day', exact: true }).isChecked(), true);
      await hasCount(f.premium, 0);
      await hasCount(f.links, 1);
      assert.equal(await f.links.first().inputValue(), '');
      await hasCount(page.getByTestId('ad-image-name'), 0);
      assert.equal(await f.image.evaluate((el) => el.files.length), 0);

      // What the server stored is what was filled in.
      const { applications } = await adminApi(env, key, '/api/admin/advertisements');
      const stored = applications.find((a) => a.id === submitted[vp]);
      assert.ok(stored, 'the application is stored');
      assert.equal(stored.websiteUrl, ad.websiteUrl);
      assert.equal(stored.adDescription, ad.adDescription);
      assert.equal(stored.targetAudience, ad.targetAudience);
      assert.equal(stored.duration, ad.duration);
      assert.deepEqual(stored.links, ad.links);
      assert.equal(stored.status, 'pending');
      assert.equal(stored.premiumFullscreen, ad.duration === '10-fullscreen');
      assert.equal(stored.fullscreenCustomMessage, ad.message);
      await assertNoHorizontalOverflow(page, `/advertise (${vp})`);
      env.assertNoConsoleErrors(page, { allow: vp === 'desktop' ? [BAD_REQUEST] : [FAILED_FETCH] });
    });
  }

  it('admin: the applications with image, analysis and a preview in their colours; approve; the conflict dialog (desktop)', async () => {
    assert.ok(submitted.desktop && submitted.phone, 'both submissions were made');
    const { applications } = await adminApi(env, key, '/api/admin/advertisements');
    const first = applications.find((a) => a.id === submitted.desktop);
    const second = applications.find((a) => a.id === submitted.phone);
    const page = await openAdmin('desktop', 'advertisements');
    const item = (id) => page.locator(`[data-testid="ad-application"][data-app-id="${id}"]`);
    await visible(item(first.id));
    await visible(item(second.id));

    const one = item(first.id);
    await visible(one.getByText(first.websiteUrl));
    await visible(one.getByText(first.adDescription, { exact: true }));
    assert.equal((await one.getByTestId('ad-duration').innerText()).trim(), '10 days Premium Full-Screen');
    assert.equal((await one.getByTestId('ad-status').innerText()).trim(), 'Pending');
    await visible(one.getByText('game-developers', { exact: true }));
    for (const l of first.links) assert.equal(await one.getByRole('link', { name: l, exact: true }).first().getAttribute('target'), '_blank');
    await visible(one.getByTestId('ad-custom-message'));
    // the image, loaded from /uploads
    const img = one.locator(`img[src="${first.imagePath}"]`).first();
    await visible(img);
    await eventually(async () => assert.ok((await img.evaluate((el) => el.naturalWidth)) > 0, 'the uploaded image loads'));
    // the analysis, as text
    const analysis = one.getByTestId('ad-analysis');
    await visible(analysis);
    assert.ok(first.aiAnalysis.summary, 'the analysis has a summary');
    await visible(analysis.getByText(first.aiAnalysis.summary, { exact: true }));
    for (const feature of first.aiAnalysis.keyFeatures) await visible(analysis.getByText(feature, { exact: true }));
    // How sure it is, and why: nothing in "block packs for builders" names a category for sure.
    assert.equal(first.aiAnalysis.certainty, 'unsure');
    assert.equal(first.aiAnalysis.category, 'Unsure');
    const certainty = analysis.getByTestId('ad-analysis-certainty');
    await hasAttr(certainty, 'data-certainty', 'unsure');
    assert.match(await certainty.innerText(), new RegExp(`Unsure · ${first.aiAnalysis.confidence}% confidence`));
    assert.match(await certainty.innerText(), new RegExp(`leans to ${first.aiAnalysis.guess}`));
    assertClean(await axeViolations(page, { structure: false }), 'the analysis with its certainty and evidence');
    const why = analysis.getByTestId('ad-analysis-evidence');
    for (const e of first.aiAnalysis.evidence) assert.match(await why.innerText(), new RegExp(e.matched.map((m) => m.replace(/[()]/g, '\\$&')).join(', ')));
    assert.equal(await one.locator('b').count(), 0, 'the description is text, not HTML');
    // the preview in the colours taken from the image
    const preview = one.getByTestId('ad-banner-preview');
    assert.equal(await backgroundHex(preview), first.design.backgroundColor.toLowerCase());
    assert.equal(await cssColorToHex(page, await preview.evaluate((el) => getComputedStyle(el).color)), first.design.textColor.toLowerCase());

    // Approve the first: it becomes the banner at once.
    await one.getByRole('button', { name: 'Approve' }).click();
    await expectToast(page, 'Advertisement Status Updated', { destructive: false });
    await eventually(async () => assert.equal((await one.getByTestId('ad-status').innerText()).trim(), 'Approved'));
    await visible(one.getByText('Active Banner', { exact: true }));
    await dismissToasts(page);
    const banner = (await env.api('/api/admin/active-banner')).banner;
    assert.equal(banner.advertisementId, first.id);
    assert.deepEqual(
      [banner.backgroundColor, banner.textColor, banner.borderColor],
      [first.design.backgroundColor, first.design.textColor, first.design.borderColor],
      "approval activates the banner in the ad's colours",
    );

    // Approving the second while the first runs asks first.
    const two = item(second.id);
    await two.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Active Banner Conflict' });
    await visible(dialog);
    const text = await dialog.innerText();
    assert.match(text, /delete the ongoing banner/i);
    assert.match(text, /cannot be undone/i);
    assert.match(text, new RegExp(`#${first.id}\\b`));
    assert.match(text, /\b9 days remaining\b/, '10-fullscreen runs 10 days from activation');
    // focus is trapped inside
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), 'focus stays in the dialog');
    }
    await dialog.getByRole('button', { name: 'Nevermind' }).click();
    await hidden(dialog);
    assert.equal((await two.getByTestId('ad-status').innerText()).trim(), 'Pending', 'Nevermind changes nothing');
    assert.equal((await env.api('/api/admin/active-banner')).banner.advertisementId, first.id);
    env.assertNoConsoleErrors(page);
  });

  it('admin: the applications fit a phone screen, image, analysis and preview included (phone)', async () => {
    const page = await openAdmin('phone', 'advertisements');
    const items = page.getByTestId('ad-application');
    await hasCount(items, 2);
    await visible(items.first().getByTestId('ad-analysis'));
    await visible(items.first().getByTestId('ad-banner-preview'));
    await assertNoHorizontalOverflow(page, 'Advertisements tab (phone)');
    env.assertNoConsoleErrors(page);
  });

  it('the dashboard shows the running ad and a countdown that ticks every second down to Expired (desktop)', async () => {
    const { banner } = await env.api('/api/admin/active-banner');
    assert.equal(banner.advertisementId, submitted.desktop);
    const page = await env.open('desktop', null);
    await skipFullscreenRoll(page);
    await page.context().addCookies(cookies);
    await page.clock.install();
    await gotoApp(page, '/admin');
    const status = page.getByTestId('banner-status-ad');
    await visible(status, 15_000);
    assert.match(await status.innerText(), /Advertisement Banner Active/);
    assert.match(await status.innerText(), new RegExp(`Advertisement #${submitted.desktop}\\b`));
    const bannerHead = page.getByRole('heading', { name: 'Current Banner Status' }).locator('xpath=../..');
    await visible(bannerHead.getByText('Active', { exact: true }));
    const countdown = page.getByTestId('banner-countdown');
    assert.equal((await countdown.innerText()).trim(), '9 days remaining');

    // Move the page's clock to 30 s before the expiry, then one second at a time.
    const left = new Date(banner.expiresAt).getTime() - (await page.evaluate(() => Date.now()));
    await page.clock.fastForward(left - 30_500);
    await eventually(async () => assert.match((await countdown.innerText()).trim(), /^(29|30) seconds remaining$/));
    const before = Number((await countdown.innerText()).trim().split(' ')[0]);
    await page.clock.fastForward(1_000);
    await eventually(async () => assert.equal((await countdown.innerText()).trim(), `${before - 1} seconds remaining`));
    await page.clock.fastForward(31_000);
    await eventually(async () => assert.equal((await countdown.innerText()).trim(), 'Expired'));
    env.assertNoConsoleErrors(page);
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`every page shows the SPONSORED banner in the ad's colours with its image and links; Test Full-Screen opens the ad (${vp})`, async () => {
      const { banner, advertisement } = await env.api('/api/admin/active-banner');
      assert.equal(advertisement.id, submitted.desktop);
      const page = await env.open(vp, null);
      await skipFullscreenRoll(page);
      await gotoApp(page, vp === 'desktop' ? '/' : '/commands');
      const aside = page.getByRole('complementary', { name: 'Sponsored' });
      await visible(aside);
      await visible(aside.getByText('SPONSORED', { exact: true }));
      // The banner may first show the site's default colours until the ad's arrive (seen once on a loaded CI run).
      await eventually(async () => {
        assert.equal(await backgroundHex(aside), banner.backgroundColor.toLowerCase());
        assert.equal(await cssColorToHex(page, await aside.evaluate((el) => getComputedStyle(el).color)), banner.textColor.toLowerCase());
        assert.equal(await cssColorToHex(page, await aside.evaluate((el) => getComputedStyle(el).borderTopColor)), banner.borderColor.toLowerCase());
      });
      const img = aside.locator('img').first();
      assert.equal(await img.getAttribute('src'), advertisement.imagePath);
      await eventually(async () => assert.ok((await img.evaluate((el) => el.naturalWidth)) > 0, 'the ad image loads'));
      await visible(aside.getByText(advertisement.adDescription, { exact: true }));
      const hrefs = (list) => list.getByRole('link').evaluateAll((els) => els.map((a) => a.getAttribute('href')));
      // On a phone the banner's row keeps its two buttons and leaves the links to the full-screen ad.
      const bannerLinks = aside.getByRole('list', { name: 'Advertiser links' });
      if (vp === 'desktop') assert.deepEqual(await hrefs(bannerLinks), advertisement.links);
      else await hasCount(bannerLinks, 0);
      assert.equal(await aside.getByRole('link', { name: 'Visit' }).getAttribute('href'), advertisement.websiteUrl);

      // Test Full-Screen: the whole image, the description once, and the advertiser's own message as the call to action.
      const open = aside.getByRole('button', { name: 'Test Full-Screen' });
      await open.click();
      const dialog = page.getByRole('dialog', { name: 'Sponsored advertisement' });
      await visible(dialog);
      const text = await dialog.innerText();
      assert.equal(text.split(advertisement.adDescription).length, 2, `the description once: ${text}`);
      assert.deepEqual(await hrefs(dialog.getByRole('list', { name: 'Advertiser links' })), advertisement.links, 'the links, on every screen');
      // The analysis's summary and features only quote the description here, so they are not shown again.
      await hasCount(dialog.getByTestId('fullscreen-ad-summary'), 0);
      await hasCount(dialog.getByTestId('fullscreen-ad-features'), 0);
      const cta = dialog.getByTestId('fullscreen-ad-cta');
      assert.equal((await cta.innerText()).trim(), ADS.desktop.message, "the advertiser's own words");
      assert.equal(await cta.getAttribute('href'), advertisement.websiteUrl);
      const shape = await dialog.locator('img').evaluate((el) => ({ natural: el.naturalWidth / el.naturalHeight, box: el.getBoundingClientRect() }));
      assert.ok(Math.abs(shape.box.width / shape.box.height / shape.natural - 1) <= 0.02, 'the image whole, at its aspect ratio');
      assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), 'focus moves into the ad');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await hidden(dialog);
      // the backdrop closes it too
      await open.click();
      await visible(dialog);
      await page.mouse.click(5, VIEWPORT_HEIGHT[vp] / 2);
      await hidden(dialog);
      await assertNoHorizontalOverflow(page, `sponsored banner (${vp})`);
      env.assertNoConsoleErrors(page);
    });
  }

  it('an ad image that fails to load is hidden and the placeholder icon shows; Esc closes the fullscreen ad (phone)', async () => {
    const page = await env.open('phone', null);
    await skipFullscreenRoll(page);
    await page.route('**/uploads/**', (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"No such file."}' }));
    await gotoApp(page, '/');
    const aside = page.getByRole('complementary', { name: 'Sponsored' });
    await visible(aside.getByRole('img', { name: 'Advertisement image unavailable' }));
    await hasCount(aside.locator('img'), 0);
    await aside.getByRole('button', { name: 'Test Full-Screen' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sponsored advertisement' });
    await visible(dialog.getByRole('img', { name: 'Advertisement image unavailable' }));
    await page.keyboard.press('Escape');
    await hidden(dialog);
    env.assertNoConsoleErrors(page, { allow: [/^Failed to load resource: the server responded with a status of 404 /] });
  });

  it('a premium ad opens by itself (50% roll won) and closes after 8 seconds; at most once a session (desktop)', async () => {
    const page = await env.open('desktop', null);
    await page.addInitScript(() => {
      Math.random = () => 0.25;
    });
    await gotoApp(page, '/guides');
    const dialog = page.getByRole('dialog', { name: 'Sponsored advertisement' });
    await visible(dialog);
    const opened = Date.now();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('fanhub_fullscreen_ad')), 'shown');
    await hidden(dialog, 12_000);
    const shownFor = Date.now() - opened;
    assert.ok(shownFor >= 7_000 && shownFor <= 10_500, `closed by itself after ~8 s (took ${shownFor} ms)`);
    // Same session, another page load: no second showing.
    await gotoApp(page, '/community');
    await visible(page.getByRole('complementary', { name: 'Sponsored' }));
    await page.waitForTimeout(500);
    await hasCount(dialog, 0);
    env.assertNoConsoleErrors(page);
  });

  it("Revert brings the default banner back; Activate Banner sends the ad's colours (desktop)", async () => {
    const ad = (await adminApi(env, key, '/api/admin/advertisements')).applications.find((a) => a.id === submitted.desktop);
    const site = await env.api('/api/site');
    const admin = await openAdmin('desktop', 'settings');
    const visitor = await env.open('desktop', null);
    await skipFullscreenRoll(visitor);
    await gotoApp(visitor, '/');
    await visible(visitor.getByRole('complementary', { name: 'Sponsored' }));

    await admin.getByRole('button', { name: 'Revert to Default Banner' }).click();
    await expectToast(admin, 'Banner Reverted', { destructive: false });
    assert.equal((await env.api('/api/admin/active-banner')).banner.isActive, false);
    // the visitor's next poll (5 s) shows the default clan banner
    const exclusive = visitor.getByRole('complementary', { name: 'Announcement' });
    await visible(exclusive, 12_000);
    await visible(exclusive.getByText('EXCLUSIVE', { exact: true }));
    assert.equal(await backgroundHex(exclusive), site.defaultBanner.backgroundColor.toLowerCase());
    await dismissToasts(admin);

    // The approved ad can be activated again, in its own colours.
    await openAdminTab(admin, 'advertisements');
    const item = admin.locator(`[data-testid="ad-application"][data-app-id="${ad.id}"]`);
    const activate = item.getByRole('button', { name: 'Activate Banner' });
    await visible(activate);
    const sent = admin.waitForRequest((r) => new URL(r.url()).pathname === '/api/admin/activate-banner');
    await activate.click();
    const body = (await sent).postDataJSON();
    assert.deepEqual(body, { advertisementId: ad.id, ...ad.design });
    await expectToast(admin, 'Banner Activated', { destructive: false });
    const sponsored = visitor.getByRole('complementary', { name: 'Sponsored' });
    await visible(sponsored, 12_000);
    assert.equal(await backgroundHex(sponsored), ad.design.backgroundColor.toLowerCase());

    // Revert once more: back to the default at once for the admin, at the next poll for visitors.
    await dismissToasts(admin);
    await openAdminTab(admin, 'settings');
    await admin.getByRole('button', { name: 'Revert to Default Banner' }).click();
    await expectToast(admin, 'Banner Reverted', { destructive: false });
    await visible(visitor.getByRole('complementary', { name: 'Announcement' }), 12_000);
    await openAdminTab(admin, 'dashboard');
    await visible(admin.getByTestId('banner-status-default'));
    env.assertNoConsoleErrors(admin);
    env.assertNoConsoleErrors(visitor);
  });

  it('Reject takes an application off the list; the Show filter reaches the rejected ones with their image (desktop, then phone)', async () => {
    const page = await openAdmin('desktop', 'advertisements');
    const item = page.locator(`[data-testid="ad-application"][data-app-id="${submitted.phone}"]`);
    await visible(item);
    await item.getByRole('button', { name: 'Reject' }).click();
    await expectToast(page, 'Advertisement Status Updated', { destructive: false });
    await hasCount(item, 0);
    const listed = (await adminApi(env, key, '/api/admin/advertisements')).applications.map((a) => a.id);
    assert.ok(!listed.includes(submitted.phone) && listed.includes(submitted.desktop), `rejected ones leave the list: ${listed}`);
    await page.getByLabel('Show').selectOption('rejected');
    await visible(item);
    assert.equal((await item.getByTestId('ad-status').innerText()).trim(), 'Rejected');
    await hasCount(page.getByTestId('ad-application'), 1);
    const img = item.locator('img').first();
    await eventually(async () => assert.ok((await img.evaluate((el) => el.naturalWidth)) > 0, 'the image is kept during the audit window'));
    await hasCount(item.getByRole('button'), 0);
    env.assertNoConsoleErrors(page);

    const phone = await openAdmin('phone', 'advertisements');
    await phone.getByLabel('Show').selectOption('rejected');
    await visible(phone.locator(`[data-testid="ad-application"][data-app-id="${submitted.phone}"]`));
    await assertNoHorizontalOverflow(phone, 'Advertisements tab, rejected (phone)');
    env.assertNoConsoleErrors(phone);
  });
});
