// The Instances view's rows for launches this window does not drive (a `gpu-rent launch` in a
// terminal, one left half way): read from the real state files of a real task file on disk.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statePath, writeState } from '../../src/app/launch/store';
import { newLaunchState, type LaunchState } from '../../src/core/task/launch';
import { refreshLaunchRows, type AwayWatch } from '../../src/extension/commands/launch/watchRows';
import type { BoxView } from '../../src/app/launch/away';
import { launchRowText } from '../../src/extension/view/launchRows';
import { ENGLISH } from '../../src/core/l10n';

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

  it("close the lid: an armed launch's box is asked once per period (not for one without a supervisor); its view goes beside the row; an ended run is handed to `ended`", async () => {
    const file = join(dir, 'gpu-rent.yaml');
    const armed: LaunchState = { ...newLaunchState({ task: 'a', file, taskDigest: 'x', smoke: false, now: 1 }), phase: 'watch', job: { name: 'a', startedAt: 1, attempt: 1 }, unattended: { powerOff: false, store: 'loc/runs/a/' } };
    await writeState(statePath(home, file, 'a'), armed);
    await writeState(statePath(home, file, 'b'), { ...armed, task: 'b', unattended: undefined });
    const view: BoxView = { source: 'store', running: null, heartbeatAgeSeconds: null, state: 'done finished', outcome: 'finished', done: true, actionFailed: false, lastStep: 80, stored: [{ name: 'step-80', step: 80 }], messaged: ['finished/phone'] };
    const asked: string[] = [];
    const ended: string[] = [];
    const views = new Map<string, BoxView | undefined>();
    const watch: AwayWatch = { read: async (st) => (asked.push(st.task), { kind: 'read', view }), ended: (k) => ended.push(k), everyMs: 60_000, lastRead: new Map(), reading: new Set() };
    const rows = { setLaunch: () => undefined, setAway: (k: string, v: BoxView | undefined) => views.set(k, v) };
    const shown = await refreshLaunchRows(rows, dir, new Map(), home, watch);
    for (let i = 0; i < 50 && !ended.length; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(asked, ['a']);
    assert.deepEqual(ended, [`${file}#a`]);
    assert.equal(views.get(`${file}#a`)?.outcome, 'finished');
    await refreshLaunchRows(rows, dir, shown, home, watch);
    assert.deepEqual(asked, ['a'], 'not again within the period');
    // The row's words: the box's end on the row, its line in the tooltip.
    const t = launchRowText(armed, 2, ENGLISH, view);
    assert.match(t.description, /the box: the run finished/);
    assert.match(t.tooltip, /ended while you were away \(the box says: the run finished\); stored step-80; messaged phone/);
  });

  it("a sweep's runs: a row for each run in progress (lora-1 … lora-N), none for the sweep's own name", async () => {
    writeFileSync(join(dir, 'gpu-rent.yaml'), 'name: lora\nrun: python train.py --lr {lr}\nmatrix: {lr: [1e-4, 3e-4]}\n');
    const file = join(dir, 'gpu-rent.yaml');
    await writeState(statePath(home, file, 'lora-2'), { ...newLaunchState({ task: 'lora-2', file, taskDigest: 'x', smoke: false, now: 1 }), phase: 'watch' });
    const rows = new Map<string, LaunchState>();
    await refreshLaunchRows({ setLaunch: (k, st) => (st ? rows.set(k, st) : rows.delete(k)) }, dir, new Map(), home);
    assert.deepEqual([...rows.keys()], [`${file}#lora-2`]);
  });

  it('no folder, no task file or a broken one: no rows, no error', async () => {
    const tree = { setLaunch: () => assert.fail('no row expected') };
    assert.equal((await refreshLaunchRows(tree, undefined, new Map(), home)).size, 0);
    writeFileSync(join(dir, 'gpu-rent.yaml'), 'name: [\n');
    assert.equal((await refreshLaunchRows(tree, dir, new Map(), home)).size, 0);
  });
});
