// Community page (its stats are measured, never made up), desktop and phone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSuite, VIEWPORT_NAMES, visible, hasCount, eventually } from './harness.mjs';

const STAT_KEYS = ['users', 'monthlyVisitors', 'commands', 'guides'];

describe('community page', () => {
  const env = useSuite();

  it('GET /api/stats has the documented shape and counts the bundled content', async () => {
    const stats = await env.api('/api/stats');
    for (const k of ['users', 'monthlyVisitors', 'pageViews', 'commands', 'guides']) {
      assert.ok(Number.isInteger(stats[k]) && stats[k] >= 0, `stats.${k} is a count (${stats[k]})`);
    }
    assert.ok(stats.discordMembers === null || Number.isInteger(stats.discordMembers));
    assert.ok(!Number.isNaN(Date.parse(stats.startedAt)), 'startedAt is a date');
    assert.equal(stats.commands, (await env.api('/api/commands')).length);
    assert.equal(stats.guides, (await env.api('/api/guides')).length);
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`three creator videos, four factions, official links, fun facts, join buttons (${vp})`, async () => {
      const site = await env.api('/api/site');
      const page = await env.open(vp, '/community');

      const videos = page.getByTestId('creator-video-card');
      await hasCount(videos, 3);
      for (const v of site.creatorVideos) {
        const link = videos.filter({ hasText: v.title }).getByRole('link');
        assert.equal(await link.getAttribute('href'), site.links.videoSearch + encodeURIComponent(`${v.creator} ${v.title}`));
        assert.equal(await link.getAttribute('target'), '_blank');
      }

      const factions = page.getByTestId('faction-card');
      await hasCount(factions, 4);
      const names = [];
      for (const card of await factions.all()) names.push((await card.getByRole('heading').innerText()).trim());
      assert.deepEqual(names, ['Citizens', 'Builders', 'Guards', 'Admins']);

      const official = page.getByTestId('official-link');
      await hasCount(official, site.officialLinks.length);
      assert.ok(site.officialLinks.length >= 1);
      for (const l of site.officialLinks) {
        const a = page.locator(`[data-testid="official-link"][href="${l.url}"]`);
        await visible(a);
        assert.equal(await a.getAttribute('target'), '_blank');
      }

      await hasCount(page.getByTestId('fun-fact'), site.funFacts.length);
      assert.ok(site.funFacts.length >= 1);

      for (const href of [site.links.game, site.links.community]) {
        const a = page.locator('main').locator(`a[href="${href}"]`);
        assert.ok((await a.count()) >= 1, `a join link to ${href}`);
        assert.equal(await a.first().getAttribute('target'), '_blank');
      }
      env.assertNoConsoleErrors(page);
    });

    it(`community stats equal what GET /api/stats returns (${vp})`, async () => {
      let last = null;
      const page = await env.open(vp, null);
      page.on('response', async (res) => {
        if (new URL(res.url()).pathname === '/api/stats' && res.status() === 200) {
          try {
            last = await res.json();
          } catch {
            /* navigated away */
          }
        }
      });
      await page.goto('/community');
      await eventually(() => assert.ok(last, 'the page fetched /api/stats'));

      // compare with the server directly: content counts are fixed; users don't change in this suite
      const direct = await env.api('/api/stats');
      const fmt = (n) => n.toLocaleString('en-US');
      await eventually(async () => {
        for (const key of STAT_KEYS) {
          const shown = (await page.getByTestId(`stat-${key}`).locator('dd').innerText()).trim();
          assert.equal(shown, fmt(last[key]), `stat-${key} shows the latest /api/stats value`);
        }
      });
      for (const key of ['users', 'commands', 'guides']) {
        const shown = (await page.getByTestId(`stat-${key}`).locator('dd').innerText()).trim();
        assert.equal(shown, fmt(direct[key]), `stat-${key} equals GET /api/stats`);
      }
      env.assertNoConsoleErrors(page);
    });
  }
});
