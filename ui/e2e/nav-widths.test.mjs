// The top navigation at laptop and desktop widths: from 1024 px up every page's link is either
// wholly in sight in the bar (not clipped, the bar not scrolling) or one click away under the
// visible "More" button (a disclosure: aria-expanded, Escape, focus back, arrow keys); below
// 1024 px the drawer holds them all.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, visible, hidden, hasAttr, atPath, eventually, NAV } from './harness.mjs';
import { axeViolations, assertClean } from './axe.mjs';

const BAR_WIDTHS = [1024, 1280, 1366, 1440, 1920];
const DRAWER_WIDTHS = [800, 1023];

function at(width) {
  return { contextOptions: { viewport: { width, height: 800 } } };
}

/**
 * Where each item is: `bar` (in sight in the bar) or `more` (under the More button), checked as it
 * goes; retried while the bar settles after the app starts.
 */
async function placeItems(page, width) {
  const nav = page.locator('header').getByRole('navigation', { name: 'Main' });
  await visible(nav);
  return eventually(() => checkPlaces(page, nav, width), { timeout: 5000 });
}

async function checkPlaces(page, nav, width) {
  const geometry = await nav.evaluate((el) => {
    const list = el.querySelector('ul');
    const box = (e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    return {
      list: box(list),
      nav: box(el),
      listScroll: [list.scrollWidth, list.clientWidth],
      navScroll: [el.scrollWidth, el.clientWidth],
      header: box(el.closest('header')),
    };
  });
  assert.ok(geometry.listScroll[0] <= geometry.listScroll[1], `${width}px: the bar's list does not scroll sideways (${geometry.listScroll})`);
  assert.ok(geometry.navScroll[0] <= geometry.navScroll[1], `${width}px: the bar does not scroll sideways (${geometry.navScroll})`);

  const more = nav.getByRole('button', { name: 'More' });
  const places = {};
  for (const item of NAV) {
    const link = nav.getByRole('link', { name: item.name, exact: true });
    if ((await link.count()) === 1 && (await link.isVisible())) {
      const b = await link.boundingBox();
      const inside = (outer) => b.x >= outer.left - 0.5 && b.x + b.width <= outer.right + 0.5 && b.y >= outer.top - 0.5 && b.y + b.height <= outer.bottom + 0.5;
      assert.ok(b.x >= 0 && b.x + b.width <= width, `${width}px: ${item.name} is inside the viewport (${b.x}..${b.x + b.width})`);
      assert.ok(inside(geometry.list), `${width}px: ${item.name} is not clipped by the bar (${JSON.stringify(b)} in ${JSON.stringify(geometry.list)})`);
      assert.ok(inside(geometry.header), `${width}px: ${item.name} is inside the header`);
      places[item.name] = 'bar';
    } else {
      places[item.name] = 'more';
    }
  }
  if (Object.values(places).includes('more')) {
    await visible(more);
    const b = await more.boundingBox();
    assert.ok(b.x >= 0 && b.x + b.width <= width, `${width}px: the More button is inside the viewport`);
    assert.ok(b.x + b.width <= geometry.list.right + 0.5, `${width}px: the More button is not clipped by the bar`);
  } else {
    assert.equal(await more.count(), 0, `${width}px: no More button when every item is in the bar`);
  }
  return { nav, more, places };
}

describe('navigation at laptop and desktop widths', () => {
  const env = useSuite();

  for (const width of BAR_WIDTHS) {
    it(`${width}px: every item is in sight in the bar or under More, and each click reaches its page`, async () => {
      const page = await env.open('desktop', '/guides', at(width));
      const { places } = await placeItems(page, width);
      const inBar = NAV.filter((n) => places[n.name] === 'bar').map((n) => n.name);
      assert.deepEqual(inBar, NAV.slice(0, inBar.length).map((n) => n.name), `${width}px: the bar keeps the first items, in order`);
      assert.ok(inBar.length >= 3, `${width}px: at least three items stay in the bar (${inBar})`);
      for (const item of NAV) {
        const { nav, more } = await placeItems(page, width);
        let link = nav.getByRole('link', { name: item.name, exact: true });
        if (places[item.name] === 'more') {
          await hasAttr(more, 'aria-expanded', 'false');
          await more.click();
          await hasAttr(more, 'aria-expanded', 'true');
          link = page.locator(`#${await more.getAttribute('aria-controls')}`).getByRole('link', { name: item.name, exact: true });
          await visible(link);
          const b = await link.boundingBox();
          const vp = page.viewportSize();
          assert.ok(b.x >= 0 && b.x + b.width <= vp.width && b.y + b.height <= vp.height, `${width}px: ${item.name} in the menu is in sight`);
        }
        await link.click();
        await atPath(page, item.path);
        await visible(page.locator('main h1'));
        if (places[item.name] === 'more') await hasAttr(more, 'aria-expanded', 'false');
        // Every copy of the link (in the bar, hidden or not, and under More) marks the current page.
        await eventually(async () => {
          const marks = await nav.getByRole('link', { name: item.name, exact: true, includeHidden: true }).evaluateAll((links) => links.map((a) => a.getAttribute('aria-current')));
          assert.ok(marks.length >= 1, `${width}px: ${item.name} is in the bar`);
          assert.deepEqual(marks, marks.map(() => 'page'), `${width}px: ${item.name} is marked as the current page`);
        });
      }
      env.assertNoConsoleErrors(page);
    });
  }

  it('1280px: the More menu opens and closes from the keyboard and gives the focus back', async () => {
    const page = await env.open('desktop', '/', at(1280));
    const { more, places } = await placeItems(page, 1280);
    const hiddenItems = NAV.filter((n) => places[n.name] === 'more');
    assert.ok(hiddenItems.length > 0, 'at 1280px some items are under More');
    const menu = page.locator(`#${await more.getAttribute('aria-controls')}`);

    // Enter opens it, Escape closes it and leaves the focus on the button.
    await more.focus();
    await page.keyboard.press('Enter');
    await hasAttr(more, 'aria-expanded', 'true');
    await visible(menu);
    await page.keyboard.press('Escape');
    await hasAttr(more, 'aria-expanded', 'false');
    await hidden(menu);
    assert.equal(await more.evaluate((el) => el === document.activeElement), true, 'focus on More after Escape');

    // Arrow down opens it on its first link; the arrows move through the links; Escape from a link
    // closes it and gives the focus back to the button.
    await page.keyboard.press('ArrowDown');
    await hasAttr(more, 'aria-expanded', 'true');
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    await eventually(async () => assert.equal(await focused(), hiddenItems[0].name));
    if (hiddenItems.length > 1) {
      await page.keyboard.press('ArrowDown');
      assert.equal(await focused(), hiddenItems[1].name);
      await page.keyboard.press('ArrowUp');
    }
    await page.keyboard.press('ArrowUp');
    assert.equal(await focused(), hiddenItems.at(-1).name, 'ArrowUp from the first link wraps to the last');
    assertClean(await axeViolations(page, { structure: false }), 'More menu open');
    await page.keyboard.press('Escape');
    await hidden(menu);
    assert.equal(await more.evaluate((el) => el === document.activeElement), true, 'focus back on More');

    // Tab past the last link closes it; so does a click elsewhere.
    await page.keyboard.press('Enter');
    await visible(menu);
    for (let i = 0; i < hiddenItems.length + 1; i++) await page.keyboard.press('Tab');
    await hidden(menu);
    await hasAttr(more, 'aria-expanded', 'false');
    await more.click();
    await visible(menu);
    await page.mouse.click(8, 400); // the page's left margin, away from the menu
    await hidden(menu);

    // The keyboard reaches a page through it.
    await more.focus();
    await page.keyboard.press('ArrowDown');
    await eventually(async () => assert.equal(await focused(), hiddenItems[0].name));
    await page.keyboard.press('Enter');
    await atPath(page, hiddenItems[0].path);
    await hidden(menu);
    env.assertNoConsoleErrors(page);
  });

  for (const width of DRAWER_WIDTHS) {
    it(`${width}px: the bar gives way to the drawer, which holds every item`, async () => {
      const page = await env.open('desktop', '/', at(width));
      assert.equal(await page.locator('header').getByRole('navigation', { name: 'Main' }).isVisible(), false);
      const burger = page.getByRole('button', { name: 'Open menu' });
      await visible(burger);
      await burger.click();
      const drawer = page.getByRole('dialog', { name: 'Menu' });
      await visible(drawer);
      for (const item of NAV) await visible(drawer.getByRole('link', { name: item.name, exact: true }));
      await drawer.getByRole('link', { name: 'Updates', exact: true }).click();
      await atPath(page, '/discord-news');
      await hidden(drawer);
      env.assertNoConsoleErrors(page);
    });
  }
});
