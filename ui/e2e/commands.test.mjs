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
import { axeViolations, assertClean } from './axe.mjs';
import { assertNoHorizontalOverflow, expectToast } from './admin-helpers.mjs';

// ui/src/lib/commands.ts COMMANDS_PAGE_SIZE and COMMANDS_PAGE_SIZE_WIDE (from 1280 px wide): the UI's own
// choice, change both together.
const PAGE_SIZE = { desktop: 24, phone: 12 };

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
async function showsFirstPageOf(page, expected, vp) {
  await eventually(async () => {
    const ids = await shownIds(page, vp);
    assert.deepEqual(
      ids,
      expected.slice(0, PAGE_SIZE[vp]).map((c) => c.id),
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
      assert.equal(ids.length, PAGE_SIZE[vp], 'one full page of cards');
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
      await showsFirstPageOf(page, byName, vp);
      await visible(page.locator(`[data-testid="command-card"][data-command-id="${target.id}"]`));

      // by a piece of a description
      const descTarget = list.find((c) => c.description.split(/\s+/).length >= 4 && !c.name.includes(' '));
      const piece = descTarget.description.split(/\s+/).slice(1, 3).join(' ');
      await search.fill(piece.toUpperCase());
      const byDesc = filterCommands(list, { search: piece });
      await showsFirstPageOf(page, byDesc, vp);

      // nonsense
      await search.fill('zzqx-no-such-command-qqz');
      await assertEmptyState(page);

      // clearing the search brings everything back
      await search.fill('');
      await showsFirstPageOf(page, list, vp);
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
      assert.ok(expected.length > 2 * PAGE_SIZE[vp]);
      await page.getByPlaceholder('Search commands...').fill('e');
      await showsFirstPageOf(page, expected, vp);
      await eventually(async () =>
        assert.equal(
          await page.getByTestId('page-indicator').innerText(),
          `Page 1 of ${Math.ceil(expected.length / PAGE_SIZE[vp])}`,
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
      await showsFirstPageOf(page, filterCommands(list, { category: cat }), vp);
      const shownCats = await page.getByTestId('command-category').allInnerTexts();
      assert.ok(shownCats.every((t) => t.trim() === cat), `only ${cat} cards (${shownCats.join(', ')})`);

      // clicking the active chip clears it
      await chip.click();
      await hasAttr(chip, 'aria-pressed', 'false');
      await hasAttr(all, 'aria-pressed', 'true');
      await showsFirstPageOf(page, list, vp);

      // All Categories clears too
      await chip.click();
      await showsFirstPageOf(page, filterCommands(list, { category: cat }), vp);
      await all.click();
      await hasAttr(chip, 'aria-pressed', 'false');
      await showsFirstPageOf(page, list, vp);
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
          await showsFirstPageOf(page, expected, vp);
          const badges = await page.getByTestId('command-card').getByTestId('permission-badge').allInnerTexts();
          assert.ok(badges.every((b) => b.trim() === code), `only ${code} badges (${badges.join(',')})`);
        }
      }
      await perm.selectOption('');
      await showsFirstPageOf(page, list, vp);

      // a fresh server has no ratings: any minimum rating leaves nothing
      const rating = page.getByTestId('rating-filter');
      await rating.selectOption('1');
      const rated = filterCommands(list, { minRating: 1 });
      if (rated.length === 0) await assertEmptyState(page);
      else await showsFirstPageOf(page, rated, vp);
      await rating.selectOption('0');
      await showsFirstPageOf(page, list, vp);
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

  // ---------------------------------------------------------------------------------------------
  // Links and the address: /commands?command=NAME, the filters and page in the query string.

  /** The address's query string, without "?". */
  const queryOf = (page) => new URL(page.url()).search.replace(/^\?/, '');

  async function pageIndicator(page) {
    return (await page.getByTestId('page-indicator').innerText()).trim();
  }

  /** Asserts the card is on screen: inside the viewport and not covered at its centre nor at its name. */
  async function assertOnScreen(page, card, what) {
    await eventually(async () => {
      const box = await card.boundingBox();
      assert.ok(box, `${what} has a box`);
      const vp = page.viewportSize();
      assert.ok(box.y >= 0 && box.y + Math.min(box.height, vp.height) <= vp.height + 1, `${what} is within the viewport (${JSON.stringify(box)})`);
      const hits = await card.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const name = el.querySelector('h3').getBoundingClientRect();
        return [
          [r.left + r.width / 2, r.top + r.height / 2],
          [name.left + 4, name.top + name.height / 2],
        ].map(([x, y]) => el.contains(document.elementFromPoint(x, y)));
      });
      assert.deepEqual(hits, [true, true], `${what}: nothing covers its centre or its name`);
    });
  }

  for (const vp of VIEWPORT_NAMES) {
    it(`/commands?command=NAME shows that command highlighted, in view and focused, on page 3 too (${vp})`, async () => {
      const list = await cmds();
      const size = PAGE_SIZE[vp];
      const target = list[2 * size + 1];
      assert.ok(target, 'the list has a third page');
      const page = await env.open(vp, `/commands?command=${encodeURIComponent(target.name)}`);
      const card = page.locator('[data-testid="command-card"][data-highlighted="true"]');
      await visible(card);
      await hasCount(card, 1);
      assert.equal(Number(await card.getAttribute('data-command-id')), target.id);
      assert.match(await pageIndicator(page), /^Page 3 of \d+$/);
      await visible(card.getByText('Linked command'));
      // visibly marked: an outline the other cards do not have
      const outlines = await page.getByTestId('command-card').evaluateAll((els) =>
        els.map((e) => ({ highlighted: e.dataset.highlighted === 'true', outline: getComputedStyle(e).outlineStyle })),
      );
      assert.ok(outlines.every((o) => (o.highlighted ? o.outline === 'solid' : o.outline === 'none')), JSON.stringify(outlines));
      await eventually(async () => assert.equal(await page.evaluate(() => document.activeElement?.dataset.highlighted), 'true', 'the card has the focus'));
      await assertOnScreen(page, card, target.name);
      assert.equal(queryOf(page), `command=${encodeURIComponent(target.name)}`);

      // fly (page 1) behind filters that hide it: the filters are cleared and it is shown
      const fly = list.find((c) => c.name === 'fly');
      assert.ok(fly, 'a command named fly');
      const otherCategory = list.find((c) => c.category !== fly.category).category;
      await page.goto(`/commands?category=${encodeURIComponent(otherCategory)}&page=3&command=fly`);
      const flyCard = page.locator(`[data-testid="command-card"][data-command-id="${fly.id}"]`);
      await visible(flyCard);
      await hasAttr(flyCard, 'data-highlighted', 'true');
      await visible(page.getByTestId('filters-cleared'));
      await eventually(() => assert.equal(queryOf(page), 'command=fly'));
      await hasAttr(page.getByRole('button', { name: 'All Categories' }), 'aria-pressed', 'true');
      await assertOnScreen(page, flyCard, 'fly');

      // axe with a highlighted command
      assertClean(await axeViolations(page), `/commands?command=fly (${vp})`);
      env.assertNoConsoleErrors(page);
    });

    it(`an unknown command name shows the list with a polite note (${vp})`, async () => {
      const page = await env.open(vp, '/commands?command=%3Cno-such%3E&page=abc');
      await visible(page.getByTestId('command-card'));
      const note = page.getByTestId('command-not-found');
      await visible(note);
      assert.match(await note.innerText(), /no command is named “<no-such>”/);
      await hasCount(page.locator('[data-highlighted]'), 0);
      assert.match(await pageIndicator(page), /^Page 1 of \d+$/);
      await eventually(() => assert.equal(queryOf(page), 'command=%3Cno-such%3E'));
      env.assertNoConsoleErrors(page);
    });

    it(`the search, filters and page round-trip through the address, a reload, Back and Forward (${vp})`, async () => {
      const list = await cmds();
      const page = await env.open(vp, '/commands');
      await visible(page.getByTestId('command-card'));
      const search = page.getByPlaceholder('Search commands...');
      const historyLength = () => page.evaluate(() => history.length);
      const start = await historyLength();

      // typing two characters adds one history entry, not one per keystroke
      await search.click();
      await page.keyboard.type('ea');
      await eventually(() => assert.equal(queryOf(page), 'search=ea'));
      assert.equal(await historyLength(), start + 1, 'one entry for the whole search');
      const byEa = filterCommands(list, { search: 'ea' });
      await showsFirstPageOf(page, byEa, vp);

      // a page is a step of its own
      await search.fill('e');
      const byE = filterCommands(list, { search: 'e' });
      assert.ok(byE.length > PAGE_SIZE[vp], 'several pages match "e"');
      await page.getByRole('button', { name: 'Next page' }).click();
      await eventually(() => assert.equal(queryOf(page), `search=e&page=2&per=${PAGE_SIZE[vp]}`));
      assert.match(await pageIndicator(page), /^Page 2 of/);
      const page2 = await shownIds(page);
      assert.deepEqual(page2, byE.slice(PAGE_SIZE[vp], 2 * PAGE_SIZE[vp]).map((c) => c.id));

      // filter choices are steps too
      const perm = byE[0].permission;
      await page.getByTestId('permission-filter').selectOption(perm);
      await eventually(() => assert.equal(queryOf(page), `search=e&permission=${perm}`));

      // a reload shows the same list
      await page.reload();
      await showsFirstPageOf(page, filterCommands(list, { search: 'e', permission: perm }), vp);
      assert.equal(await search.inputValue(), 'e');
      assert.equal(await page.getByTestId('permission-filter').inputValue(), perm);

      // Back: page 2 of "e"; Back: page 1 of "e" (the search typed in place); Back: the whole list; Forward x2: page 2
      await page.goBack();
      await eventually(() => assert.equal(queryOf(page), `search=e&page=2&per=${PAGE_SIZE[vp]}`));
      await eventually(async () => assert.deepEqual(await shownIds(page), page2));
      assert.equal(await page.getByTestId('permission-filter').inputValue(), '');
      await page.goBack();
      await eventually(() => assert.equal(queryOf(page), 'search=e'));
      await showsFirstPageOf(page, byE, vp);
      assert.equal(await search.inputValue(), 'e');
      await page.goBack();
      await eventually(() => assert.equal(queryOf(page), ''));
      await showsFirstPageOf(page, list, vp);
      assert.equal(await search.inputValue(), '');
      await page.goForward();
      await page.goForward();
      await eventually(async () => assert.deepEqual(await shownIds(page), page2));

      // a pasted link with a category and a rating
      const cat = list[0].category;
      await page.goto(`/commands?category=${encodeURIComponent(cat.toLowerCase())}&rating=1&page=-1`);
      const chip = page.getByTestId('category-chip').filter({ hasText: new RegExp(`^\\s*${cat}\\s*$`) });
      await hasAttr(chip, 'aria-pressed', 'true');
      assert.equal(await page.getByTestId('rating-filter').inputValue(), '1');
      await eventually(() => assert.equal(queryOf(page), `category=${encodeURIComponent(cat).replace(/%20/g, '+')}&rating=1`));
      env.assertNoConsoleErrors(page);
    });

    it(`usage text wraps between words only, never inside a word or a placeholder (${vp})`, async () => {
      const list = await cmds();
      const tp = list.find((c) => c.name === 'tp');
      assert.ok(tp && tp.usage.includes('<destination player>'), 'tp has a two-word placeholder');
      const page = await env.open(vp, '/commands?command=tp');
      const card = page.locator('[data-testid="command-card"][data-highlighted="true"]');
      await visible(card);
      const usage = card.getByTestId('command-usage');
      assert.equal((await usage.innerText()).trim(), tp.usage);
      const lines = await usage.evaluate((el) => {
        const tokens = [...el.querySelectorAll('[data-usage-token]')];
        return {
          tokens: tokens.map((t) => ({ text: t.textContent, rects: t.getClientRects().length })),
          tops: [...new Set(tokens.map((t) => Math.round(t.getBoundingClientRect().top)))].length,
        };
      });
      assert.ok(lines.tokens.some((t) => t.text === '<destination player>'), JSON.stringify(lines.tokens));
      assert.ok(lines.tops >= 2, `the usage of tp wraps in this card (${lines.tops} line), so the rule is exercised`);
      for (const t of lines.tokens) assert.equal(t.rects, 1, `"${t.text}" is on one line`);

      // every usage and example on the page
      const broken = await page.locator('[data-usage-token]').evaluateAll((els) =>
        els.filter((e) => e.getClientRects().length !== 1).map((e) => e.textContent),
      );
      assert.deepEqual(broken, [], 'no word or placeholder split across lines');
      await assertNoHorizontalOverflow(page);
      env.assertNoConsoleErrors(page);
    });

    it(`the search box has exactly one clear control; the permission legend sits by the permission filter (${vp})`, async () => {
      const { permissions } = await siteSettings();
      const page = await env.open(vp, '/commands');
      await visible(page.getByTestId('command-card'));
      const search = page.getByRole('searchbox', { name: 'Search commands' });
      await visible(search);
      // a type="search" field draws the browser's own clear button: this one is a text field
      assert.equal(await search.getAttribute('type'), 'text');
      await search.fill('fly');
      const box = search.locator('xpath=..');
      await hasCount(box.getByRole('button'), 1);
      const clear = box.getByRole('button', { name: 'Clear search' });
      await visible(clear);
      // the one clear control sits inside the field's right end
      const [sb, cb] = [await search.boundingBox(), await clear.boundingBox()];
      assert.ok(cb.x > sb.x + sb.width / 2 && cb.x + cb.width <= sb.x + sb.width + 1, 'the clear button is at the right of the field');
      await clear.click();
      assert.equal(await search.inputValue(), '');
      await eventually(() => assert.equal(queryOf(page), ''));

      const legend = page.getByTestId('permission-legend');
      await visible(legend);
      const text = await legend.innerText();
      for (const [code, meaning] of Object.entries(permissions)) assert.ok(text.includes(code) && text.includes(meaning), `${code} ${meaning}`);
      const select = page.getByTestId('permission-filter');
      assert.equal(await select.getAttribute('aria-describedby'), 'permission-legend');
      const [s, l] = [await select.boundingBox(), await legend.boundingBox()];
      const gap = l.y - (s.y + s.height);
      assert.ok(gap >= 0 && gap <= 24, `the legend is right below the permission filter (gap ${gap}px)`);
      const overlap = Math.min(s.x + s.width, l.x + l.width) - Math.max(s.x, l.x);
      assert.ok(overlap >= Math.min(s.width, l.width) / 2, `the legend lines up with the permission filter (overlap ${overlap}px)`);
      // and the usage guide below still explains them
      await visible(page.getByTestId('usage-guide').getByText(permissions.OA, { exact: true }));
      env.assertNoConsoleErrors(page);
    });

    it(`Share copies the command's link where there is no share sheet, and the link opens it (${vp})`, async () => {
      const list = await cmds();
      const page = await env.open(vp, null, { permissions: ['clipboard-read', 'clipboard-write'] });
      // Headless Chromium has no navigator.share today; make sure of it, so the fallback is what is tested.
      await page.addInitScript(() => {
        delete Navigator.prototype.share;
        delete Navigator.prototype.canShare;
      });
      await page.goto('/commands');
      const card = page.getByTestId('command-card').nth(1);
      await visible(card);
      const id = Number(await card.getAttribute('data-command-id'));
      const c = list.find((x) => x.id === id);
      await card.getByRole('button', { name: `Share ${c.name}`, exact: true }).click();
      const link = `${env.baseUrl}/commands?command=${encodeURIComponent(c.name)}`;
      await expectToast(page, 'Link copied', { description: link });
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);

      await page.goto(link);
      await hasAttr(page.locator(`[data-testid="command-card"][data-command-id="${c.id}"]`), 'data-highlighted', 'true');
      env.assertNoConsoleErrors(page);
    });

    it(`the page size fits the screen and a resize keeps the page valid (${vp})`, async () => {
      const list = await cmds();
      const page = await env.open(vp, '/commands?page=3');
      await visible(page.getByTestId('command-card'));
      await eventually(async () => assert.equal((await shownIds(page)).length, PAGE_SIZE[vp]));
      assert.match(await pageIndicator(page), new RegExp(`^Page 3 of ${Math.ceil(list.length / PAGE_SIZE[vp])}$`));
      const firstShown = (await shownIds(page))[0];
      // to the other size: the first card shown stays on the page shown
      const other = vp === 'desktop' ? { width: 390, height: 844 } : { width: 1280, height: 800 };
      const otherSize = vp === 'desktop' ? PAGE_SIZE.phone : PAGE_SIZE.desktop;
      await page.setViewportSize(other);
      await eventually(async () => assert.equal((await shownIds(page)).length, otherSize));
      assert.ok((await shownIds(page)).includes(firstShown), 'the first card is still on the page shown');
      const expectedPage = Math.floor(list.findIndex((c) => c.id === firstShown) / otherSize) + 1;
      await eventually(() => assert.equal(queryOf(page), expectedPage > 1 ? `page=${expectedPage}&per=${otherSize}` : ''));
      env.assertNoConsoleErrors(page);
    });

    it(`a page link made on the other screen size starts with the same command (${vp})`, async () => {
      const list = await cmds();
      const otherSize = vp === 'desktop' ? PAGE_SIZE.phone : PAGE_SIZE.desktop;
      // Page 3 as the other screen counts it: its first command is the one at (3 - 1) x otherSize.
      const first = list[2 * otherSize];
      const page = await env.open(vp, `/commands?page=3&per=${otherSize}`);
      await visible(page.getByTestId('command-card'));
      await eventually(async () => assert.ok((await shownIds(page)).includes(first.id), `${first.name} is on the page shown`));
      const expectedPage = Math.floor((2 * otherSize) / PAGE_SIZE[vp]) + 1;
      await eventually(() => assert.equal(queryOf(page), `page=${expectedPage}&per=${PAGE_SIZE[vp]}`));
      assert.match(await pageIndicator(page), new RegExp(`^Page ${expectedPage} of`));
      env.assertNoConsoleErrors(page);
    });
  }
});
