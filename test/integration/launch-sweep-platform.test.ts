// A sweep's shared box and its end action (issue 42.1) on the platform test server: a named AutoDL
// Pro instance whose box is the loopback sshd (a real 2× RTX 2070 nvidia-smi capture), three runs
// with gpus_per_run: 1 and `end: power-off`. Runs 1 and 2 go side by side (CUDA_VISIBLE_DEVICES 0
// and 1) and end with `none`; run 3, the box's last, starts only once both have ended and carries
// the power-off, sent once through the platform's API at the very end. With fail_fast, a stop
// before that run starts: the sweep does the box's end itself, or says the box still bills.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { PlatformServer } from '../support/platform-server';
import { tempDir } from './remote-helpers';
import { TRAIN_PY } from '../support/train-loop';

describe('a sweep on one platform instance: the last run ends the shared box (platform test server + real sshd)', function () {
  this.timeout(240000);
  let s: PlatformServer;
  let c: TestSshd;
  let home: ReturnType<typeof tempDir>;
  const PRO = '/api/v1/dev/instance/pro';

  before(async () => {
    [s, c] = await Promise.all([PlatformServer.start(), startSshd({ nvidiaSmi: 'rtx2070_x2_driver590.44.01_q.xml' })]);
    home = tempDir('gpu-rent-sweep-platform-');
  });
  after(async () => {
    await Promise.all([c?.stop(), s?.close()]);
    home?.remove();
  });

  it('runs 1 and 2 side by side with end none; run 3 waits for both, then powers the instance off once', async () => {
    const inst = s.add({ platform: 'autodl-pro', id: 'pro-sweep', name: 'sweepbox', state: 'running', sshPort: c.port, password: c.password, sshUser: c.user });
    const env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500', GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '100', LANG: 'C.UTF-8' };
    const dir = join(home.path, 'sweep');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), TRAIN_PY);
    const file = join(dir, 'gpu-rent.yaml');
    writeFileSync(file, [
      'name: shared',
      'instance: sweepbox',
      'resources: {cards: [], gpus: 2}',
      'run: date +%s.%N > started && echo "$CUDA_VISIBLE_DEVICES" > devices && python3 train.py --out ckpt && date +%s.%N > ended',
      'env: {STEPS: "6", EVERY: "3", DELAY: "0.4", SEED: "{seed}"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'end: power-off',
      'gpus_per_run: 1',
      'matrix: {seed: [1, 2, 3]}',
    ].join('\n') + '\n');
    const r = await runCliAsync(['launch', '--file', file, '--accept-new'], env);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const read = (m: string, f: string) => readFileSync(join(c.home, 'gpu-rent', m, f), 'utf8').trim();
    assert.deepEqual(['shared-1', 'shared-2'].map((m) => read(m, 'devices')), ['0', '1']);
    assert.ok(Number(read('shared-2', 'started')) < Number(read('shared-1', 'ended')), 'runs 1 and 2 overlapped');
    const lastEnded = Math.max(Number(read('shared-1', 'ended')), Number(read('shared-2', 'ended')));
    assert.ok(Number(read('shared-3', 'started')) > lastEnded, 'run 3 started after both others ended');
    // Only run 3 turned the meter off, once, through the platform.
    assert.equal(s.sent('autodl-pro', `${PRO}/power_off`).length, 1, r.stderr);
    assert.match(r.stderr, /\[shared-3 [^\]]*\] end: powerOff ok \(connector\)/);
    assert.doesNotMatch(r.stderr, /\[shared-[12] [^\]]*\] end: powerOff/);
    await new Promise((res) => setTimeout(res, s.transitionMs + 200));
    assert.ok(inst.state === 'shutdown' || inst.pending?.state === 'shutdown', `platform state ${inst.state}`);
    assert.match(r.stdout, /sweep shared: 3 runs \(3 done, 0 failed/);
  });

  // fail_fast stops the sweep before the box's last run (the carrier of end: power-off) starts: the
  // runs before it ended with none, so the sweep powers the box off itself once they have ended;
  // an account that may not power off leaves it billing, and the table says so (en, zh, JSON, exit 4).
  const failFastSweep = (name: string, box: string) => [
    `name: ${name}`,
    `instance: ${box}`,
    'resources: {cards: [], gpus: 1}',
    'run: mkdir -p ckpt && test {seed} != 2 && python3 train.py --out ckpt',
    'env: {STEPS: "2", EVERY: "2", DELAY: "0.1"}',
    'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
    'end: power-off',
    'fail_fast: true',
    'matrix: {seed: [1, 2, 3]}',
  ].join('\n') + '\n';
  const platformEnv = (power: boolean) => ({ GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500', GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, ...(power ? { GPU_RENT_ALLOW_POWER: '1' } : {}), GPU_RENT_SETTLE_INTERVAL_MS: '100', LANG: 'C.UTF-8' });
  const sweepFile = (name: string, yaml: string) => {
    const dir = join(home.path, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), TRAIN_PY);
    writeFileSync(join(dir, 'gpu-rent.yaml'), yaml);
    return join(dir, 'gpu-rent.yaml');
  };

  it("fail_fast stops the sweep before the shared box's last run: the sweep does that run's end (power-off) through the platform, once", async () => {
    const inst = s.add({ platform: 'autodl-pro', id: 'pro-ff', name: 'ffbox', state: 'running', sshPort: c.port, password: c.password, sshUser: c.user });
    const before = s.sent('autodl-pro', `${PRO}/power_off`).length;
    const file = sweepFile('ff', failFastSweep('ffp', 'ffbox'));
    const r = await runCliAsync(['launch', '--file', file, '--accept-new'], platformEnv(true));
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stdout, /sweep ffp: 3 runs \(1 done, 1 failed, 0 running, 0 queued, 1 skipped\)/);
    assert.match(r.stdout, /no further run starts: fail_fast: ffp-2 failed/);
    assert.match(r.stdout, /ffbox \(env-autodl-pro\/pro-ff\): its last run never started; the sweep did its end \(power-off\)/);
    assert.doesNotMatch(r.stdout, /STILL BILLING/);
    // Runs 1 and 2 ended with none; the sweep sent the one power-off, after both.
    assert.equal(s.sent('autodl-pro', `${PRO}/power_off`).length, before + 1, r.stderr);
    assert.doesNotMatch(r.stderr, /\[ffp-[12] [^\]]*\] end: powerOff/);
    await new Promise((res) => setTimeout(res, s.transitionMs + 200));
    assert.ok(inst.state === 'shutdown' || inst.pending?.state === 'shutdown', `platform state ${inst.state}`);
    const js = await runCliAsync(['launch', '--file', file, '--status', '--json'], platformEnv(true));
    const doc = JSON.parse(js.stdout) as { boxEnds: { label: string; end: string; ok: boolean }[] };
    assert.deepEqual(doc.boxEnds.map((b) => [b.label, b.end, b.ok]), [['ffbox (env-autodl-pro/pro-ff)', 'power-off', true]]);
  });

  it('fail_fast on a box the account may not power off: the sweep says it still bills, at its rate (en, zh, JSON), exit 4', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-ro', name: 'robox', state: 'running', sshPort: c.port, password: c.password, sshUser: c.user });
    const before = s.sent('autodl-pro', `${PRO}/power_off`).length;
    const file = sweepFile('ro', failFastSweep('ffro', 'robox'));
    const r = await runCliAsync(['launch', '--file', file, '--accept-new'], platformEnv(false));
    assert.equal(r.code, 4, r.stderr + r.stdout);
    assert.match(r.stdout, /1 skipped/);
    assert.match(r.stdout, /STILL BILLING: robox \(env-autodl-pro\/pro-ro\) still bills: (¥\d+\.\d\d|\? ¥)\/h — power it off or release it .*its last run never started \(fail_fast: ffro-2 failed\); account \S+ is read-only/);
    assert.equal(s.sent('autodl-pro', `${PRO}/power_off`).length, before, 'nothing powered off');
    const zh = await runCliAsync(['launch', '--file', file, '--status'], { ...platformEnv(false), LANG: 'zh_CN.UTF-8' });
    assert.match(zh.stdout, /仍在计费：robox \(env-autodl-pro\/pro-ro\) 仍按 (¥\d+\.\d\d|\? ¥)\/小时 计费——请关机或释放/);
    const js = await runCliAsync(['launch', '--file', file, '--status', '--json'], platformEnv(false));
    const doc = JSON.parse(js.stdout) as { boxEnds: { label: string; ok: boolean; detail: string }[] };
    assert.deepEqual(doc.boxEnds.map((b) => [b.label, b.ok]), [['robox (env-autodl-pro/pro-ro)', false]]);
  });
});
