// Issue 41 bug 9 (tree and toast parts) and the power-actions friction item: the accounts are read
// again when a launch ends or leaves a box; the card wait's "next try in N s" counts down; allowing
// power actions is a button that writes the setting, and a listed account is not told they are off.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LaunchRows } from '../../src/app/launch/rows';
import { newLaunchState, type LaunchState } from '../../src/core/task/launch';
import { followLaunchEnds, launchChangedBilling } from '../../src/extension/monitors/launchEnds';
import { Countdown, secondsLeft } from '../../src/extension/countdown';

const src = (f: string) => readFileSync(join(__dirname, '..', '..', f), 'utf8');
const box = { candidate: 0, kind: 'platform' as const, label: 'AutoDL i-1', account: 'acc1', ref: 'i-1', priceFenPerHour: 198, spot: false, acquiredAt: 100 };
const base = (): LaunchState => ({ ...newLaunchState({ task: 't', file: '/p/gpu-rent.yaml', taskDigest: 'x', smoke: false, now: 100 }), phase: 'watch', box });

describe('the tree follows a launch’s end at once (issue 41 bug 9)', () => {
  it('an end phase, an end action, or a box left moves billing; a progress update does not', () => {
    const w = base();
    assert.equal(launchChangedBilling(w, { ...w, progress: { step: 5, total: 60, etaSeconds: 1, costToFinishFen: 1, loss: 1 } }), false);
    assert.equal(launchChangedBilling(w, { ...w, phase: 'end', end: { action: 'power-off', ok: true, stillBilling: false, detail: 'stopped' } }), true);
    assert.equal(launchChangedBilling(w, { ...w, phase: 'done' }), true);
    assert.equal(launchChangedBilling(w, { ...w, box: { ...box, leftAt: 200, leftBecause: 'ended' } }), true);
    const done = { ...w, phase: 'done' as const };
    assert.equal(launchChangedBilling(done, { ...done, updatedAt: 300 }), false, 'once ended, a later save is no new change');
  });
  it('the rows model: the platform poll runs when the launch powers its box off, not on every save nor on an old row seen again', () => {
    const rows = new LaunchRows();
    let polls = 0;
    const sub = followLaunchEnds(rows, () => polls++);
    rows.setLaunch('k', { ...base(), phase: 'done' });
    assert.equal(polls, 0, 'an ended launch shown for the first time');
    rows.setLaunch('j', base());
    rows.setLaunch('j', { ...base(), updatedAt: 150 });
    assert.equal(polls, 0);
    rows.setLaunch('j', { ...base(), phase: 'end', end: { action: 'power-off', ok: true, stillBilling: false, detail: 'stopped' }, box: { ...box, leftAt: 200, leftBecause: 'ended' } });
    assert.equal(polls, 1);
    sub.dispose();
    assert.match(src('src/extension/extension.ts'), /followLaunchEnds\(launches, \(\) => void platformMonitor\.pollNow\(true\)/);
  });
});

describe('the card wait counts down (issue 41 bug 9)', () => {
  it('next try in 16 s → 15 → … → 0, each second, stopped by the next try', () => {
    let now = 0;
    const c = new Countdown(() => now);
    const said: number[] = [];
    const timers: (() => void)[] = [];
    const real = global.setInterval;
    (global as unknown as { setInterval: unknown }).setInterval = (f: () => void) => (timers.push(f), 1);
    try {
      c.start(16_000, (s) => said.push(s));
      for (let i = 0; i < 3; i++) {
        now += 1000;
        timers[0]!();
      }
    } finally {
      global.setInterval = real;
      c.stop();
    }
    assert.deepEqual(said, [16, 15, 14, 13]);
    assert.equal(secondsLeft(5_500, 0), 6);
    assert.equal(secondsLeft(0, 9_000), 0);
    assert.match(src('src/extension/commands/platforms/powerOnWhenFree.ts'), /countdown\.start\(r\.nextInMs/);
  });
});

describe('allowing power actions (issue 41 friction, bug 9)', () => {
  it('"power actions are off" always comes with the Allow button; a listed account is told they are on', () => {
    for (const f of ['power.ts', 'create.ts', 'powerOnWhenFree.ts', 'clone.ts']) {
      const s = src(`src/extension/commands/platforms/${f}`);
      assert.doesNotMatch(s, /new UserError\(vscode\.l10n\.t\('Power actions are off/, f);
      assert.match(s, /powerActionsOff\(/, f);
    }
    const acc = src('src/extension/commands/platforms/accounts.ts');
    assert.match(acc, /if \(mon\.powerAllowed\(account\.id\)\)[^\n]*Power actions are on for it/);
  });
  it('no free card at Power On: Start When a Card Is Free… and (where the platform clones) Clone as buttons, for noStock and noGpuOnHost', () => {
    const s = src('src/extension/commands/platforms/power.ts');
    assert.match(s, /e\.failure\.kind === 'noGpuOnHost' \|\| e\.failure\.kind === 'noStock'/);
    assert.match(s, /Start When a Card Is Free…'\), run: \(\) => vscode\.commands\.executeCommand\(Commands\.powerOnWhenFree/);
  });
});
