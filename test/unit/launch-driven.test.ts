// Whether a live gpu-rent drives a launch now (its lock file, read without taking it): launch
// --status and the launch rows ask the box only when none does (app/launch/away.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchDriven, lockLaunch, statePath } from '../../src/app/launch/store';

describe('launchDriven (app/launch/store)', () => {
  it('true while a live process holds the launch lock, false once released, false for a lock a dead pid left; reading never takes the lock', () => {
    const home = mkdtempSync(join(tmpdir(), 'gpu-rent-driven-'));
    try {
      const path = statePath(home, '/work/p/gpu-rent.yaml', 'lora');
      assert.equal(launchDriven(path), false);
      const lock = lockLaunch(path);
      assert.ok('release' in lock);
      assert.equal(launchDriven(path), true);
      assert.equal(launchDriven(path), true, 'asking twice does not take or drop it');
      lock.release();
      assert.equal(launchDriven(path), false);
      const again = lockLaunch(path);
      assert.ok('release' in again, 'the lock is free to take after a read');
      // A lock file whose pid is gone is not a driver.
      again.release();
      const dead = lockLaunch(path);
      assert.ok('release' in dead);
      const file = readdirSync(join(path, '..')).find((f) => f.endsWith('.lock'))!;
      writeFileSync(join(path, '..', file), JSON.stringify({ pid: 2 ** 22 + 12345, what: 'launch' }));
      assert.equal(launchDriven(path), false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
