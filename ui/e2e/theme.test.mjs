// The colour theme (src/lib/theme.ts): the control in the navigation switches light, dark and system,
// the choice survives a reload, 'system' follows the system's setting as it changes, and the stored
// theme is on the page before the app's script runs (the inline script in the head, allowed by the
// CSP). Also the home page's Player Builds pictures: sized before they load, lazy, and loading.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, visible, hasAttr, eventually } from './harness.mjs';

/** The luminance (0..1) of a colour given as `[r, g, b]`. */
function luminance([r, g, b]) {
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

/** An element's computed colour property as [r, g, b] (computed colours may be lab() or oklch(): a canvas converts them). */
const colourOf = (locator, property) =>
  locator.evaluate((el, prop) => {
    const ctx = Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext('2d');
    ctx.fillStyle = getComputedStyle(el)[prop];
    ctx.fillRect(0, 0, 1, 1);
    return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3));
  }, property);
const bodyBackground = (page) => colourOf(page.locator('body'), 'backgroundColor');
const htmlTheme = (page) => page.locator('html').getAttribute('data-theme');
const stored = (page) => page.evaluate(() => localStorage.getItem('fanhub_theme'));

describe('theme', () => {
  const env = useSuite();

  it('the bar control cycles light, dark, system; the choice survives a reload; system follows the setting (desktop)', async () => {
    const page = await env.open('desktop', '/', { contextOptions: { colorScheme: 'light' } });
    const toggle = page.locator('header').getByTestId('theme-toggle');
    await visible(toggle);
    // a first visit follows the system
    await hasAttr(toggle, 'data-theme-choice', 'system');
    assert.equal(await htmlTheme(page), 'light');
    assert.ok(luminance(await bodyBackground(page)) > 0.9, 'a light page');
    assert.match(await toggle.getAttribute('aria-label'), /^Theme: System \(switch to Light\)$/);

    await toggle.click();
    await hasAttr(toggle, 'data-theme-choice', 'light');
    assert.equal(await stored(page), 'light');
    await toggle.click();
    await hasAttr(toggle, 'data-theme-choice', 'dark');
    await hasAttr(page.locator('html'), 'data-theme', 'dark');
    assert.equal(await stored(page), 'dark');
    assert.ok(luminance(await bodyBackground(page)) < 0.1, 'a dark page although the system asks for light');

    await page.reload();
    await visible(toggle);
    await hasAttr(toggle, 'data-theme-choice', 'dark');
    assert.equal(await htmlTheme(page), 'dark', 'the choice survives a reload');

    await toggle.click();
    await hasAttr(toggle, 'data-theme-choice', 'system');
    assert.equal(await stored(page), null, "'system' is stored as no choice");
    await hasAttr(page.locator('html'), 'data-theme', 'light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await hasAttr(page.locator('html'), 'data-theme', 'dark');
    await eventually(async () => assert.ok(luminance(await bodyBackground(page)) < 0.1));
    await page.emulateMedia({ colorScheme: 'light' });
    await hasAttr(page.locator('html'), 'data-theme', 'light');
    env.assertNoConsoleErrors(page);
  });

  it("the drawer's three choices, the pressed one the current (phone)", async () => {
    const page = await env.open('phone', '/', { contextOptions: { colorScheme: 'dark' } });
    await page.getByRole('button', { name: 'Open menu' }).click();
    const group = page.getByRole('dialog', { name: 'Menu' }).getByRole('group', { name: 'Theme' });
    await visible(group);
    const choice = (name) => group.getByRole('button', { name, exact: true });
    await hasAttr(choice('System'), 'aria-pressed', 'true');
    await choice('Light').click();
    await hasAttr(choice('Light'), 'aria-pressed', 'true');
    await hasAttr(choice('System'), 'aria-pressed', 'false');
    await hasAttr(page.locator('html'), 'data-theme', 'light');
    const box = await choice('Light').boundingBox();
    assert.ok(box && box.height >= 44, `a 44 px target (${box?.height})`);
    await page.reload();
    await hasAttr(page.locator('html'), 'data-theme', 'light');
    env.assertNoConsoleErrors(page);
  });

  it("the stored theme is on the server's first screen before any of the app's scripts run", async () => {
    for (const [choice, system, want] of [
      ['light', 'dark', 'light'],
      ['dark', 'light', 'dark'],
      [null, 'light', 'light'],
    ]) {
      const page = await env.open('desktop', null, { contextOptions: { colorScheme: system } });
      await page.context().addInitScript((c) => {
        if (c) localStorage.setItem('fanhub_theme', c);
      }, choice);
      // The app's bundle never arrives: what shows is the HTML, its inline style and inline scripts.
      await page.route('**/assets/*.js', (route) => route.abort());
      const violations = [];
      page.on('console', (m) => /Content Security Policy/i.test(m.text()) && violations.push(m.text()));
      await page.goto('/', { waitUntil: 'domcontentloaded' });
      assert.equal(await htmlTheme(page), want, `stored ${choice}, system ${system}`);
      const h1 = page.locator('main h1');
      await visible(h1);
      const [bg, text] = [await bodyBackground(page), await colourOf(h1, 'color')];
      if (want === 'light') assert.ok(luminance(bg) > 0.9 && luminance(text) < 0.2, `light: ${bg} / ${text}`);
      else assert.ok(luminance(bg) < 0.1 && luminance(text) > 0.9, `dark: ${bg} / ${text}`);
      assert.deepEqual(violations, [], 'the inline theme script is allowed by the CSP');
      await page.context().close();
    }
  });
});

describe('player builds pictures', () => {
  const env = useSuite();

  it('each card has a sized, lazy picture from site.toml that loads, with its alt text', async () => {
    const site = await env.api('/api/site');
    assert.equal(site.showcase.length, 3);
    assert.ok(site.showcase.every((s) => s.image && s.alt), 'the bundled site.toml gives every card a picture and its alt text');
    for (const vp of ['desktop', 'phone']) {
      const page = await env.open(vp, '/');
      const pictures = page.getByTestId('showcase-picture');
      await eventually(async () => assert.equal(await pictures.count(), 3));
      for (let i = 0; i < 3; i++) {
        const img = pictures.nth(i);
        assert.equal(await img.getAttribute('width'), '480');
        assert.equal(await img.getAttribute('height'), '270');
        assert.equal(await img.getAttribute('loading'), 'lazy', 'below the fold');
        assert.equal(await img.getAttribute('src'), site.showcase[i].image);
        assert.equal(await img.getAttribute('alt'), site.showcase[i].alt);
        // Its box is reserved before the file arrives: 16:9 of the card's width.
        const box = await img.boundingBox();
        assert.ok(box && Math.abs(box.height - (box.width * 9) / 16) < 2, `16:9 box (${box?.width}x${box?.height})`);
      }
      const top = await pictures.first().evaluate((e) => e.getBoundingClientRect().top);
      assert.ok(top > (vp === 'phone' ? 844 : 800), `the pictures start below the first screen (${top})`);
      await pictures.last().scrollIntoViewIfNeeded();
      for (let i = 0; i < 3; i++) {
        await eventually(async () =>
          assert.ok(await pictures.nth(i).evaluate((e) => e.complete && e.naturalWidth > 0), `picture ${i + 1} loaded`),
        );
      }
      const res = await env.fetch(site.showcase[0].image, { headers: { 'accept-encoding': 'br' } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type'), /^image\/svg\+xml/);
      assert.equal(res.headers.get('content-encoding'), 'br');
      assert.ok(Number(res.headers.get('content-length')) < 6000, `a few KB over the wire (${res.headers.get('content-length')})`);
      await res.arrayBuffer();
      env.assertNoConsoleErrors(page);
    }
  });
});
