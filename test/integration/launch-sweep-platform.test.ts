// A sweep's shared box and its end action (issue 42.1) on the platform test server: a named AutoDL
// Pro instance whose box is the loopback sshd (a real 2× RTX 2070 nvidia-smi capture), three runs
// with gpus_per_run: 1 and `end: power-off`. Runs 1 and 2 go side by side (CUDA_VISIBLE_DEVICES 0
// and 1) and end with `none`; run 3, the box's last, starts only once both have ended and carries
// the power-off, sent once through the platform's API at the very end.
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
});
