// Guides page, on desktop and phone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  useSuite,
  VIEWPORT_NAMES,
  visible,
  hidden,
  hasCount,
  hasText,
  atLeast,
  holdRoute,
  failRoute,
  EXPECTED_FAILED_LOAD,
  eventually,
} from './harness.mjs';
import { axeViolations, assertClean } from './axe.mjs';
import { expectToast } from './admin-helpers.mjs';

describe('guides page', () => {
  const env = useSuite();
  let guides;
  const allGuides = async () => (guides ??= await env.api('/api/guides'));

  it('GET /api/guides returns at least 12 well-formed guides', async () => {
    const list = await allGuides();
    assert.ok(list.length >= 12, `at least 12 guides (got ${list.length})`);
    for (const g of list) {
      assert.equal(typeof g.id, 'number');
      assert.ok(g.title && g.content, `guide ${g.id} has title and content`);
      assert.ok(['Beginner', 'Building', 'Administration', 'Community'].includes(g.category), `guide ${g.id} category`);
      assert.ok(['easy', 'intermediate', 'advanced'].includes(g.difficulty), `guide ${g.id} difficulty`);
      assert.ok(Array.isArray(g.tags), `guide ${g.id} tags`);
    }
    assert.ok(list.some((g) => g.tags.length > 2), 'some guide has more than 2 tags (so the cut to 2 is exercised)');
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`getting started has four steps; tips, best practices, server types and external links (${vp})`, async () => {
      const site = await env.api('/api/site');
      assert.equal(site.gettingStarted.length, 4);
      const page = await env.open(vp, '/guides');
      const steps = page.getByTestId('getting-started-step');
      await hasCount(steps, 4);
      const stepText = (await steps.allInnerTexts()).join(' | ').toLowerCase();
      for (const s of site.gettingStarted) assert.ok(stepText.includes(s.title.toLowerCase()), `step ${s.title}`);
      // the four steps: join a server, get building tools, start building, participate in elections
      for (const word of ['join', 'tools', 'build', 'election']) {
        assert.ok(stepText.includes(word), `a getting-started step about "${word}"`);
      }

      for (const tip of site.buildingTips) await visible(page.getByTestId('building-tips').getByText(tip, { exact: true }));
      for (const tip of site.adminBestPractices) {
        await visible(page.getByTestId('admin-best-practices').getByText(tip, { exact: true }));
      }
      await hasCount(page.getByTestId('server-type'), site.serverTypes.length);
      assert.ok(site.serverTypes.length >= 1);

      const main = page.locator('main');
      for (const href of [site.links.wiki, site.links.game, site.links.community]) {
        const link = main.locator(`a[href="${href}"]`);
        assert.ok((await link.count()) >= 1, `a link to ${href} on the guides page`);
        assert.equal(await link.first().getAttribute('target'), '_blank');
      }
      env.assertNoConsoleErrors(page);
    });

    it(`guide cards: difficulty badge, category badge, at most 2 tags (${vp})`, async () => {
      const list = await allGuides();
      const page = await env.open(vp, '/guides');
      const cards = page.getByTestId('guide-card');
      await atLeast(cards, 12);
      await hasCount(cards, list.length);
      for (const g of list) {
        const card = cards.filter({ has: page.getByRole('heading', { name: g.title, exact: true }) });
        assert.equal(await card.count(), 1, `one card titled "${g.title}"`);
        assert.equal((await card.getByTestId('guide-difficulty').innerText()).trim().toLowerCase(), g.difficulty);
        assert.equal((await card.getByTestId('guide-category').innerText()).trim(), g.category);
        const tags = (await card.getByTestId('guide-tag').allInnerTexts()).map((t) => t.trim().replace(/^#/, ''));
        assert.deepEqual(tags, g.tags.slice(0, 2), `guide "${g.title}" shows its first 2 tags`);
        // the card shows the opening of the guide; the reading view has the rest
        const firstParagraph = g.content.split(/\n\s*\n/)[0].trim().slice(0, 60);
        assert.ok(
          (await card.innerText()).replace(/\s+/g, ' ').includes(firstParagraph.replace(/\s+/g, ' ')),
          `guide "${g.title}" shows its content`,
        );
      }
      env.assertNoConsoleErrors(page);
    });

    it(`three skeletons while the guides load (${vp})`, async () => {
      const page = await env.open(vp, null);
      const held = await holdRoute(page, '**/api/guides');
      await page.goto('/guides');
      await hasCount(page.getByTestId('guide-skeleton'), 3);
      assert.equal(await page.getByTestId('guide-card').count(), 0);
      held.release();
      await visible(page.getByTestId('guide-card'));
      await hasCount(page.getByTestId('guide-skeleton'), 0);
      env.assertNoConsoleErrors(page);
    });

    it(`error state 'Error Loading Guides' when the API fails (${vp})`, async () => {
      const page = await env.open(vp, null);
      await failRoute(page, '**/api/guides');
      await page.goto('/guides');
      await visible(page.getByText('Error Loading Guides'));
      await hasText(page, 'Failed to load guides. Please try again later.');
      assert.equal(await page.getByTestId('guide-card').count(), 0);
      await hidden(page.getByTestId('guide-skeleton'));
      // the static sections still render
      await hasCount(page.getByTestId('getting-started-step'), 4);
      env.assertNoConsoleErrors(page, { allow: [EXPECTED_FAILED_LOAD] });
    });
  }

  // ---------------------------------------------------------------------------------------------
  // The reading view: /guides?guide=ID, "Read more", Share.

  const queryOf = (page) => new URL(page.url()).search;
  const paragraphs = (g) => g.content.split(/\n\s*\n/).map((p) => p.trim().replace(/\s+/g, ' ')).filter(Boolean);

  /** The reading view shows the whole guide under its own heading. */
  async function assertReading(page, g) {
    const dialog = page.getByRole('dialog', { name: g.title, exact: true });
    await visible(dialog);
    assert.equal(await dialog.getAttribute('aria-modal'), 'true');
    await visible(dialog.getByRole('heading', { name: g.title, exact: true }));
    const text = (await dialog.innerText()).replace(/\s+/g, ' ');
    for (const p of paragraphs(g)) assert.ok(text.includes(p), `the view has the paragraph "${p.slice(0, 40)}…"`);
    return dialog;
  }

  const cardOf = (page, g) => page.locator(`[data-testid="guide-card"][data-guide-id="${g.id}"]`);

  for (const vp of VIEWPORT_NAMES) {
    it(`/guides?guide=ID opens that guide in the reading view; Escape closes it and focus goes to its card (${vp})`, async () => {
      const list = await allGuides();
      const g = list[list.length - 1];
      const page = await env.open(vp, `/guides?guide=${g.id}`);
      const dialog = await assertReading(page, g);
      // the whole text fits the screen's width and the view scrolls, not the page behind it
      const box = await dialog.boundingBox();
      const size = page.viewportSize();
      assert.ok(box.x >= 0 && box.x + box.width <= size.width && box.y >= 0 && box.y + box.height <= size.height + 1, JSON.stringify(box));
      // it opens at its top: the title in view, though the text is taller than the screen
      await eventually(async () => {
        const h = await dialog.getByRole('heading', { name: g.title, exact: true }).boundingBox();
        const d = await dialog.boundingBox();
        assert.ok(h.y >= d.y && h.y + h.height <= d.y + d.height, `the title is in view (${JSON.stringify({ h, d })})`);
      });
      assertClean(await axeViolations(page), `reading view open (${vp})`);

      await eventually(async () => assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), 'focus is in the view'));
      await page.keyboard.press('Escape');
      await hidden(dialog);
      assert.equal(queryOf(page), '', 'closing removes the parameter');
      const readMore = cardOf(page, g).getByRole('button', { name: `Read more: ${g.title}`, exact: true });
      await eventually(async () => assert.ok(await readMore.evaluate((b) => b === document.activeElement), 'focus is on the card\'s Read more'));

      // an unknown id: the grid, a short note, no view
      await page.goto('/guides?guide=999999');
      await visible(page.getByTestId('guide-not-found'));
      await atLeast(page.getByTestId('guide-card'), list.length);
      await hasCount(page.getByRole('dialog'), 0);
      env.assertNoConsoleErrors(page);
    });

    it(`"Read more" opens the reading view with the guide in the address; the grid keeps its shape; Back and the close button close it (${vp})`, async () => {
      const list = await allGuides();
      const g = list[1];
      const page = await env.open(vp, '/guides');
      const cards = page.getByTestId('guide-card');
      await hasCount(cards, list.length);
      const heights = () => cards.evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));
      const before = await heights();
      // no card is a long column: the tallest is not much taller than the shortest
      assert.ok(Math.max(...before) <= 1.6 * Math.min(...before), `card heights ${before}`);

      const readMore = cardOf(page, g).getByRole('button', { name: `Read more: ${g.title}`, exact: true });
      await readMore.click();
      const dialog = await assertReading(page, g);
      assert.equal(queryOf(page), `?guide=${g.id}`);
      assert.deepEqual(await heights(), before, 'no card grew');

      // Back closes it, Forward opens it again
      await page.goBack();
      await hidden(dialog);
      assert.equal(queryOf(page), '');
      await page.goForward();
      await assertReading(page, g);

      // the close button: back to the grid, the parameter gone, focus on the card's button
      await dialog.getByRole('button', { name: 'Close', exact: true }).click();
      await hidden(dialog);
      assert.equal(queryOf(page), '');
      await eventually(async () => assert.ok(await readMore.evaluate((b) => b === document.activeElement)));
      env.assertNoConsoleErrors(page);
    });

    it(`Share copies a guide's link where there is no share sheet, and the link opens it (${vp})`, async () => {
      const list = await allGuides();
      const g = list[2];
      const page = await env.open(vp, null, { permissions: ['clipboard-read', 'clipboard-write'] });
      // Headless Chromium has no navigator.share today; make sure of it, so the fallback is what is tested.
      await page.addInitScript(() => {
        delete Navigator.prototype.share;
        delete Navigator.prototype.canShare;
      });
      await page.goto('/guides');
      await cardOf(page, g).getByRole('button', { name: `Share ${g.title}`, exact: true }).click();
      const link = `${env.baseUrl}/guides?guide=${g.id}`;
      await expectToast(page, 'Link copied', { description: link });
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);

      await page.goto(link);
      const dialog = await assertReading(page, g);
      // the view shares the same link
      await page.evaluate(() => navigator.clipboard.writeText(''));
      await dialog.getByRole('button', { name: `Share ${g.title}`, exact: true }).click();
      await eventually(async () => assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link));
      env.assertNoConsoleErrors(page);
    });
  }
});
