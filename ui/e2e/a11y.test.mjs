// Accessibility: axe-core finds no WCAG 2.1 A/AA violation on any route, on desktop and phone, in the dark and
// the light theme, nor with
// the dialogs, the phone drawer, the shortcuts panel and the privacy panel open; every focusable element shows
// a visible focus indicator (the whole tab order of each page, the focused look compared with the unfocused one); dialogs keep focus inside and give it back on close; headings go in order.
//
// The routes come from the server (GET /api/site `pages`, validated at start against the server's route table),
// so a route added later is checked here without anyone editing this file.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, VIEWPORT_NAMES, visible, hidden, gotoApp, eventually, hasAttr, settled, EXPECTED_FAILED_LOAD } from './harness.mjs';
import { adminSessionCookies } from './admin-helpers.mjs';
import { axeViolations, assertClean } from './axe.mjs';

const NOT_FOUND_PATH = '/no-such-page-a11y';

/** Both themes, each reached the way a visitor's system asks for it (the control's default is 'system'). */
const THEMES = /** @type {const} */ (['dark', 'light']);
const inTheme = (theme, opts = {}) => ({ ...opts, contextOptions: { colorScheme: theme } });

const FOCUSABLE = 'a[href], area[href], button, input, select, textarea, iframe, summary, [tabindex], [contenteditable="true"]';

/**
 * Remembers how each focusable element looks while nothing has the focus (outline and box-shadow), so that its
 * focused look can be compared with it; returns how many elements could take the focus (the walk's bound).
 */
async function rememberUnfocusedLooks(page) {
  return page.evaluate((selector) => {
    document.activeElement?.blur?.();
    const looks = new Map();
    for (const el of document.querySelectorAll(selector)) {
      if (el.tabIndex < 0 || el.disabled) continue;
      const s = getComputedStyle(el);
      looks.set(el, { outlineStyle: s.outlineStyle, outlineWidth: s.outlineWidth, outlineColor: s.outlineColor, boxShadow: s.boxShadow });
    }
    window.__a11yUnfocused = looks;
    window.__a11yFirst = null;
    return looks.size;
  }, FOCUSABLE);
}

/**
 * The element Tab just focused and whether it shows where the focus is: an outline of at least 2px in a
 * visible colour (or the browser's own `auto` ring) that it lacks unfocused, or a box-shadow ring that differs
 * from its unfocused box-shadow. An element rendered after the start is measured unfocused by blurring it
 * for a moment. `first` is true when the focus is back on the first element of the walk.
 */
async function focusStep(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return { body: true };
    const lookOf = (e) => {
      const s = getComputedStyle(e);
      return { outlineStyle: s.outlineStyle, outlineWidth: s.outlineWidth, outlineColor: s.outlineColor, boxShadow: s.boxShadow };
    };
    const focused = lookOf(el);
    let unfocused = window.__a11yUnfocused.get(el);
    if (!unfocused) {
      el.blur();
      unfocused = lookOf(el);
      el.focus({ preventScroll: true });
    }
    // Computed colours come as rgb()/rgba() or, for the theme's colours, oklch() and the like with "/ alpha".
    const COLOR = /(?:rgba?|hsla?|oklch|oklab|lab|lch|hwb|color)\([^)]*\)|transparent/;
    const transparent = (color) =>
      color === 'transparent' || /^rgba\((?:[^,]+,){3}\s*0(?:\.0+)?\)$/.test(color) || /\/\s*0(?:\.0+)?%?\)$/.test(color);
    const outlineShown = (l) =>
      l.outlineStyle === 'auto' ||
      (l.outlineStyle !== 'none' && l.outlineStyle !== 'hidden' && parseFloat(l.outlineWidth) >= 2 && !transparent(l.outlineColor));
    // The layers of a computed box-shadow that paint something: a colour that is not transparent, and a
    // blur or spread (the ring of the design is a 0 0 0 Npx spread).
    const paintedLayers = (shadow) =>
      shadow === 'none'
        ? []
        : shadow
            .split(/,(?![^(]*\))/)
            .map((layer) => layer.trim())
            .filter((layer) => {
              const color = COLOR.exec(layer)?.[0] ?? '';
              const lengths = layer.replace(color, '').trim().split(/\s+/).filter((t) => t.endsWith('px')).map(parseFloat);
              return !transparent(color) && lengths.slice(2).some((v) => v > 0);
            });
    const before = new Set(paintedLayers(unfocused.boxShadow));
    const ring = paintedLayers(focused.boxShadow).some((layer) => !before.has(layer));
    const outline = outlineShown(focused) && !(outlineShown(unfocused) && unfocused.outlineColor === focused.outlineColor && unfocused.outlineWidth === focused.outlineWidth);
    const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('placeholder') || '').trim().replace(/\s+/g, ' ');
    const label = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${name.slice(0, 40)}"`;
    const first = window.__a11yFirst === el;
    window.__a11yFirst ??= el;
    return { body: false, first, label, visible: outline || ring };
  });
}

describe('accessibility', () => {
  const env = useSuite();

  it('the server lists a head text for every route, and every route answers 200', async () => {
    const site = await env.api('/api/site');
    assert.ok(Array.isArray(site.pages) && site.pages.length >= 8, 'GET /api/site carries pages');
    for (const p of site.pages) {
      const res = await env.fetch(p.path);
      assert.equal(res.status, 200, `GET ${p.path}`);
      await res.arrayBuffer();
    }
  });

  for (const vp of VIEWPORT_NAMES) {
    for (const theme of THEMES) {
      it(`no axe-core violations on any route, nor on the 404 page (${vp}, ${theme} theme)`, async () => {
        const site = await env.api('/api/site');
        const failures = [];
        for (const path of [...site.pages.map((p) => p.path), NOT_FOUND_PATH]) {
          const page = await env.open(vp, path, inTheme(theme));
          await hasAttr(page.locator('html'), 'data-theme', theme);
          await visible(page.locator('main h1'));
          await settled(page);
          const violations = await axeViolations(page);
          if (violations.length) failures.push(...violations.map((v) => ({ ...v, id: `${path} ${v.id}` })));
          const page404 = path === NOT_FOUND_PATH;
          env.assertNoConsoleErrors(page, { allow: page404 ? [EXPECTED_FAILED_LOAD] : [] });
          await page.context().close();
        }
        assertClean(failures, `${vp}, ${theme} theme`);
      });

      it(`no axe-core violations with the privacy panel, the shortcuts panel${vp === 'phone' ? ' and the drawer' : ''} open (${vp}, ${theme} theme)`, async () => {
        const page = await env.open(vp, '/', inTheme(theme));
        await hasAttr(page.locator('html'), 'data-theme', theme);
        await settled(page);

        if (vp === 'phone') {
          await page.getByRole('button', { name: 'Open menu' }).click();
          const drawer = page.getByRole('dialog', { name: 'Menu' });
          await visible(drawer);
          assertClean(await axeViolations(page, { structure: false }), 'drawer open');
          await drawer.getByRole('button', { name: 'Privacy', exact: true }).click();
        } else {
          await page.locator('header').getByRole('button', { name: 'Privacy', exact: true }).click();
        }
        const privacy = page.getByRole('dialog', { name: 'Privacy Settings' });
        await visible(privacy);
        assertClean(await axeViolations(page, { structure: false }), 'privacy panel open');
        await page.keyboard.press('Escape');
        await hidden(privacy);

        if (vp === 'phone') {
          // the floating button gives way to the menu's entry on a touch phone
          await page.getByRole('button', { name: 'Open menu' }).click();
          await page.getByRole('dialog', { name: 'Menu' }).getByRole('button', { name: 'Keyboard shortcuts' }).click();
        } else {
          await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
        }
        const shortcuts = page.getByRole('dialog', { name: 'Keyboard Shortcuts' });
        await visible(shortcuts);
        assertClean(await axeViolations(page, { structure: false }), 'shortcuts panel open');
        env.assertNoConsoleErrors(page);
      });
    }

    it(`every focusable element shows where the focus is (${vp})`, async () => {
      const site = await env.api('/api/site');
      const missing = [];
      const unfinished = [];
      for (const { path } of site.pages) {
        const page = await env.open(vp, path);
        await visible(page.locator('main h1'));
        await settled(page);
        // The whole tab order: until the focus comes back to the first element, at most once round every
        // focusable element (plus the stop outside the page, and a few rendered meanwhile).
        const bound = (await rememberUnfocusedLooks(page)) + 5;
        let steps = 0;
        let visited = 0;
        for (;;) {
          await page.keyboard.press('Tab');
          const f = await focusStep(page);
          if (f.first) break;
          if (++steps > bound) {
            unfinished.push(`${path}: the focus did not come back to the first element within ${bound} Tabs`);
            break;
          }
          if (f.body) continue;
          visited++;
          if (!f.visible) missing.push(`${path}: ${f.label}`);
        }
        assert.ok(visited > 0, `${path}: Tab focuses something`);
        await page.context().close();
      }
      assert.deepEqual(missing, [], 'elements without a visible focus indicator');
      assert.deepEqual(unfinished, [], 'tab orders that do not come round');
    });

    it(`dialogs keep the focus inside and give it back to their opener (${vp})`, async () => {
      const page = await env.open(vp, '/');
      await settled(page);
      // On a touch phone the floating shortcuts button is hidden: the menu's drawer is the dialog there.
      const opener = page.getByRole('button', { name: vp === 'phone' ? 'Open menu' : 'Keyboard shortcuts' });
      await opener.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: vp === 'phone' ? 'Menu' : 'Keyboard Shortcuts' });
      await visible(dialog);
      await eventually(async () =>
        assert.equal(await dialog.evaluate((d) => d.contains(document.activeElement)), true, 'the dialog takes the focus'),
      );
      for (const key of ['Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
        await page.keyboard.press(key);
        assert.equal(await dialog.evaluate((d) => d.contains(document.activeElement)), true, `focus stays in the dialog after ${key}`);
      }
      await page.keyboard.press('Escape');
      await hidden(dialog);
      await eventually(async () =>
        assert.equal(await opener.evaluate((el) => el === document.activeElement), true, 'focus is back on the opener'),
      );

      // the privacy panel (several controls) too, opened from the navigation
      if (vp === 'phone') {
        await page.getByRole('button', { name: 'Open menu' }).click();
        await page.getByRole('dialog', { name: 'Menu' }).getByRole('button', { name: 'Privacy', exact: true }).click();
      } else {
        await page.locator('header').getByRole('button', { name: 'Privacy', exact: true }).click();
      }
      const privacy = page.getByRole('dialog', { name: 'Privacy Settings' });
      await visible(privacy);
      // The panel moves the focus inside once it has rendered (an effect): on a loaded machine the first
      // Tab could otherwise be pressed before that, which no person's hand is fast enough to do.
      await eventually(async () =>
        assert.equal(await privacy.evaluate((d) => d.contains(document.activeElement)), true, 'the privacy panel takes the focus'),
      );
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press('Tab');
        assert.equal(await privacy.evaluate((d) => d.contains(document.activeElement)), true, `focus stays in the privacy panel (Tab ${i + 1})`);
      }
      env.assertNoConsoleErrors(page);
    });
  }

  it('the document title follows client-side navigation', async () => {
    const site = await env.api('/api/site');
    const page = await env.open('desktop', '/');
    const titleOf = (path) => site.pages.find((p) => p.path === path).documentTitle;
    assert.equal(await page.title(), titleOf('/'), 'server-written title');
    await page.locator('header').getByRole('link', { name: 'Commands', exact: true }).click();
    await eventually(async () => assert.equal(await page.title(), titleOf('/commands')));
    await gotoApp(page, '/guides');
    assert.equal(await page.title(), titleOf('/guides'));
    env.assertNoConsoleErrors(page);
  });
});

describe('accessibility: the admin panel behind the key gate', () => {
  const env = useSuite({ withDataDir: true });

  for (const vp of VIEWPORT_NAMES) {
    for (const theme of THEMES) {
      it(`no axe-core violations on any tab of the admin panel (${vp}, ${theme} theme)`, async () => {
        const cookies = await adminSessionCookies(env, await env.adminKey(`a11y ${vp} ${theme}`));
        const page = await env.open(vp, '/admin', inTheme(theme, { setup: (_, context) => context.addCookies(cookies) }));
        await visible(page.getByRole('heading', { level: 1, name: 'Admin Control Center' }), 15_000);
        const tabs = page.getByRole('tab');
        const count = await tabs.count();
        assert.ok(count >= 8, `the panel has its tabs (found ${count})`);
        const failures = [];
        for (let i = 0; i < count; i++) {
          const tab = tabs.nth(i);
          const name = (await tab.innerText()).trim();
          await tab.click();
          await hasAttr(tab, 'aria-selected', 'true');
          await settled(page);
          for (const v of await axeViolations(page)) failures.push({ ...v, id: `tab ${name}: ${v.id}` });
        }
        assertClean(failures, `admin panel (${vp}, ${theme} theme)`);
        env.assertNoConsoleErrors(page);
      });
    }
  }
});
