// The shell: routes, navigation, drawer, privacy panel, footer, shortcuts,
// bottom banner and the 404 screen, on desktop and phone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  useSuite,
  appReady,
  VIEWPORT_NAMES,
  visible,
  hidden,
  hasAttr,
  hasText,
  atPath,
  eventually,
  gotoApp,
  EXPECTED_FAILED_LOAD, NAV } from './harness.mjs';

// The app's route table: the routes whose pages exist answer 200 with the shell. The
// routes of features not built yet answer the shell with 404, like any unknown path, so the
// server and the app's 404 screen agree; each moves to APP_ROUTES with its page.
const APP_ROUTES = ['/', '/commands', '/guides', '/community', '/admin', '/admin-access', '/generate-key', '/login', '/account', '/api-docs', '/advertise', '/badge-monitor', '/newgen-detector', '/discord-bot-api', '/discord-news'];
const LATER_ROUTES = [];
const NOT_FOUND_PATH = '/no-such-page-e2e';

/** Where the shell's links are: the top bar on desktop, the drawer (opened here) on phones. */
async function navArea(page, vp) {
  await appReady(page); // after a reload too: the home page is painted before the app starts
  if (vp === 'desktop') {
    const header = page.locator('header');
    await visible(header.getByRole('navigation', { name: 'Main' }));
    await header.locator('nav[data-fit="true"]').waitFor({ state: 'attached' }); // the bar has measured what fits
    return header;
  }
  const burger = page.getByRole('button', { name: 'Open menu' });
  await visible(burger);
  await burger.click();
  const drawer = page.getByRole('dialog', { name: 'Menu' });
  await visible(drawer);
  return drawer;
}

/** The main-navigation link `name` in the visible nav area. */
function navLink(area, name) {
  return area.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
}

/** The link `name` in sight: in the bar or the drawer, or else under the bar's "More" button (opened here). */
async function shownNavLink(area, name) {
  const link = navLink(area, name);
  if (await link.isVisible()) return link;
  const more = area.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'More' });
  if ((await more.getAttribute('aria-expanded')) !== 'true') await more.click();
  return visible(link);
}

/** Any CSS colour as [r, g, b] (sRGB), computed by painting it in the page. */
async function rgbOf(locator) {
  return locator.evaluate((el) => {
    const c = document.createElement('canvas');
    c.width = c.height = 1;
    const ctx = c.getContext('2d');
    ctx.fillStyle = getComputedStyle(el).color;
    ctx.fillRect(0, 0, 1, 1);
    return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3));
  });
}

async function openPrivacy(page, vp) {
  const area = await navArea(page, vp);
  await area.getByRole('button', { name: 'Privacy', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Privacy Settings' });
  await visible(dialog);
  return dialog;
}

function privacyBoxes(dialog) {
  return {
    ipLogging: dialog.getByRole('checkbox', { name: /^IP logging/i }),
    analytics: dialog.getByRole('checkbox', { name: /^Analytics/i }),
    functional: dialog.getByRole('checkbox', { name: /^Functional/i }),
    marketing: dialog.getByRole('checkbox', { name: /^Marketing/i }),
  };
}

async function privacyState(dialog) {
  const b = privacyBoxes(dialog);
  const out = {};
  for (const [k, loc] of Object.entries(b)) out[k] = await loc.isChecked();
  out.functionalDisabled = await b.functional.isDisabled();
  return out;
}

const DEFAULTS = { ipLogging: false, analytics: false, functional: true, marketing: false, functionalDisabled: true };

/** The shell without its head: the same on every route (the head carries each route's title, description, link card). */
/** The shell after its head, with the app root emptied (the home shell carries its first screen in it). */
function shellBody(html) {
  return html.slice(html.indexOf('</head>')).replace(/<div id="app">[\s\S]*<\/div>(\s*<\/body>)/, '<div id="app"></div>$1');
}

async function privacyCookie(context) {
  const c = (await context.cookies()).find((x) => x.name === 'fanhub_privacy');
  return c ? JSON.parse(decodeURIComponent(c.value)) : null;
}

describe('shell', () => {
  const env = useSuite();

  it('the server answers 200 with the app shell for the shell routes, 404 for unknown paths', async () => {
    const shell = shellBody(await (await env.fetch('/')).text());
    assert.match(shell, /<div id="app">/);
    for (const { path } of NAV) {
      const res = await env.fetch(path);
      assert.equal(res.status, 200, `GET ${path}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, `GET ${path} content-type`);
      assert.equal(shellBody(await res.text()), shell, `GET ${path} is the app shell`);
    }
    const missing = await env.fetch(NOT_FOUND_PATH);
    assert.equal(missing.status, 404, `GET ${NOT_FOUND_PATH}`);
    assert.match(missing.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(shellBody(await missing.text()), shell, 'the 404 answer carries the app shell');

    const api = await env.fetch('/api/no-such-endpoint');
    assert.equal(api.status, 404);
    assert.match(api.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(typeof (await api.json()).error, 'string');
  });

  it('the server answers 200 with the app shell for every route the app has', async () => {
    const shell = shellBody(await (await env.fetch('/')).text());
    const wrong = [];
    for (const route of APP_ROUTES) {
      const res = await env.fetch(route);
      const body = shellBody(await res.text());
      if (res.status !== 200 || body !== shell) wrong.push(`${route} -> ${res.status}${body === shell ? '' : ' (not the shell)'}`);
    }
    for (const route of LATER_ROUTES) {
      const res = await env.fetch(route);
      const body = shellBody(await res.text());
      if (res.status !== 404 || body !== shell) wrong.push(`${route} -> ${res.status}${body === shell ? '' : ' (not the shell)'}`);
    }
    assert.deepEqual(wrong, [], 'app routes answer 200, routes of unbuilt features 404, both with the app shell');
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`each shell route renders with its nav item marked aria-current="page" (${vp})`, async () => {
      for (const { path } of NAV) {
        const page = await env.open(vp, null);
        const res = await gotoApp(page, path);
        assert.equal(res.status(), 200, `GET ${path}`);
        await visible(page.locator('main h1'));
        assert.equal(await page.getByText('404 Page Not Found').count(), 0, `${path} is not the 404 screen`);
        const area = await navArea(page, vp);
        for (const item of NAV) {
          const link = await shownNavLink(area, item.name);
          assert.equal(await link.getAttribute('href'), item.path);
          await hasAttr(link, 'aria-current', item.path === path ? 'page' : null);
        }
        env.assertNoConsoleErrors(page);
        await page.context().close();
      }
    });

    it(`navigation links move between routes and the highlight follows (${vp})`, async () => {
      const page = await env.open(vp, '/');
      for (const target of [...NAV.slice(1), NAV[0]]) {
        const area = await navArea(page, vp);
        await (await shownNavLink(area, target.name)).click();
        await atPath(page, target.path);
        if (vp === 'phone') {
          // choosing an item closes the drawer
          await hidden(page.getByRole('dialog', { name: 'Menu' }));
        }
        const again = await navArea(page, vp);
        await hasAttr(await shownNavLink(again, target.name), 'aria-current', 'page');
        for (const other of NAV.filter((n) => n !== target)) {
          await hasAttr(await shownNavLink(again, other.name), 'aria-current', null);
        }
        if (vp === 'phone') {
          await page.keyboard.press('Escape');
          await hidden(page.getByRole('dialog', { name: 'Menu' }));
        }
      }
      env.assertNoConsoleErrors(page);
    });

    if (vp === 'phone') {
      it('phone: the top bar collapses into a drawer opened by the hamburger', async () => {
        const page = await env.open('phone', '/');
        // the desktop link row is hidden on phones
        assert.equal(await page.locator('header').getByRole('navigation', { name: 'Main' }).isVisible(), false);
        const burger = page.getByRole('button', { name: 'Open menu' });
        await hasAttr(burger, 'aria-expanded', 'false');
        await burger.click();
        const drawer = page.getByRole('dialog', { name: 'Menu' });
        await visible(drawer);
        await hasAttr(burger, 'aria-expanded', 'true');
        for (const item of NAV) await visible(navLink(drawer, item.name));
        // Esc closes it too
        await page.keyboard.press('Escape');
        await hidden(drawer);
        env.assertNoConsoleErrors(page);
      });
    }

    it(`Made-by credit is shown in the navigation (${vp})`, async () => {
      const site = await env.api('/api/site');
      const page = await env.open(vp, '/');
      const area = await navArea(page, vp);
      const madeBy = area.locator('a').filter({ hasText: /made by/i });
      await eventually(
        async () => assert.ok(await madeBy.first().isVisible(), 'a Made-by credit link is visible in the navigation'),
        { timeout: 5000 },
      );
      assert.equal(await madeBy.count(), 1, 'one Made-by link in the navigation');
      assert.match(await madeBy.innerText(), new RegExp(`Made by\\s+${site.madeBy.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.equal(await madeBy.getAttribute('href'), site.madeBy.url);
      assert.equal(await madeBy.getAttribute('target'), '_blank');
      env.assertNoConsoleErrors(page);
    });

    it(`Play Game and chat-community links open a new tab; red Admin entry links to /admin (${vp})`, async () => {
      const site = await env.api('/api/site');
      const page = await env.open(vp, '/');
      const area = await navArea(page, vp);

      const play = area.getByRole('link', { name: /play game/i });
      await visible(play);
      assert.equal(await play.getAttribute('href'), site.links.game);
      assert.equal(await play.getAttribute('target'), '_blank');
      assert.match((await play.getAttribute('rel')) ?? '', /noopener/);

      const chat = area.locator(`a[href="${site.links.community}"]`).filter({ hasText: /chat|community/i });
      await visible(chat);
      assert.equal(await chat.first().getAttribute('target'), '_blank');

      const admin = area.getByRole('link', { name: 'Admin', exact: true });
      await visible(admin);
      assert.equal(await admin.getAttribute('href'), '/admin');
      const [r, g, b] = await rgbOf(admin);
      assert.ok(r > 150 && r > 1.6 * g && r > 1.6 * b, `the Admin entry is red (rgb ${r},${g},${b})`);
      env.assertNoConsoleErrors(page);
    });

    it(`footer: System Info (V-1.6, DEVELOPMENT, start time, build id), credits, copyright (${vp})`, async () => {
      const site = await env.api('/api/site');
      const health = await env.api('/api/health');
      assert.equal(site.version.label, 'V-1.6');
      assert.equal(site.version.status, 'DEVELOPMENT');
      assert.equal(health.version, '1.6.0');
      assert.ok(health.build, 'health has a build id');
      const page = await env.open(vp, '/');
      const footer = page.locator('footer');
      await footer.scrollIntoViewIfNeeded();
      await visible(footer.getByText('System Info'));
      const started = await page.evaluate((iso) => { const d = new Date(iso); return `${d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' })}, ${d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' })}`; }, health.startedAt);
      await eventually(async () => {
        const text = (await footer.innerText()).replace(/\s+/g, ' ');
        assert.ok(text.includes('V-1.6'), 'version V-1.6');
        assert.ok(text.includes('DEVELOPMENT'), 'status DEVELOPMENT');
        assert.ok(text.includes(health.build), `build id ${health.build}`);
        assert.ok(text.replace(/\u202f/g, ' ').includes(started.replace(/\u202f/g, ' ')), `start time ${started}`);
        assert.match(text, /System Info/i, 'System Info heading');
        assert.match(text, /Credits/i, 'Credits heading');
        for (const c of site.credits) assert.ok(text.includes(c.name) && text.includes(c.role), `credit ${c.name}`);
        assert.ok(text.includes(site.copyright), 'copyright line');
      });
      assert.ok(site.credits.length >= 1);
      assert.match(site.copyright, /©|copyright/i);
      env.assertNoConsoleErrors(page);
    });

    it(`privacy panel: defaults; Save Preferences persists across reload; Reset Consent restores defaults (${vp})`, async () => {
      const page = await env.open(vp, '/');
      const context = page.context();
      let dialog = await openPrivacy(page, vp);
      assert.deepEqual(await privacyState(dialog), DEFAULTS);
      assert.equal(await privacyCookie(context), null, 'no preference cookie before saving');

      let boxes = privacyBoxes(dialog);
      await boxes.analytics.click();
      await boxes.marketing.click();
      await boxes.functional.click({ force: true }).catch(() => {}); // locked: must stay on
      assert.deepEqual(await privacyState(dialog), { ...DEFAULTS, analytics: true, marketing: true });
      await dialog.getByRole('button', { name: 'Save Preferences' }).click();
      await hidden(dialog);
      const saved = await privacyCookie(context);
      assert.deepEqual(
        saved && { ipLogging: saved.ipLogging, analytics: saved.analytics, marketing: saved.marketing, functional: saved.functional },
        { ipLogging: false, analytics: true, marketing: true, functional: true },
        'fanhub_privacy cookie holds the saved preferences',
      );

      await page.reload();
      dialog = await openPrivacy(page, vp);
      assert.deepEqual(await privacyState(dialog), { ...DEFAULTS, analytics: true, marketing: true }, 'kept after reload');

      boxes = privacyBoxes(dialog);
      await boxes.ipLogging.click();
      assert.equal(await boxes.ipLogging.isChecked(), true);
      await dialog.getByRole('button', { name: 'Reset Consent' }).click();
      await eventually(async () => assert.deepEqual(await privacyState(dialog), DEFAULTS));

      await page.reload();
      dialog = await openPrivacy(page, vp);
      assert.deepEqual(await privacyState(dialog), DEFAULTS, 'defaults after Reset Consent and reload');
      env.assertNoConsoleErrors(page);
    });

    it(`privacy panel: Clear All Data clears localStorage and cookies and reloads (${vp})`, async () => {
      const page = await env.open(vp, '/');
      const context = page.context();
      let dialog = await openPrivacy(page, vp);
      await privacyBoxes(dialog).analytics.click();
      await dialog.getByRole('button', { name: 'Save Preferences' }).click();
      await hidden(dialog);
      await page.evaluate(() => {
        localStorage.setItem('e2e-marker', '1');
        document.cookie = 'e2e_marker=1; Path=/';
        window.__e2eNotReloaded = true;
      });
      assert.ok(await privacyCookie(context));

      dialog = await openPrivacy(page, vp);
      const loaded = page.waitForEvent('load');
      await dialog.getByRole('button', { name: 'Clear All Data' }).click();
      await loaded;
      await page.locator('nav').first().waitFor({ state: 'attached' });
      assert.equal(await page.evaluate(() => window.__e2eNotReloaded), undefined, 'the page reloaded');
      assert.equal(await page.evaluate(() => localStorage.getItem('e2e-marker')), null, 'localStorage cleared');
      assert.equal(await page.evaluate(() => localStorage.getItem('fanhub_privacy')), null, 'saved preferences cleared');
      const names = (await context.cookies()).map((c) => c.name);
      assert.ok(!names.includes('e2e_marker'), `cookies cleared (left: ${names.join(', ')})`);
      assert.ok(!names.includes('fanhub_privacy'), `privacy cookie cleared (left: ${names.join(', ')})`);

      dialog = await openPrivacy(page, vp);
      assert.deepEqual(await privacyState(dialog), DEFAULTS);
      env.assertNoConsoleErrors(page);
    });

    it(`floating shortcuts button (bottom right) opens the panel, or on a touch phone the menu's entry; Esc closes it (${vp})`, async () => {
      const page = await env.open(vp, '/');
      if (vp === 'phone') {
        // On a touch phone the bottom band has no room for it: the menu has the entry (see phone-band.test.mjs).
        assert.equal(await page.getByTestId('shortcuts-button').isVisible(), false);
        await page.getByRole('button', { name: 'Open menu' }).click();
        await page.getByRole('dialog', { name: 'Menu' }).getByRole('button', { name: 'Keyboard shortcuts' }).click();
      } else {
        const button = page.getByRole('button', { name: 'Keyboard shortcuts' });
        await visible(button);
        const box = await button.boundingBox();
        const { width, height } = page.viewportSize();
        assert.ok(box.x > width / 2 && box.x + box.width <= width, `on the right (x=${box.x})`);
        assert.ok(box.y > height / 2 && box.y + box.height <= height, `at the bottom (y=${box.y})`);
        await button.click();
      }
      const panel = page.getByRole('dialog', { name: 'Keyboard Shortcuts' });
      await visible(panel);
      const text = await panel.innerText();
      for (const k of ['K', '?', '1', '2', '3', '4', 'Esc']) assert.ok(text.includes(k), `panel lists ${k}`);
      await page.keyboard.press('Escape');
      await hidden(panel);
      env.assertNoConsoleErrors(page);
    });

    it(`keyboard: Ctrl+K focuses the commands search, ignored while typing; Ctrl+? opens the panel (${vp})`, async () => {
      const page = await env.open(vp, '/commands');
      const search = page.getByPlaceholder('Search commands...');
      await visible(search);
      await page.locator('main h1').click();
      assert.equal(await search.evaluate((el) => el === document.activeElement), false);
      await page.keyboard.press('Control+k');
      await eventually(async () => assert.equal(await search.evaluate((el) => el === document.activeElement), true));
      // Cmd+K (macOS) does the same
      await page.locator('main h1').click();
      await page.keyboard.press('Meta+k');
      await eventually(async () => assert.equal(await search.evaluate((el) => el === document.activeElement), true));

      // while typing in another input or textarea, Ctrl+K is left alone
      for (const tag of ['input', 'textarea']) {
        await page.evaluate((t) => {
          const el = document.createElement(t);
          el.id = `e2e-typing-${t}`;
          document.querySelector('main').prepend(el);
        }, tag);
        const field = page.locator(`#e2e-typing-${tag}`);
        await field.click();
        await page.keyboard.type('ab');
        await page.keyboard.press('Control+k');
        await page.waitForTimeout(150);
        assert.equal(await field.evaluate((el) => el === document.activeElement), true, `focus stays in the ${tag}`);
        await field.evaluate((el) => el.remove());
      }

      await page.locator('main h1').click();
      await page.keyboard.press('Control+Shift+Slash'); // Ctrl+?
      const panel = page.getByRole('dialog', { name: 'Keyboard Shortcuts' });
      await visible(panel);
      await page.keyboard.press('Escape');
      await hidden(panel);
      env.assertNoConsoleErrors(page);
    });

    it(`keyboard: Alt+1..4 go to Home, Commands, Guides, Community (${vp})`, async () => {
      const page = await env.open(vp, '/guides');
      await visible(page.locator('main h1'));
      for (const [key, path] of [
        ['Alt+2', '/commands'],
        ['Alt+4', '/community'],
        ['Alt+3', '/guides'],
        ['Alt+1', '/'],
      ]) {
        await page.keyboard.press(key);
        await atPath(page, path);
        await visible(page.locator('main h1'));
      }
      if (vp === 'desktop') await hasAttr(navLink(page.locator('header'), 'Home'), 'aria-current', 'page');
      env.assertNoConsoleErrors(page);
    });

    it(`default bottom banner shows EXCLUSIVE in the default colours; its close button hides it (${vp})`, async () => {
      const site = await env.api('/api/site');
      const active = await env.api('/api/admin/active-banner');
      assert.equal(active.advertisement, null);
      assert.equal(active.banner.isActive, false);
      assert.deepEqual(site.defaultBanner, { backgroundColor: '#7c3aed', textColor: '#ffffff', borderColor: '#8b5cf6' });

      const page = await env.open(vp, '/');
      const banner = page.getByRole('complementary', { name: 'Announcement' });
      await visible(banner);
      await visible(banner.getByText('EXCLUSIVE', { exact: true }));
      await visible(banner.getByText(site.clan.name).first());
      const bg = await banner.evaluate((el) => getComputedStyle(el).backgroundColor);
      assert.equal(bg, 'rgb(124, 58, 237)', 'purple #7c3aed background');
      const close = banner.getByRole('button', { name: /close/i });
      const box = await close.boundingBox();
      assert.ok(box, 'the banner has a visible close button');
      if (vp === 'phone') assert.ok(box.width >= 44 && box.height >= 44, `larger close button on touch (${box.width}x${box.height})`);
      await close.click();
      await hidden(banner);
      assert.equal(await page.getByText('EXCLUSIVE', { exact: true }).count(), 0);
      env.assertNoConsoleErrors(page);
    });

    it(`unknown path: '404 Page Not Found' screen and HTTP 404 (${vp})`, async () => {
      const page = await env.open(vp, null);
      const res = await gotoApp(page, NOT_FOUND_PATH);
      assert.equal(res.status(), 404);
      await visible(page.getByRole('heading', { name: '404 Page Not Found' }));
      await hasText(page, 'Did you forget to add the page to the router?');
      // the shell is still there, with no nav item highlighted
      const area = await navArea(page, vp);
      for (const item of NAV) await hasAttr(await shownNavLink(area, item.name), 'aria-current', null);
      // Chromium logs the document's own 404; nothing else may be logged
      env.assertNoConsoleErrors(page, { allow: [EXPECTED_FAILED_LOAD] });
    });
  }
});
