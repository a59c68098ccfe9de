// Commands database page, on desktop and phone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  useSuite,
  VIEWPORT_NAMES,
  visible,
  hidden,
  hasCount,
  hasAttr,
  hasText,
  eventually,
  holdRoute,
  failRoute,
  EXPECTED_FAILED_LOAD,
} from './harness.mjs';

// ui/src/lib/commands.ts COMMANDS_PAGE_SIZE (the UI's own choice: change both together)
const PAGE_SIZE = 12;

/** The commands the page should show for a filter, in the API's order (mirrors the page's filter rules). */
function filterCommands(commands, { search = '', category = null, permission = null, minRating = 0 } = {}) {
  const needle = search.trim().toLowerCase();
  return commands.filter(
    (c) =>
      (!needle || c.name.toLowerCase().includes(needle) || c.description.toLowerCase().includes(needle)) &&
      (!category || c.category === category) &&
      (!permission || c.permission === permission) &&
      (!(minRating > 0) || (c.ratingCount > 0 && c.avgRating >= minRating)),
  );
}

async function shownIds(page) {
  const ids = await page.getByTestId('command-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-command-id')));
  return ids.map(Number);
}

/** Waits until the first page of results shows exactly the first cards of `expected`. */
async function showsFirstPageOf(page, expected) {
  await eventually(async () => {
    const ids = await shownIds(page);
    assert.deepEqual(
      ids,
      expected.slice(0, PAGE_SIZE).map((c) => c.id),
      'the cards are the first page of the filtered commands, in order',
    );
  });
}

async function assertEmptyState(page) {
  await visible(page.getByText('No commands found'));
  await visible(page.getByText('Try adjusting your search or filter criteria'));
  await hasCount(page.getByTestId('command-card'), 0);
}

describe('commands page', () => {
  const env = useSuite();
  let commands;
  let site;
  const cmds = async () => (commands ??= await env.api('/api/commands'));
  const siteSettings = async () => (site ??= await env.api('/api/site'));

  it('GET /api/commands returns more than 100 well-formed commands', async () => {
    const list = await cmds();
    assert.ok(Array.isArray(list));
    assert.ok(list.length >= 100, `at least 100 commands (got ${list.length})`);
    const ids = new Set();
    for (const c of list) {
      assert.equal(typeof c.id, 'number');
      assert.ok(!ids.has(c.id), `unique id ${c.id}`);
      ids.add(c.id);
      assert.ok(c.name && c.description && c.usage && c.category, `command ${c.id} has name, description, usage, category`);
      assert.ok(Array.isArray(c.examples), `command ${c.id} examples is an array`);
      assert.ok(['OA', 'OR', 'UP', 'NE'].includes(c.permission), `command ${c.id} permission ${c.permission}`);
      assert.equal(typeof c.avgRating, 'number');
    }
  });

  for (const vp of VIEWPORT_NAMES) {
    it(`all commands are reachable across pages (${vp})`, async () => {
      const list = await cmds();
      const page = await env.open(vp, '/commands');
      const seen = [];
      const next = page.getByRole('button', { name: 'Next page' });
      const indicator = page.getByTestId('page-indicator');
      await visible(page.getByTestId('command-card'));
      await visible(indicator);
      const total = Number((await indicator.innerText()).match(/of (\d+)/)?.[1]);
      assert.ok(total >= 2, `several pages (${total})`);
      for (let p = 1; p <= total; p++) {
        await eventually(async () => assert.match(await indicator.innerText(), new RegExp(`^Page ${p} of ${total}$`)));
        seen.push(...(await shownIds(page)));
        if (p < total) await next.click();
      }
      assert.ok(await next.isDisabled(), 'Next is disabled on the last page');
      assert.deepEqual(seen, list.map((c) => c.id), 'every command once, in order');
      assert.ok(seen.length >= 100);
      env.assertNoConsoleErrors(page);
    });

    it(`cards show name, description, permission badge, usage, at most 3 examples, category, meaning (${vp})`, async () => {
      const list = await cmds();
      const { permissions } = await siteSettings();
      const page = await env.open(vp, '/commands');
      const cards = page.getByTestId('command-card');
      await visible(cards);
      const ids = await shownIds(page);
      assert.equal(ids.length, PAGE_SIZE, 'one full page of cards');
      for (const id of ids) {
        const c = list.find((x) => x.id === id);
        const card = page.locator(`[data-testid="command-card"][data-command-id="${id}"]`);
        const text = (await card.innerText()).replace(/\s+/g, ' ');
        assert.ok(text.includes(c.name), `card ${id} shows the name`);
        assert.ok(text.includes(c.description.replace(/\s+/g, ' ')), `card ${id} shows the description`);
        assert.ok(text.includes(c.usage), `card ${id} shows the usage`);
        assert.equal(await card.getByTestId('permission-badge').innerText(), c.permission);
        assert.equal((await card.getByTestId('command-category').innerText()).trim(), c.category);
        assert.ok(text.includes(permissions[c.permission]), `card ${id} shows the meaning of ${c.permission}`);
        assert.equal(await card.getByRole('button', { name: 'Copy usage' }).count(), 1);
        const exampleButtons = card.getByRole('button', { name: /^Copy example: / });
        assert.equal(await exampleButtons.count(), Math.min(3, c.examples.length), `card ${id} shows at most 3 examples`);
      }
      env.assertNoConsoleErrors(page);
    });

    it(`search filters by name and description, case-insensitively; nonsense shows the empty state (${vp})`, async () => {
      const list = await cmds();
      const page = await env.open(vp, '/commands');
      const search = page.getByPlaceholder('Search commands...');
      await visible(page.getByTestId('command-card'));

      // by name (upper-cased: matching ignores case)
      const target = list[Math.floor(list.length / 2)];
      await search.fill(target.name.toUpperCase());
      const byName = filterCommands(list, { search: target.name });
      assert.ok(byName.some((c) => c.id === target.id));
      await showsFirstPageOf(page, byName);
      await visible(page.locator(`[data-testid="command-card"][data-command-id="${target.id}"]`));

      // by a piece of a description
      const descTarget = list.find((c) => c.description.split(/\s+/).length >= 4 && !c.name.includes(' '));
      const piece = descTarget.description.split(/\s+/).slice(1, 3).join(' ');
      await search.fill(piece.toUpperCase());
      const byDesc = filterCommands(list, { search: piece });
      await showsFirstPageOf(page, byDesc);

      // nonsense
      await search.fill('zzqx-no-such-command-qqz');
      await assertEmptyState(page);

      // clearing the search brings everything back
      await search.fill('');
      await showsFirstPageOf(page, list);
      env.assertNoConsoleErrors(page);
    });

    it(`filters reset the page to 1 (${vp})`, async () => {
      const list = await cmds();
      const page = await env.open(vp, '/commands');
      await visible(page.getByTestId('command-card'));
      await page.getByRole('button', { name: 'Next page' }).click();
      await eventually(async () => assert.match(await page.getByTestId('page-indicator').innerText(), /^Page 2 of/));
      // 'e' matches most commands: still several pages, and we must be back on page 1
      const expected = filterCommands(list, { search: 'e' });
      assert.ok(expected.length > 2 * PAGE_SIZE);
      await page.getByPlaceholder('Search commands...').fill('e');
      await showsFirstPageOf(page, expected);
      await eventually(async () =>
        assert.equal(
          await page.getByTestId('page-indicator').innerText(),
          `Page 1 of ${Math.ceil(expected.length / PAGE_SIZE)}`,
        ),
      );
      env.assertNoConsoleErrors(page);
    });

    it(`category chips toggle, and All Categories clears (${vp})`, async () => {
      const list = await cmds();
      const categories = [...new Set(list.map((c) => c.category))];
      const page = await env.open(vp, '/commands');
      await visible(page.getByTestId('command-card'));
      const chips = page.getByTestId('category-chip');
      await hasCount(chips, categories.length);
      const chipTexts = (await chips.allInnerTexts()).map((t) => t.trim());
      assert.deepEqual([...chipTexts].sort(), [...categories].sort(), 'one chip per distinct category');

      const all = page.getByRole('button', { name: 'All Categories' });
      await hasAttr(all, 'aria-pressed', 'true');

      // pick the category with the most commands so paging is exercised too
      const cat = categories.reduce((a, b) =>
        list.filter((c) => c.category === b).length > list.filter((c) => c.category === a).length ? b : a,
      );
      const chip = chips.filter({ hasText: new RegExp(`^\\s*${cat.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) });
      await chip.click();
      await hasAttr(chip, 'aria-pressed', 'true');
      await hasAttr(all, 'aria-pressed', 'false');
      await showsFirstPageOf(page, filterCommands(list, { category: cat }));
      const shownCats = await page.getByTestId('command-category').allInnerTexts();
      assert.ok(shownCats.every((t) => t.trim() === cat), `only ${cat} cards (${shownCats.join(', ')})`);

      // clicking the active chip clears it
      await chip.click();
      await hasAttr(chip, 'aria-pressed', 'false');
      await hasAttr(all, 'aria-pressed', 'true');
      await showsFirstPageOf(page, list);

      // All Categories clears too
      await chip.click();
      await showsFirstPageOf(page, filterCommands(list, { category: cat }));
      await all.click();
      await hasAttr(chip, 'aria-pressed', 'false');
      await showsFirstPageOf(page, list);
      env.assertNoConsoleErrors(page);
    });

    it(`permission filter and minimum-rating filter (${vp})`, async () => {
      const list = await cmds();
      const { permissions } = await siteSettings();
      const page = await env.open(vp, '/commands');
      await visible(page.getByTestId('command-card'));

      const perm = page.getByTestId('permission-filter');
      const optionTexts = (await perm.locator('option').allInnerTexts()).join(' | ');
      for (const [code, meaning] of Object.entries(permissions)) {
        assert.ok(optionTexts.includes(code) && optionTexts.includes(meaning), `permission option ${code} – ${meaning}`);
      }
      for (const code of ['OA', 'NE']) {
        await perm.selectOption(code);
        const expected = filterCommands(list, { permission: code });
        if (expected.length === 0) {
          await assertEmptyState(page);
        } else {
          await showsFirstPageOf(page, expected);
          const badges = await page.getByTestId('command-card').getByTestId('permission-badge').allInnerTexts();
          assert.ok(badges.every((b) => b.trim() === code), `only ${code} badges (${badges.join(',')})`);
        }
      }
      await perm.selectOption('');
      await showsFirstPageOf(page, list);

      // a fresh server has no ratings: any minimum rating leaves nothing
      const rating = page.getByTestId('rating-filter');
      await rating.selectOption('1');
      const rated = filterCommands(list, { minRating: 1 });
      if (rated.length === 0) await assertEmptyState(page);
      else await showsFirstPageOf(page, rated);
      await rating.selectOption('0');
      await showsFirstPageOf(page, list);
      env.assertNoConsoleErrors(page);
    });

    it(`copy usage shows 'Copied to clipboard' and copies the usage (${vp})`, async () => {
      const list = await cmds();
      const page = await env.open(vp, '/commands', { permissions: ['clipboard-read', 'clipboard-write'] });
      const card = page.getByTestId('command-card').first();
      await visible(card);
      const id = Number(await card.getAttribute('data-command-id'));
      const c = list.find((x) => x.id === id);
      await card.getByRole('button', { name: 'Copy usage' }).click();
      await visible(page.getByText('Copied to clipboard'));
      const clip = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(clip, c.usage);

      if (c.examples.length > 0) {
        await card.getByRole('button', { name: `Copy example: ${c.examples[0]}` }).click();
        await eventually(async () => assert.equal(await page.evaluate(() => navigator.clipboard.readText()), c.examples[0]));
      }
      env.assertNoConsoleErrors(page);
    });

    it(`usage guide lists the selectors and permission levels; wiki and game links; popular list loaded (${vp})`, async () => {
      const s = await siteSettings();
      const requests = [];
      const page = await env.open(vp, '/commands', {
        setup: (p) => p.on('request', (r) => requests.push(new URL(r.url()).pathname)),
      });
      const guide = page.getByTestId('usage-guide');
      await visible(guide);
      const text = await guide.innerText();
      for (const sel of ['username', 'all', 'me', '%teamname', 'random']) {
        assert.ok(
          await guide.locator('code', { hasText: new RegExp(`^\\s*${sel}\\s*$`) }).count(),
          `selector ${sel} in the usage guide`,
        );
      }
      for (const [code, meaning] of Object.entries(s.permissions)) {
        assert.ok(text.includes(code) && text.includes(meaning), `permission ${code} – ${meaning} explained`);
      }
      assert.deepEqual(s.permissions, {
        OA: 'Only Admins',
        OR: 'Only Administrator',
        UP: 'Usable by Perm Admin',
        NE: 'Not Everyone Has It',
      });

      const main = page.locator('main');
      for (const href of [s.links.wiki, s.links.game]) {
        const link = main.locator(`a[href="${href}"]`);
        assert.ok((await link.count()) >= 1, `a link to ${href} on the commands page`);
        assert.equal(await link.first().getAttribute('target'), '_blank');
      }
      await eventually(() => assert.ok(requests.includes('/api/commands/popular'), 'GET /api/commands/popular'));
      await visible(page.getByTestId('popular-commands'));
      env.assertNoConsoleErrors(page);
    });

    it(`six skeleton cards while loading (${vp})`, async () => {
      const page = await env.open(vp, null);
      const held = await holdRoute(page, '**/api/commands');
      await page.goto('/commands');
      await hasCount(page.getByTestId('command-skeleton'), 6);
      assert.equal(await page.getByTestId('command-card').count(), 0);
      held.release();
      await visible(page.getByTestId('command-card'));
      await hasCount(page.getByTestId('command-skeleton'), 0);
      env.assertNoConsoleErrors(page);
    });

    it(`error state 'Error Loading Commands' when the API fails (${vp})`, async () => {
      const page = await env.open(vp, null);
      await failRoute(page, '**/api/commands');
      await page.goto('/commands');
      await visible(page.getByText('Error Loading Commands'));
      await hasText(page, 'Failed to load commands. Please try again later.');
      assert.equal(await page.getByTestId('command-card').count(), 0);
      await hidden(page.getByTestId('command-skeleton'));
      env.assertNoConsoleErrors(page, { allow: [EXPECTED_FAILED_LOAD] });
    });
  }
});
