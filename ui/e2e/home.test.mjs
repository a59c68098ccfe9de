// Home page, on desktop and phone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, VIEWPORT_NAMES, visible, hasCount, atPath, hasText } from './harness.mjs';

describe('home page', () => {
  const env = useSuite();

  for (const vp of VIEWPORT_NAMES) {
    it(`hero: Play Now is external, Browse Commands goes to /commands (${vp})`, async () => {
      const site = await env.api('/api/site');
      const page = await env.open(vp, '/');
      const play = page.getByRole('link', { name: /play now/i });
      await visible(play);
      assert.equal(await play.getAttribute('href'), site.links.game);
      assert.equal(await play.getAttribute('target'), '_blank');
      assert.match((await play.getAttribute('rel')) ?? '', /noopener/);

      // hero claims: 100+ commands, building tools, large-server size
      await hasText(page, /\b100\+ commands/i);
      await hasText(page, new RegExp(`${site.hero.buildingTools} building tools`, 'i'));
      await hasText(page, new RegExp(`${site.hero.largeServerPlayers}-player`, 'i'));
      assert.equal(site.hero.buildingTools, 6);
      assert.equal(site.hero.largeServerPlayers, 36);

      const browse = page.getByRole('link', { name: /browse commands/i });
      await browse.click();
      await atPath(page, '/commands');
      await visible(page.getByPlaceholder('Search commands...'));
      env.assertNoConsoleErrors(page);
    });

    it(`the first screen comes painted in the shell and the app hydrates it in place (${vp})`, async () => {
      const site = await env.api('/api/site');
      const shell = await (await env.fetch('/')).text();
      const app = shell.slice(shell.indexOf('<div id="app">'), shell.indexOf('</main>'));
      assert.ok(app.includes(`>${site.hero.title}</h1>`), 'the hero title is in the HTML');
      assert.ok(!/[\u27e6\u27e7]/.test(app), 'no site-setting token is left');
      const page = await env.open(vp, null, {
        setup: (p) =>
          p.addInitScript(() => {
            // Everything the app removes while it starts, and every layout shift.
            window.__removed = [];
            new MutationObserver((records) => {
              for (const r of records) for (const n of r.removedNodes) if (n.nodeType === 1) window.__removed.push(n.outerHTML.slice(0, 80));
            }).observe(document, { childList: true, subtree: true });
            window.__shift = 0;
            new PerformanceObserver((list) => {
              for (const e of list.getEntries()) window.__shift += e.value;
            }).observe({ type: 'layout-shift', buffered: true });
          }),
      });
      await page.goto('/');
      const heading = await page.evaluateHandle(() => document.querySelector('h1'));
      await hasCount(page.getByTestId('feature-card'), 6);
      await hasText(page, /\b100\+ commands/i);
      assert.ok(await page.evaluate((h) => h === document.querySelector('h1') && h.isConnected, heading), 'the same h1 node');
      const removed = await page.evaluate(() => window.__removed);
      // Only the command-count placeholder gives way (to the count from /api/stats).
      assert.ok(removed.every((html) => html.includes('animate-pulse')), `removed while starting: ${removed.join(' | ')}`);
      assert.ok((await page.evaluate(() => window.__shift)) < 0.02, 'no layout shift worth the name');
      // Hydrated: client-side navigation and the shell's buttons work.
      await page.getByRole('link', { name: /browse commands/i }).click();
      await atPath(page, '/commands');
      env.assertNoConsoleErrors(page);
    });

    it(`six features, four quick-start cards, three showcase cards (${vp})`, async () => {
      const site = await env.api('/api/site');
      assert.equal(site.features.length, 6, 'site.toml has six features');
      const page = await env.open(vp, '/');

      const features = page.getByTestId('feature-card');
      await hasCount(features, 6);
      for (const f of site.features) {
        await visible(features.filter({ hasText: f.title }));
      }
      // the six features: building tools, election system, admin commands, server options,
      // community features, world control
      const titles = site.features.map((f) => f.title.toLowerCase()).join(' | ');
      for (const word of ['building', 'election', 'command', 'server', 'community', 'world']) {
        assert.ok(titles.includes(word), `a feature about "${word}" (features: ${titles})`);
      }

      const quick = page.getByTestId('quick-start-card');
      await hasCount(quick, 4);
      const quickText = (await quick.allInnerTexts()).join(' | ').toLowerCase();
      for (const word of ['commands', 'guides', 'community', 'player status']) {
        assert.ok(quickText.includes(word), `a Quick Start card "${word}" (cards: ${quickText})`);
      }
      // the Commands quick-start card is an in-app link
      await quick.filter({ hasText: /^\s*commands/i }).first().click();
      await atPath(page, '/commands');

      await page.goBack();
      await atPath(page, '/');
      const showcase = page.getByTestId('showcase-card');
      await hasCount(showcase, 3);
      for (const s of site.showcase) {
        await visible(showcase.filter({ hasText: s.title }));
      }
      env.assertNoConsoleErrors(page);
    });

    it(`three creator videos with video-search links (${vp})`, async () => {
      const site = await env.api('/api/site');
      assert.equal(site.creatorVideos.length, 3);
      const page = await env.open(vp, '/');
      const cards = page.getByTestId('creator-video-card');
      await hasCount(cards, 3);
      for (const v of site.creatorVideos) {
        const card = cards.filter({ hasText: v.title });
        await visible(card);
        const link = card.getByRole('link');
        assert.equal(await link.count(), 1, `one link on the "${v.title}" card`);
        const expected = site.links.videoSearch + encodeURIComponent(`${v.creator} ${v.title}`);
        assert.equal(await link.getAttribute('href'), expected);
        assert.equal(await link.getAttribute('target'), '_blank');
      }
      env.assertNoConsoleErrors(page);
    });
  }
});
