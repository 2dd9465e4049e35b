// The launch's decisions added for issue 41 (app/launch/rules, words, endCheck, password): the
// task's end checked up front with the rule `run --then` uses, a diverged run's words, the final
// figures of an ended run, the bound on a derived cost, and which login a user's password is for.
import assert from 'node:assert/strict';
import { endRefusal, progressPatch } from '../../src/app/launch/rules';
import { divergedDetail, endRefusalText, progressText } from '../../src/app/launch/words';
import { endRefusedUpFront } from '../../src/app/launch/endCheck';
import { passwordMeantFor } from '../../src/app/launch/password';
import { emptyProgress, estimateFinish, ProgressTracker } from '../../src/core/progress';
import { COST_TO_FINISH_CAP_FEN, newLaunchState } from '../../src/core/task/launch';
import { launchRowText } from '../../src/extension/view/launchRows';
import { LaunchToastText } from '../../src/extension/commands/launch/reportText';
import type { Task } from '../../src/core/task/types';
import type { LaunchAccount } from '../../src/app/launch/boxes';
import type { Connector } from '../../src/core/platforms/types';
import { l10nIn } from '../../src/cli/words';

const task = (o: Partial<Task>): Task => ({ name: 't', resources: { cards: ['rtx4090'], gpus: 1, platforms: [], spot: false }, instances: [], workdir: '.', remoteWorkdir: '~/gpu-rent/t', data: [], setup: [], run: 'python train.py', env: {}, end: 'none', smoke: {}, reclaimAfterSeconds: 120, ...o });
const account = (kind: 'autodl-pro' | 'autodl-web', powerActions = true, id = 'acc'): LaunchAccount => ({ id, powerActions, connector: { kind } as unknown as Connector });

describe('launch end check (app/launch/rules endRefusal, endCheck)', () => {
  it('no-GPU mode: refused on an SSH login (no account) and on AutoDL Pro (its API has no no-GPU start); the console-token account can', () => {
    assert.equal(endRefusal('no-gpu', { boxPower: 'root', probed: true, created: false }), 'noGpuNeedsAccount');
    assert.equal(endRefusal('no-gpu', { account: { kind: 'autodl-pro', powerAllowed: true }, boxPower: 'unknown', probed: false, created: false }), 'platformCannotNoGpu');
    assert.equal(endRefusal('no-gpu', { account: { kind: 'autodl-web', powerAllowed: true }, boxPower: 'unknown', probed: false, created: false }), null);
    assert.equal(endRefusal('no-gpu', { account: { kind: 'autodl-web', powerAllowed: false }, boxPower: 'unknown', probed: false, created: false }), 'accountReadOnly');
  });

  it('power-off: through the account where it can, else the login must be root or sudo -n (refused once probed as neither); unknown before the probe', () => {
    assert.equal(endRefusal('power-off', { account: { kind: 'autodl-pro', powerAllowed: true }, boxPower: 'none', probed: true, created: false }), null);
    assert.equal(endRefusal('power-off', { boxPower: 'unknown', probed: false, created: false }), null, 'not told yet');
    assert.equal(endRefusal('power-off', { boxPower: 'none', probed: true, created: false }), 'boxCannotPowerOff');
    assert.equal(endRefusal('power-off', { boxPower: 'unknown', probed: true, created: false }), 'boxPowerUnknown');
    assert.equal(endRefusal('power-off', { boxPower: 'sudo', probed: true, created: false }), null);
    assert.equal(endRefusal('power-off', { boxPower: 'root', probed: true, created: false }), null);
  });

  it('release: only an instance the launch created; none: always', () => {
    assert.equal(endRefusal('release', { account: { kind: 'autodl-pro', powerAllowed: true }, boxPower: 'root', probed: true, created: false }), 'releaseNotCreated');
    assert.equal(endRefusal('release', { account: { kind: 'autodl-pro', powerAllowed: true }, boxPower: 'root', probed: true, created: true }), null);
    assert.equal(endRefusal('none', { boxPower: 'none', probed: true, created: false }), null);
  });

  it('up front, from the task and the accounts alone: no-gpu on an SSH login, release of a named instance, no-gpu where every account that could create is AutoDL Pro', () => {
    const en = l10nIn('en');
    const ssh = { kind: 'ssh' as const, login: 'ssh://u@h:22' };
    assert.match(endRefusedUpFront(task({ end: 'no-gpu', instances: [ssh] }), [], en)!, /^end: no-gpu cannot happen on ssh:\/\/u@h:22: no-GPU mode is a platform API call.*end: power-off.*Nothing was started\.$/);
    assert.equal(endRefusedUpFront(task({ end: 'power-off', instances: [ssh] }), [], en), null, 'the login is probed once connected');
    assert.match(endRefusedUpFront(task({ end: 'release', instances: [{ kind: 'named', ref: 'box1' }] }), [account('autodl-pro')], en)!, /end: release cannot happen on box1: the launch releases only an instance it created .*even with --yes/);
    assert.equal(endRefusedUpFront(task({ end: 'release', instances: [{ kind: 'new' }] }), [account('autodl-pro')], en), null);
    assert.match(endRefusedUpFront(task({ end: 'no-gpu', instances: [{ kind: 'new' }] }), [account('autodl-pro')], en)!, /AutoDL Pro's API has no no-GPU start/);
    assert.equal(endRefusedUpFront(task({ end: 'no-gpu', instances: [{ kind: 'new' }] }), [account('autodl-pro', true, 'a'), account('autodl-web', true, 'b')], en), null, 'one account can');
    // Chinese, from the bundle.
    assert.match(endRefusedUpFront(task({ end: 'no-gpu', instances: [ssh] }), [], l10nIn('zh-cn'))!, /^end: no-gpu 无法在 ssh:\/\/u@h:22 上执行：无卡模式要通过平台 API 切换.*什么都没有启动。$/);
    assert.match(endRefusalText('power-off', 'u@h:22', 'boxCannotPowerOff', l10nIn('zh-cn'), { user: 'alice' }), /登录用户 alice 不是 root/);
  });
});

describe('launch progress words (app/launch/words, rules.progressPatch)', () => {
  const feed = (text: string) => {
    const t = new ProgressTracker();
    t.feed(text, 1_800_000_000);
    return t.progress;
  };
  let log = '';
  for (let i = 1; i <= 37; i++) log += ` ${Math.floor((i * 100) / 60)}%|#   | ${i}/60 [00:01<00:05, 5.00it/s]\n{'loss': ${i >= 5 ? 'nan' : (2.5 - i * 0.01).toFixed(4)}, 'learning_rate': 5e-05, 'epoch': 0.1}\n`;

  it('a diverged run says its divergence (NaN for N readings since step 5), never the last finite loss, and no ETA or cost to finish', () => {
    const p = feed(log);
    const f = estimateFinish(p, { computeFenPerHour: 198, storageFenPerDay: 0 }, { boxNow: 1_800_000_000, localNow: 1_800_000_000, alive: true });
    const patch = progressPatch(p, f, false);
    assert.deepEqual(patch.diverged, { value: 'nan', readings: 33, since: 1_800_000_000, step: 5, lastFiniteLoss: 2.46 });
    const text = progressText(patch);
    assert.equal(text, 'step 37/60 · loss NaN for 33 readings since step 5 (diverged)');
    assert.doesNotMatch(text, /2\.46|ETA|to finish/);
    assert.equal(divergedDetail(patch.diverged!), 'diverged: loss NaN for 33 readings since step 5');
    assert.equal(progressText(patch, l10nIn('zh-cn')), '第 37/60 步 · 损失连续 33 次为 NaN（自第 5 步起）（已发散）');
  });

  it('a finished run keeps its last figures without an ETA or a cost to finish', () => {
    let done = '';
    for (let i = 1; i <= 40; i++) done += ` ${Math.floor((i * 100) / 40)}%|#   | ${i}/40 [00:01<00:05, 5.00it/s]\n`;
    const p = feed(done);
    const f = estimateFinish(p, { computeFenPerHour: 198, storageFenPerDay: 0 }, { boxNow: 1_800_000_000, localNow: 1_800_000_000, alive: true });
    const patch = progressPatch(p, f, true);
    assert.deepEqual([patch.step, patch.total, patch.etaSeconds, patch.costToFinishFen, patch.final], [40, 40, null, null, true]);
    assert.equal(progressText(patch), 'step 40/40');
    assert.equal(progressText({ ...patch, final: undefined, etaSeconds: 60, costToFinishFen: 2 }), 'step 40/40 · ETA 1 min · ¥0.02 to finish', 'the words a finished run no longer says');
  });

  it('a tqdm total of 999999999999 at 0.01 it/s: the cost to finish is over the bound, kept unknown and said as more than the bound', () => {
    const p = feed('  0%|  | 1/999999999999 [00:01<99:99, 0.01it/s]\n');
    const f = estimateFinish(p, { computeFenPerHour: 198, storageFenPerDay: 0 }, { boxNow: 1_800_000_000, localNow: 1_800_000_000, alive: true });
    assert.ok((f.costToFinishFen ?? 0) > COST_TO_FINISH_CAP_FEN, String(f.costToFinishFen));
    const patch = progressPatch(p, f, false);
    assert.equal(patch.costToFinishFen, null);
    assert.match(progressText(patch, undefined, { overCapFen: COST_TO_FINISH_CAP_FEN }), /> ¥100,000,000\.00 to finish|> ¥100000000\.00 to finish/);
    assert.equal(progressText({ ...emptyProgressPatch() }), '');
  });
});

function emptyProgressPatch() {
  return progressPatch(emptyProgress(), null, false);
}

describe("the user's password goes only to the login it is meant for (app/launch/password)", () => {
  const box = (kind: 'ssh' | 'platform', host: string, port: number, user?: string) => ({ kind, target: { host, port, ...(user ? { user } : {}) } });
  it('the login --password-for names: same host, port and user; not another login a cloned task names, never a platform box', () => {
    assert.equal(passwordMeantFor(box('ssh', '127.0.0.1', 2222, 'me'), 'me@127.0.0.1:2222'), true);
    assert.equal(passwordMeantFor(box('ssh', '127.0.0.1', 2222, 'me'), 'ssh://me@127.0.0.1:2222'), true);
    assert.equal(passwordMeantFor(box('ssh', 'evil.example', 22, 'root'), 'me@127.0.0.1:2222'), false);
    assert.equal(passwordMeantFor(box('ssh', '127.0.0.1', 2223, 'me'), 'me@127.0.0.1:2222'), false, 'another port');
    assert.equal(passwordMeantFor(box('ssh', '127.0.0.1', 2222, 'root'), 'me@127.0.0.1:2222'), false, 'another user');
    assert.equal(passwordMeantFor(box('platform', '127.0.0.1', 2222, 'me'), 'me@127.0.0.1:2222'), false);
    assert.equal(passwordMeantFor(box('ssh', '127.0.0.1', 2222, 'me'), undefined), false, 'named nowhere: offered nowhere');
  });
});

describe('the launch row says a divergence (extension/view/launchRows)', () => {
  it('step and divergence on the row, in the words of the watch lines; in Chinese through the bundle', () => {
    const s = { ...newLaunchState({ task: 'lora', file: '/r/gpu-rent.yaml', taskDigest: 'd', smoke: false, now: 1000 }), phase: 'watch' as const, progress: { step: 37, total: 60, etaSeconds: null, costToFinishFen: null, loss: 2.05, diverged: { value: 'nan' as const, readings: 23, since: 1000, step: 5, lastFiniteLoss: 2.05 } } };
    const en = launchRowText(s, 2000, l10nIn('en')).description;
    assert.match(en, /step 37\/60 · loss NaN for 23 readings since step 5 \(diverged\)/);
    assert.doesNotMatch(en, /2\.05/);
    assert.match(launchRowText(s, 2000, l10nIn('zh-cn')).description, /损失连续 23 次为 NaN（自第 5 步起）（已发散）/);
  });
});

describe('the launch toast follows the row (extension/commands/launch/reportText LaunchToastText)', () => {
  it('a state read without an event still moves it (5/60 → 32/60); a watch line does not replace the latest other event; a divergence shows; zh too', () => {
    const base = { ...newLaunchState({ task: 'lora', file: '/r/gpu-rent.yaml', taskDigest: 'd', smoke: false, now: 1000 }), phase: 'watch' as const };
    const at = (step: number, extra: object = {}) => ({ ...base, progress: { step, total: 60, etaSeconds: 60, costToFinishFen: 2, loss: 1.5, ...extra } });
    const t = new LaunchToastText(l10nIn('en'));
    assert.match(t.next(at(5), 2000, 'run: started lora (pid 1, via tmux)')!, /step 5\/60 .*— run: started lora/);
    assert.equal(t.next(at(5), 2000), undefined, 'nothing changed: nothing said');
    assert.match(t.next(at(32), 2003, 'watch: step 32/60 · loss 1.5 · spent ¥0.01')!, /step 32\/60 .*— run: started lora/);
    assert.match(t.next(at(33), 2006)!, /step 33\/60/);
    const d = { diverged: { value: 'nan' as const, readings: 3, since: 1000, step: 31, lastFiniteLoss: 1.5 } };
    assert.match(t.next(at(34, d), 2009)!, /step 34\/60 · loss NaN for 3 readings since step 31 \(diverged\)/);
    const zh = new LaunchToastText(l10nIn('zh-cn'));
    assert.match(zh.next(at(34, d), 2009, '运行中：第 34/60 步 · 已花费 ¥0.01')!, /损失连续 3 次为 NaN（自第 31 步起）（已发散）$|损失连续 3 次为 NaN（自第 31 步起）（已发散） · /);
  });
});
