// The bottom band on every route, phone (390x844, touch) and desktop (1280x800): with a sponsored banner whose image
// is wide (600x200), what stays fixed at the bottom covers at most 120 px, the end of the page scrolls out from under
// it, the image is whole at its own aspect ratio, the text is one line with an ellipsis, a closed banner stays closed
// for the visit, and on a touch phone the floating shortcuts button gives way to the menu's entry.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, VIEWPORT_NAMES, visible, hidden, eventually, gotoApp, atPath, settled, trackRequests } from './harness.mjs';
import { adminApi } from './admin-helpers.mjs';
import { axeViolations, assertClean } from './axe.mjs';
import { makePng } from './png.mjs';

const BAND_MAX = 120;
const WIDE_PNG = makePng(600, 200, [20, 40, 90], [250, 210, 60], 40);
const DESCRIPTION =
  'TH BUILD CONTEST: build the best castle of the season and win Robux, a winner badge and a place in the hall of fame! Entries close Friday.';
const NOT_FOUND_PATH = '/no-such-page-band';

/** Pages start with the once-a-session fullscreen roll already made, so the overlay stays out of the way. */
async function skipFullscreenRoll(page) {
  await page.addInitScript(() => sessionStorage.setItem('fanhub_fullscreen_ad', 'skipped'));
}

/**
 * What is fixed (or stuck) at the bottom of the viewport: every visible fixed or sticky element whose box reaches
 * the lower half, and the height of their union measured from the viewport's bottom edge.
 */
async function bottomBand(page) {
  return page.evaluate(() => {
    const vh = window.innerHeight;
    const found = [];
    for (const el of document.querySelectorAll('body *')) {
      const s = getComputedStyle(el);
      if (s.position !== 'fixed' && s.position !== 'sticky') continue;
      if (s.display === 'none' || s.visibility === 'hidden') continue;
      // Each visible descendant counts too (a fixed box may be small while its content overflows it).
      for (const node of [el, ...el.querySelectorAll('*')]) {
        const r = node.getBoundingClientRect();
        const ns = getComputedStyle(node);
        if (r.width === 0 || r.height === 0 || ns.visibility === 'hidden' || ns.display === 'none') continue;
        if (r.bottom <= vh / 2 || r.top >= vh) continue;
        found.push({ top: r.top, what: `${node.tagName.toLowerCase()}${node.dataset.testid ? `[${node.dataset.testid}]` : ''}` });
      }
    }
    const top = Math.min(vh, ...found.map((f) => f.top));
    return { height: vh - top, top, what: found.filter((f) => f.top === top).map((f) => f.what) };
  });
}

/**
 * Scrolls to the end and checks that the page's last content (the deepest last element with text, in the footer
 * or else in main) is not under the band: its box ends above the band and elementFromPoint finds it.
 */
async function assertEndNotCovered(page, where) {
  await page.evaluate(() => window.scrollTo(0, document.scrollingElement.scrollHeight));
  await page.waitForTimeout(100);
  const band = await bottomBand(page);
  const last = await page.evaluate(() => {
    const lastWithText = (root) => {
      const all = [...root.querySelectorAll('*')].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && el.children.length === 0 && el.textContent.trim() && getComputedStyle(el).visibility !== 'hidden';
      });
      return all.at(-1);
    };
    const el = lastWithText(document.querySelector('footer') ?? document.querySelector('main'));
    if (!el) return null;
    const r = el.getBoundingClientRect();
    const x = r.left + Math.min(r.width / 2, 20);
    const y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    return { text: el.textContent.trim().slice(0, 40), bottom: r.bottom, hitIsIt: !!hit && (hit === el || el.contains(hit)), hit: hit?.outerHTML.slice(0, 80) };
  });
  assert.ok(last, `${where}: the page has content`);
  assert.ok(last.bottom <= band.top + 0.5, `${where}: "${last.text}" ends at ${last.bottom}, under the band from ${band.top}`);
  assert.ok(last.hitIsIt, `${where}: "${last.text}" is covered by ${last.hit}`);
}

describe('the bottom band on every route', () => {
  const env = useSuite({ withDataDir: true });
  let routes;
  let ad;

  before(async () => {
    const key = await env.adminKey('e2e band');
    const form = new FormData();
    form.append('websiteUrl', 'https://th-contest.example.org/');
    form.append('adDescription', DESCRIPTION);
    form.append('duration', '1-day');
    form.append('links', JSON.stringify(['https://th-contest.example.org/rules', 'https://th-contest.example.org/prizes']));
    form.append('image', new Blob([WIDE_PNG], { type: 'image/png' }), 'contest.png');
    const res = await env.fetch('/api/advertise', { method: 'POST', body: form });
    assert.equal(res.status, 201, await res.clone().text());
    const { id } = await res.json();
    const approved = await env.fetch(`/api/admin/advertisements/${id}`, {
      method: 'PATCH',
      headers: { 'x-admin-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'approved' }),
    });
    assert.equal(approved.status, 200);
    ({ advertisement: ad } = await env.api('/api/admin/active-banner'));
    assert.equal(ad.id, id, 'the ad is the sponsored banner');
    // The analysis says it is unsure about a contest, and why.
    const stored = (await adminApi(env, key, '/api/admin/advertisements')).applications.find((a) => a.id === id);
    assert.equal(stored.aiAnalysis.certainty, 'unsure');
    assert.notEqual(stored.aiAnalysis.category, 'Video channel');
    assert.equal(stored.aiAnalysis.callToAction, 'Visit site');
    // Every route of the site (from its page list) and the not-found screen.
    const site = await env.api('/api/site');
    routes = [...site.pages.map((p) => p.path), NOT_FOUND_PATH];
    for (const p of ['/', '/login', '/admin', '/admin-access', '/generate-key', '/advertise']) assert.ok(routes.includes(p), `${p} is listed`);
  });

  const trackedPage = (page) => {
    trackRequests(page);
    return page;
  };

  async function openWithBanner(vp, path, context) {
    const page = context ? trackedPage(await context.newPage()) : await env.open(vp, null);
    await skipFullscreenRoll(page);
    await gotoApp(page, path);
    const aside = page.getByRole('complementary', { name: 'Sponsored' });
    await visible(aside);
    const img = aside.locator('img');
    await eventually(async () => assert.ok((await img.evaluate((el) => el.complete && el.naturalWidth)) > 0, 'the ad image loads'));
    return { page, aside, img };
  }

  for (const vp of VIEWPORT_NAMES) {
    it(`every route: the band covers at most ${BAND_MAX} px and the end of the page scrolls out from under it (${vp})`, async () => {
      const failures = [];
      for (const path of routes) {
        const { page } = await openWithBanner(vp, path);
        await settled(page);
        for (const at of ['top', 'end']) {
          if (at === 'end') await page.evaluate(() => window.scrollTo(0, document.scrollingElement.scrollHeight));
          const band = await bottomBand(page);
          if (band.height > BAND_MAX) failures.push(`${path} (${at}): ${Math.round(band.height)} px, top element ${band.what.join(', ')}`);
        }
        try {
          await assertEndNotCovered(page, path);
        } catch (e) {
          failures.push(e.message);
        }
        await page.context().close();
      }
      assert.deepEqual(failures, []);
    });

    it(`the banner: the image whole at its aspect ratio, one line of text with an ellipsis and its full text, a large close button (${vp})`, async () => {
      const { page, aside, img } = await openWithBanner(vp, '/commands');
      const shape = await img.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { natural: el.naturalWidth / el.naturalHeight, shown: r.width / r.height, fit: getComputedStyle(el).objectFit, width: r.width, height: r.height };
      });
      assert.equal(shape.natural, 3, 'the 600x200 image');
      assert.ok(Math.abs(shape.shown / shape.natural - 1) <= 0.02, `shown at ${shape.width}x${shape.height}, not its 3:1 ratio`);
      assert.equal(shape.fit, 'contain');

      const text = aside.getByTestId('banner-text');
      await visible(text);
      const line = await text.evaluate((el) => {
        const s = getComputedStyle(el);
        return {
          height: el.getBoundingClientRect().height,
          lineHeight: parseFloat(s.lineHeight),
          overflows: el.scrollWidth > el.clientWidth,
          textOverflow: s.textOverflow,
          whiteSpace: s.whiteSpace,
          title: el.getAttribute('title'),
          text: el.textContent,
        };
      });
      assert.ok(line.height <= line.lineHeight * 1.5, `one line (${line.height} px for a ${line.lineHeight} px line)`);
      if (line.overflows) assert.equal(line.textOverflow, 'ellipsis', 'text that does not fit ends with an ellipsis');
      assert.equal(line.whiteSpace, 'nowrap');
      assert.equal(line.text, DESCRIPTION);
      assert.equal(line.title, DESCRIPTION, 'the whole text is in the title');
      if (vp === 'phone') assert.ok(line.overflows, 'this long text is cut on a phone (the check above ran)');

      // The label, the buttons and the texts stay inside the banner, none wraps around the image.
      const box = await aside.boundingBox();
      for (const name of ['Visit', 'Test Full-Screen', 'Close banner']) {
        const b = await aside.getByRole(name === 'Visit' ? 'link' : 'button', { name, exact: true }).boundingBox();
        assert.ok(b, `${name} is shown`);
        assert.ok(b.y >= box.y - 0.5 && b.y + b.height <= box.y + box.height + 0.5, `${name} is inside the banner`);
        if (vp === 'phone' || name === 'Close banner') {
          if (vp === 'phone') assert.ok(b.width >= 44 && b.height >= 44, `${name}: a 44x44 hit area on touch (${b.width}x${b.height})`);
        }
      }
      assert.equal((await aside.getByRole('button', { name: 'Test Full-Screen' }).innerText()).trim(), 'Test Full-Screen');
      assert.ok(box.height <= BAND_MAX, `the banner is ${box.height} px`);

      // The full-screen view has the whole text and the whole image.
      await aside.getByRole('button', { name: 'Test Full-Screen' }).click();
      const dialog = page.getByRole('dialog', { name: 'Sponsored advertisement' });
      await visible(dialog);
      assert.equal((await dialog.getByTestId('fullscreen-ad-description').innerText()).trim(), DESCRIPTION);
      const big = dialog.locator('img');
      await eventually(async () => assert.ok((await big.evaluate((el) => el.naturalWidth)) > 0));
      const whole = await big.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { shown: r.width / r.height, inView: r.left >= 0 && r.right <= window.innerWidth + 0.5 };
      });
      assert.ok(Math.abs(whole.shown / 3 - 1) <= 0.02, `the full-screen image is shown at ${whole.shown}:1`);
      assert.ok(whole.inView, 'the whole image is in view');
      assert.equal((await dialog.getByTestId('fullscreen-ad-cta').innerText()).trim(), 'Visit site', 'an unsure analysis gets the neutral call to action');
      await page.keyboard.press('Escape');
      await hidden(dialog);
      assertClean(await axeViolations(page, { structure: false }), `banner (${vp})`);
      env.assertNoConsoleErrors(page);
    });

    it(`closed, the banner stays closed on every page of the visit; a new visit shows it again (${vp})`, async () => {
      const { page, aside } = await openWithBanner(vp, '/guides');
      await aside.getByRole('button', { name: 'Close banner' }).click();
      await hidden(aside);
      // another route in the app, then a new page load in the same tab
      await page.evaluate(() => {
        history.pushState(null, '', '/community');
        dispatchEvent(new PopStateEvent('popstate'));
      });
      await atPath(page, '/community');
      await visible(page.locator('main h1'));
      await page.waitForTimeout(300);
      assert.equal(await page.getByRole('complementary', { name: 'Sponsored' }).count(), 0, 'closed on the next route');
      await gotoApp(page, '/advertise');
      await page.waitForTimeout(500);
      assert.equal(await page.getByRole('complementary', { name: 'Sponsored' }).count(), 0, 'closed after a page load of the visit');
      const band = await bottomBand(page);
      assert.ok(band.height <= BAND_MAX);
      // A new visit (a new context: a new session).
      const again = await openWithBanner(vp, '/advertise');
      await visible(again.aside);
      env.assertNoConsoleErrors(page);
    });
  }

  it('on a touch phone the floating shortcuts button is hidden and the menu opens the shortcuts panel (phone)', async () => {
    const page = await env.open('phone', null);
    await skipFullscreenRoll(page);
    await gotoApp(page, '/');
    assert.ok(await page.evaluate(() => matchMedia('(pointer: coarse)').matches || matchMedia('(hover: none)').matches), 'a touch context');
    const floating = page.getByTestId('shortcuts-button');
    assert.equal(await floating.count(), 1, 'the button exists');
    assert.equal(await floating.isVisible(), false, 'and is hidden on touch');
    await page.getByRole('button', { name: 'Open menu' }).click();
    const drawer = page.getByRole('dialog', { name: 'Menu' });
    await visible(drawer);
    await drawer.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    const panel = page.getByRole('dialog', { name: 'Keyboard Shortcuts' });
    await visible(panel);
    await hidden(drawer);
    await page.keyboard.press('Escape');
    await hidden(panel);
    env.assertNoConsoleErrors(page);
  });

  it('on a desktop the floating shortcuts button sits in the band above the banner, clear of it (desktop)', async () => {
    const { page, aside } = await openWithBanner('desktop', '/');
    const button = page.getByTestId('shortcuts-button');
    await visible(button);
    const b = await button.boundingBox();
    const a = await aside.boundingBox();
    assert.ok(b.y + b.height <= a.y, 'above the banner, not over it');
    const band = await bottomBand(page);
    assert.ok(b.y >= band.top - 0.5, 'inside the band the page keeps room for');
    await button.click();
    await visible(page.getByRole('dialog', { name: 'Keyboard Shortcuts' }));
    env.assertNoConsoleErrors(page);
  });
});
