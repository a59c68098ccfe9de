// The fake Roblox (examples/fake_roblox.rs over tests/testsuite/common/fake_roblox.rs) and the site file the roblox suite
// runs with. The fake makes players up from their names: `og*` joined 2009 and owns every ELC badge asked about,
// `new*` joined 2025, `ghost*` does not exist, `mid*` owns no ELC badge; award dates need a cookie unless told
// otherwise; POST /_fake/modes switches modes while it runs (`{"down": true}`: every endpoint answers 503;
// `{"elcOwners": ["lowercasename"]}`: that player owns every ELC badge from then on; also `displayNames`, `renamed`).
// The suite reads every expected figure from the server's own answers; only the names to ask for live here.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UI_DIR } from './harness.mjs';

/** Seven ELC badges (more than the bot page's 5) and three tracked badges the fake knows. */
export const ELC_IDS = [2124001, 2124002, 2124003, 2124004, 2124005, 2124006, 2124007];
export const TRACKED_IDS = [2124001, 2124010, 2124020];

export const FAKE = {
  ready: /fake-roblox listening on (http:\/\/127\.0\.0\.1:\d+)/,
  /** FANHUB_ROBLOX_API for the fake listening at `base`. */
  template: (base) => `${base}/{service}`,
  /** Any cookie will do: the fake only checks that one is sent. */
  cookie: 'e2e-roblox-cookie',
  veteran: 'OgBuilder',
  newgen: 'NewPlayer',
  /** Owns all 7 ELC badges. */
  manyElc: 'VetCollector',
  unknown: 'GhostPlayer',
  badUsername: 'bad name!',
  /** A prefix for names never looked up before (so no cache answers for them). */
  fresh: 'MidFresh',
  /** The key the fake's Open Cloud endpoints accept (FANHUB_ROBLOX_OPEN_CLOUD_KEY). */
  openCloudKey: 'fake-open-cloud-key',
  /** Through Open Cloud: an inventory Roblox refuses to show (403). */
  privateInventory: 'PrivateBuilder',
  /** Its thumbnails point at Roblox's CDN: the suite answers those itself (never the internet). */
  cdn: 'https://tr.rbxcdn.com/**',
};

/**
 * siteFile() replacements for the follows: followed players re-checked every 0.0005 h (about 2 s), and more calls a
 * minute to the fake than Roblox takes (the budgets' background share would otherwise hold a re-check up to a minute).
 */
export const QUICK_RECHECKS = [
  [/^recheck_hours = 6$/m, 'recheck_hours = 0.0005'],
  [/^budgets_above_probed_limits = false$/m, 'budgets_above_probed_limits = true'],
  [/^\[roblox\.budgets\]$/m, '[roblox.budgets]\n"users/v1/users/{id}" = 600\n"badges/v1/users/{id}/badges/awarded-dates" = 600'],
];

/** Switches the running fake's modes (a partial object, e.g. {down: true}). */
export async function setFakeModes(baseUrl, modes) {
  const res = await fetch(`${baseUrl}/_fake/modes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(modes) });
  if (!res.ok) throw new Error(`POST /_fake/modes answered ${res.status}`);
}

/**
 * A copy of the bundled data/site.toml with the ELC and tracked badges filled in and the monitor polled every
 * `pollSecs` seconds, and any `more` replacements ([RegExp, text] pairs, each of which must match); returns its path
 * and a cleanup function.
 */
export function siteFile(pollSecs, more = []) {
  let text = readFileSync(path.resolve(UI_DIR, '../data/site.toml'), 'utf8');
  for (const [from, to] of [
    [/^elc = \[\]$/m, `elc = [${ELC_IDS.join(', ')}]`],
    [/^tracked = \[\]$/m, `tracked = [${TRACKED_IDS.join(', ')}]`],
    [/^badge_monitor_secs = \d+$/m, `badge_monitor_secs = ${pollSecs}`],
    ...more,
  ]) {
    if (!from.test(text)) throw new Error(`data/site.toml has no line matching ${from}: update e2e/roblox-fake.mjs`);
    text = text.replace(from, to);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fanhub-e2e-site-'));
  const file = path.join(dir, 'site.toml');
  writeFileSync(file, text);
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
