// The Instances view's rows for launches this window does not drive (a `gpu-rent launch` in a
// terminal, one left half way): read from the real state files of a real task file on disk.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statePath, writeState } from '../../src/app/launch/store';
import { newLaunchState, type LaunchState } from '../../src/core/task/launch';
import { refreshLaunchRows } from '../../src/extension/commands/launch/watchRows';

describe('launch rows from the state files (extension/commands/launch/watchRows)', () => {
  let dir: string;
  let home: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rent-rows-'));
    home = join(dir, 'cfg');
    writeFileSync(join(dir, 'gpu-rent.yaml'), 'tasks:\n  - {name: a, run: python a.py}\n  - {name: b, run: python b.py}\n  - {name: c, run: python c.py}\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a row per launch in progress, none for an ended one or one never launched; a row goes once its launch ends', async () => {
    const file = join(dir, 'gpu-rent.yaml');
    const st = (task: string, phase: LaunchState['phase']): LaunchState => ({ ...newLaunchState({ task, file, taskDigest: 'x', smoke: false, now: 1 }), phase });
    await writeState(statePath(home, file, 'a'), st('a', 'watch'));
    await writeState(statePath(home, file, 'b'), st('b', 'done'));
    const rows = new Map<string, LaunchState>();
    const tree = { setLaunch: (k: string, s: LaunchState | undefined) => (s ? rows.set(k, s) : rows.delete(k)) };
    let draws = 0;
    const counted = { setLaunch: (k: string, s: LaunchState | undefined) => (draws++, tree.setLaunch(k, s)) };
    const shown = await refreshLaunchRows(counted, dir, new Map(), home);
    assert.deepEqual([...rows.keys()], [`${file}#a`]);
    assert.equal(rows.get(`${file}#a`)!.phase, 'watch');
    assert.deepEqual([...shown.keys()], [`${file}#a`]);
    // Unchanged state: the row is not drawn again (a tree redrawn under the pointer moves menus).
    assert.equal(draws, 1);
    await refreshLaunchRows(counted, dir, shown, home);
    assert.equal(draws, 1);
    await writeState(statePath(home, file, 'a'), st('a', 'done'));
    const after = await refreshLaunchRows(counted, dir, shown, home);
    assert.equal(rows.size, 0);
    assert.equal(after.size, 0);
  });

  it('no folder, no task file or a broken one: no rows, no error', async () => {
    const tree = { setLaunch: () => assert.fail('no row expected') };
    assert.equal((await refreshLaunchRows(tree, undefined, new Map(), home)).size, 0);
    writeFileSync(join(dir, 'gpu-rent.yaml'), 'name: [\n');
    assert.equal((await refreshLaunchRows(tree, dir, new Map(), home)).size, 0);
  });
});
