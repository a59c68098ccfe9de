// The Updates page (/discord-news) against a fake Discord (examples/fake_discord.rs): summaries with their
// source and time, the manual refresh's 1-second 'Refreshing...', and the member count on the footer and the
// advertise page; without Discord, the two empty messages. Desktop and phone.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useSuite, exampleBin, UI_DIR, VIEWPORT_NAMES, visible, eventually } from './harness.mjs';

const GAME = '111111111111111111';
const COMMUNITY = '222222222222222222';

/** A copy of the bundled site file with the fake's channels and invite in it. */
function discordSiteFile() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fanhub-discord-'));
  const site = readFileSync(path.resolve(UI_DIR, '../data/site.toml'), 'utf8')
    .replace('game_channels = []', `game_channels = ["${GAME}"]`)
    .replace('community_channels = []', `community_channels = ["${COMMUNITY}"]`)
    .replace('# invite_code = "alexoria"', 'invite_code = "fans"');
  writeFileSync(path.join(dir, 'site.toml'), site);
  return { file: path.join(dir, 'site.toml'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const fakeDiscord = {
  name: 'discord',
  command: () => process.env.FAKE_DISCORD_BIN ?? exampleBin('fake_discord'),
  args: ['--seed', `${GAME},${COMMUNITY}`, '--members', '4321'],
  ready: /listening on (http:\/\/\S+)/,
  serverEnv: (m) => ({ FANHUB_DISCORD_TOKEN: 'fake-bot-token', FANHUB_DISCORD_API: `${m[1]}/api/v10` }),
};

describe('updates page with Discord', () => {
  const site = discordSiteFile();
  after(site.cleanup);
  const env = useSuite({ serverArgs: ['--site', site.file], services: [fakeDiscord] });

  for (const vp of VIEWPORT_NAMES) {
    it(`summaries, their source and time, and the manual refresh (${vp})`, async () => {
      await eventually(async () => assert.ok((await env.api('/api/discord/game-updates')).gameUpdates.length > 0));
      const page = await env.open(vp, '/discord-news');
      await visible(page.getByRole('heading', { level: 1, name: /Game Updates/ }));
      await visible(page.getByText('Updates refresh every 2 minutes', { exact: false }));
      await visible(page.getByText('Update 2.4 is live: Added the desert map and fixed the voting timer on large servers.'));
      await visible(page.getByText('Our clan finished the floating castle build', { exact: false }));
      assert.equal(await page.getByText('lol', { exact: true }).count(), 0, 'chatter is dropped');
      const source = page.getByTestId('game-game-source');
      assert.match(await source.innerText(), /^Extractive summary of 3 messages,/);
      assert.ok(await source.locator('time').getAttribute('datetime'));

      const button = page.getByRole('button', { name: 'Refresh', exact: true });
      const started = Date.now();
      await button.click();
      await visible(page.getByRole('button', { name: 'Refreshing...', exact: true }));
      await visible(page.getByRole('button', { name: 'Refresh', exact: true }), 3000);
      const took = Date.now() - started;
      assert.ok(took >= 900 && took < 2500, `Refreshing... shown for about a second (${took} ms)`);
      env.assertNoConsoleErrors(page);
    });

    it(`the member count shows on the footer and the advertise page (${vp})`, async () => {
      await eventually(async () => assert.equal((await env.api('/api/stats')).discordMembers, 4321));
      const page = await env.open(vp, '/advertise');
      await visible(page.getByTestId('audience-discordMembers').getByText('4,321'));
      await visible(page.locator('footer').getByText('Discord members'));
      await visible(page.locator('footer').getByText('4,321'));
      env.assertNoConsoleErrors(page);
    });
  }
});

describe('updates page without Discord', () => {
  const env = useSuite();

  for (const vp of VIEWPORT_NAMES) {
    it(`both empty messages and why (${vp})`, async () => {
      const page = await env.open(vp, '/discord-news');
      await visible(page.getByText('No recent game updates available'));
      await visible(page.getByText('No recent community highlights available'));
      await visible(page.getByText('has not connected its Discord channels', { exact: false }));
      assert.equal(await page.locator('footer').getByText('Discord members').count(), 0, 'no member count when unknown');
      env.assertNoConsoleErrors(page);
    });
  }
});
