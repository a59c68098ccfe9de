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
} from './harness.mjs';

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
});
