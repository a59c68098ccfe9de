// What the fake Roblox (examples/fake_roblox.rs) knows: its players and how the server reaches it. The e2e suite
// reads its expectations from the server's own answers; only the names to ask for live here.
export const FAKE = {
  /** FANHUB_ROBLOX_API for the fake listening at `base`. */
  template: (base) => `${base}/{service}`,
  /** Any cookie: the fake answers award dates only when one is sent. */
  cookie: 'e2e-roblox-cookie',
  veteran: 'OldBuilder',
  newgen: 'FreshPlayer',
  manyElc: 'OldBuilder',
  unknown: 'NoSuchPlayer404',
  badUsername: 'bad name!',
  /** A prefix for names never looked up before (so no cache answers for them). */
  fresh: 'Uncached',
  /** How long the server takes to mark the monitor stale once Roblox is gone. */
  staleAfterMs: 30_000,
};
