// Issue 41 bug 9 (tree and toast parts) and the power-actions friction item: the accounts are read
// again when a launch ends or leaves a box; the card wait's "next try in N s" counts down; allowing
// power actions is a button that writes the setting, and a listed account is not told they are off.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LaunchRows } from '../../src/app/launch/rows';
import { newLaunchState, type LaunchState } from '../../src/core/task/launch';
import { boxesPoweredOff, followLaunchEnds, instancesToStop, launchChangedBilling } from '../../src/extension/monitors/launchEnds';
import { createInstance } from '../../src/core/instances';
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
    assert.match(src("src/extension/extension.ts"), /followLaunchEnds\(launches, \(off\) => \{\s*void platformMonitor\.pollNow\(true\)/);
  });
});

describe('a manual box the launch powered off is recorded stopped at once (issue 41 bug 9)', () => {
  const ssh = { candidate: 0, kind: 'ssh' as const, label: 'root@10.0.0.5:22', priceFenPerHour: 198, spot: false, acquiredAt: 100 };
  const manual = createInstance({ id: 'm1', name: 'box', platform: 'autodl', card: 'RTX 3090', gpuCount: 1, login: { host: '10.0.0.5', port: 22, user: 'root', auth: 'agent' }, pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 0, storageGbDay: 0, dataDiskGb: 0 } }, 'running', 100);
  const w: LaunchState = { ...base(), box: ssh };
  it('a verified power-off of an SSH box names it; a failed one, a still-billing one or another end does not', () => {
    const end = (ok: boolean, action = 'power-off', stillBilling = false) => ({ ...w, phase: 'done' as const, end: { action, ok, stillBilling, detail: '' } });
    assert.deepEqual(boxesPoweredOff(w, end(true)).map((b) => b.label), ['root@10.0.0.5:22']);
    assert.deepEqual(boxesPoweredOff(w, end(false)), []);
    assert.deepEqual(boxesPoweredOff(w, end(true, 'power-off', true)), []);
    assert.deepEqual(boxesPoweredOff(w, end(true, 'none')), []);
    assert.deepEqual(boxesPoweredOff(end(true), end(true)), [], 'said once');
  });
  it('only the stored manual instance with that login that is still recorded running', () => {
    assert.deepEqual(instancesToStop([ssh], [manual]).map((i) => i.id), ['m1']);
    assert.deepEqual(instancesToStop([ssh], [{ ...manual, platformRef: { account: 'a', ref: 'r' } }]), [], 'a linked one: the platform poll says');
    assert.deepEqual(instancesToStop([{ ...ssh, label: 'root@10.0.0.6:22' }], [manual]), []);
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
