// axe-core in a page, for the accessibility checks of every suite (WCAG 2.1 A/AA plus the structure rules).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
// Not WCAG failures by themselves, but what "headings in order" and "one main heading" mean.
const STRUCTURE_RULES = ['heading-order', 'page-has-heading-one', 'landmark-one-main', 'region'];

/** Runs axe-core in the page (evaluated through the DevTools protocol, so the site's CSP stays on). */
export async function axeViolations(page, { structure = true } = {}) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    async ({ tags, rules, structure }) => {
      const summarize = (v) =>
        v.map((x) => ({
          id: x.id,
          help: x.help,
          nodes: x.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
          count: x.nodes.length,
        }));
      const wcag = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
      const out = summarize(wcag.violations);
      if (structure) {
        const s = await window.axe.run(document, { runOnly: { type: 'rule', values: rules }, resultTypes: ['violations'] });
        out.push(...summarize(s.violations));
      }
      return out;
    },
    { tags: WCAG_TAGS, rules: STRUCTURE_RULES, structure },
  );
}

export function assertClean(violations, where) {
  assert.deepEqual(
    violations,
    [],
    `${where}: ${violations.length} axe rule(s) failed:\n${violations
      .map((v) => `- ${v.id} (${v.count}x): ${v.help}\n    ${v.nodes.join('\n    ')}`)
      .join('\n')}`,
  );
}

