// gpu-rent launch, issue 41 (bugs 1, 3, 9, 10 and the third attack round's launch findings), on
// real boxes (loopback OpenSSH sshd, a real Python loop, the platform test server): a run whose
// loss turns NaN says so in every line and ends diverged (exit 1), the divergence stop, a finished
// run's final figures from its log's last lines, end actions refused before anything runs (an
// SSH login has no no-GPU mode, a non-root login cannot power off, a named instance is never
// released, AutoDL Pro has no no-GPU start), STILL BILLING never exits 0 (launch --resume too),
// `end: release` on AutoDL Pro shuts down first, a box's reclaim notice the platform does not
// confirm drops nothing, a silent spot instance the platform still runs is powered off, a
// cost to finish past the state's bound, GPU_RENT_PASSWORD only for the login it names, Chinese.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CLI, runCli, runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { tempDir, sleep } from './remote-helpers';
import { PlatformServer } from '../support/platform-server';
import { TRAIN_PY } from '../support/train-loop';

interface State {
  phase: string;
  outcome?: { kind: string; detail: string; exitCode?: number | null };
  recoveries: number;
  boxes: { label: string; leftBecause?: string; leftAt?: number }[];
  progress?: { step: number | null; total: number | null; etaSeconds: number | null; costToFinishFen: number | null; loss: number | null; diverged?: { value: string; readings: number; step: number | null } | null; final?: boolean };
  end?: { action: string; ok: boolean; stillBilling: boolean; detail: string };
  events: { text: string }[];
}

function repoIn(root: string, name: string, yaml: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'train.py'), TRAIN_PY);
  writeFileSync(join(dir, 'gpu-rent.yaml'), yaml);
  return dir;
}

describe('gpu-rent launch: divergence, final figures, end refusals, exit codes (real sshd)', function () {
  this.timeout(240000);
  let a: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const login = (s: TestSshd) => `ssh://${s.user}@127.0.0.1:${s.port}`;
  const keys = ['--accept-new', '--identity'];
  const repo = (name: string, lines: string[]) => repoIn(home.path, name, lines.join('\n') + '\n');
  const launch = (dir: string, args: string[], extra: Record<string, string> = {}) => runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), ...args, ...keys, a.privateKeyPath], { env: { ...env, ...extra }, timeoutMs: 200000 });
  const status = (dir: string): State => {
    const r = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status', '--json'], { env, timeoutMs: 30000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    return JSON.parse(r.stdout) as State;
  };

  before(async () => {
    a = await startSshd();
    home = tempDir('gpu-rent-launch-end-');
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500' };
  });
  after(async () => {
    await a?.stop();
    home?.remove();
  });

  it("a run printing {'loss': nan} from step 5: every watch line, the status and the end say it diverged (not the last finite loss); exit 1; the final progress is the log's last line, 40/40", () => {
    const dir = repo('nan', [
      'name: nan',
      `instance: "${login(a)}"`,
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "40", EVERY: "20", DELAY: "0.1", NAN_FROM: "5"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 1.98',
    ]);
    const r = launch(dir, []);
    assert.equal(r.code, 1, r.stderr + r.stdout);
    const watch = r.stderr.split('\n').filter((l) => / watch: step /.test(l));
    assert.ok(watch.length > 0, r.stderr);
    // Once the loss is NaN, no watch line says a finite loss.
    for (const l of watch.filter((x) => !/step [1-4]\/40/.test(x))) assert.match(l, /loss NaN for \d+ readings since step 5 \(diverged\)/, l);
    assert.match(r.stderr, /diverged: loss NaN for \d+ readings since step 5: the run has diverged and the box keeps billing for nothing/);
    assert.match(r.stderr, /failed: diverged: loss NaN for 36 readings since step 5; nan finished \(exit 0\)/);
    const s = status(dir);
    assert.equal(s.outcome?.kind, 'diverged');
    assert.match(s.outcome!.detail, /diverged: loss NaN for 36 readings since step 5/);
    assert.deepEqual([s.progress?.step, s.progress?.total, s.progress?.final, s.progress?.etaSeconds, s.progress?.costToFinishFen], [40, 40, true, null, null]);
    assert.equal(s.progress?.diverged?.step, 5);
    // The text status (printed at the end) says it too, with no ETA or cost to finish.
    assert.match(r.stdout, /nan: failed — diverged: loss NaN for 36 readings since step 5; nan finished \(exit 0\)\n/);
    assert.match(r.stdout, /progress: step 40\/40 · loss NaN for 36 readings since step 5 \(diverged\)/);
    assert.doesNotMatch(r.stdout.split('  recent:')[0]!, /ETA|to finish|loss 2\./);
  });

  it('--on-diverged stop: after N non-finite readings the run is stopped (checkpoints home first), the end action runs, the outcome is diverged', () => {
    const dir = repo('nanstop', [
      'name: nanstop',
      `instance: "${login(a)}"`,
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "100000", EVERY: "2", DELAY: "0.1", NAN_FROM: "3"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 1.98',
    ]);
    const r = launch(dir, ['--on-diverged', 'stop', '--diverged-readings', '5']);
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stderr, /\(it is stopped after 5 such readings\)/);
    assert.match(r.stderr, /stopping the run: diverged: loss NaN for \d+ readings since step 3/);
    assert.match(r.stderr, /end: sync ok/);
    const s = status(dir);
    assert.equal(s.outcome?.kind, 'diverged');
    assert.ok((s.progress?.step ?? 1e9) < 1000, 'stopped early');
    const jobs = JSON.parse(runCli(['jobs', login(a), '--accept-new', '--identity', a.privateKeyPath, '--json'], { env, timeoutMs: 60000 }).stdout) as { name: string; state: string }[];
    assert.equal(jobs.find((j) => j.name === 'nanstop')?.state, 'exited', 'the run was stopped on the box');
  });

  it("a finished run: its final progress is the log's last line and it says no ETA or cost to finish", () => {
    const dir = repo('quick', ['name: quick', `instance: "${login(a)}"`, 'run: python3 train.py --out ckpt', 'env: {STEPS: "40", EVERY: "40", DELAY: "0.04"}', 'price_yuan_per_hour: 1.98']);
    const r = launch(dir, []);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const s = status(dir);
    assert.deepEqual([s.progress?.step, s.progress?.total, s.progress?.etaSeconds, s.progress?.costToFinishFen, s.progress?.final], [40, 40, null, null, true]);
    assert.match(r.stdout, /progress: step 40\/40\n/);
    const text = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status'], { env });
    assert.match(text.stdout, /progress: step 40\/40\n/);
    assert.doesNotMatch(text.stdout.split('  recent:')[0]!, /ETA|to finish/);
  });

  it('LANG=zh_CN: the watch lines, the outcome, the end and launch --status in Chinese', () => {
    const dir = repo('zhnan', ['name: zhnan', `instance: "${login(a)}"`, 'run: python3 train.py --out ckpt', 'env: {STEPS: "12", EVERY: "12", DELAY: "0.1", NAN_FROM: "3"}', 'price_yuan_per_hour: 1.98']);
    const r = launch(dir, [], { LANG: 'zh_CN.UTF-8' });
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stderr, /运行中：第 \d+\/12 步 · 损失连续 \d+ 次为 NaN（自第 3 步起）（已发散） · 已花费 ¥/);
    assert.match(r.stderr, /已发散：损失连续 \d+ 次为 NaN（自第 3 步起）：训练已发散，机器仍在白白计费/);
    assert.match(r.stdout, /zhnan：失败 — 已发散：损失连续 10 次为 NaN（自第 3 步起）；zhnan 已完成（退出码 0）\n/);
    const st = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status'], { env: { ...env, LANG: 'zh_CN.UTF-8' } });
    assert.match(st.stdout, /进度：第 12\/12 步 · 损失连续 10 次为 NaN/);
    // The outcome and the figures: no English left (the events keep each step's own words).
    const head = st.stdout.split('  最近：')[0]!;
    assert.doesNotMatch(head, /diverged|finished|the run|readings|since step/, head);
  });

  it('end actions that cannot happen are refused before anything runs (exit 2): no-gpu and release on an SSH login up front, power-off on a login that is not root and has no sudo -n once connected', () => {
    const nogpu = repo('nogpu', ['name: nogpu', `instance: "${login(a)}"`, 'run: python3 train.py --out ckpt', 'end: no-gpu']);
    const r = launch(nogpu, []);
    assert.equal(r.code, 2, r.stderr + r.stdout);
    assert.match(r.stderr, /end: no-gpu cannot happen on .*: no-GPU mode is a platform API call, and an SSH login has no platform account\. Use end: power-off .*Nothing was started\./);
    assert.equal(existsSync(join(a.home, 'gpu-rent', 'nogpu')), false, 'nothing was pushed');
    assert.equal(runCli(['launch', '--file', join(nogpu, 'gpu-rent.yaml'), '--status'], { env }).code, 1, 'nothing was launched');
    const j = runCli(['launch', '--file', join(nogpu, 'gpu-rent.yaml'), '--json', '--accept-new', '--identity', a.privateKeyPath], { env, timeoutMs: 60000 });
    assert.equal(j.code, 2);
    assert.equal((JSON.parse(j.stdout) as { error: { code: string } }).error.code, 'end-refused');
    const zh = launch(nogpu, [], { LANG: 'zh_CN.UTF-8' });
    assert.equal(zh.code, 2);
    assert.match(zh.stderr, /end: no-gpu 无法在 .* 上执行：无卡模式要通过平台 API 切换.*什么都没有启动。/);

    const rel = repo('rel', ['name: rel', `instance: "${login(a)}"`, 'run: python3 train.py --out ckpt', 'end: release']);
    const rr = launch(rel, ['--yes']);
    assert.equal(rr.code, 2, rr.stderr);
    assert.match(rr.stderr, /end: release cannot happen on .*: the launch releases only an instance it created/);

    const off = repo('off', ['name: off', `instance: "${login(a)}"`, 'run: python3 train.py --out ckpt', 'end: power-off']);
    const ro = launch(off, []);
    assert.equal(ro.code, 2, ro.stderr + ro.stdout);
    assert.match(ro.stderr, new RegExp(`end: power-off cannot happen on .*: the login ${a.user} is not root and sudo -n is not allowed`));
    assert.equal(existsSync(join(a.home, 'gpu-rent', 'off')), false, 'nothing was pushed');
    assert.equal(status(off).outcome?.kind, 'refused');
  });

  it('GPU_RENT_PASSWORD goes only to the login --password-for names, not to whatever login the task file names', () => {
    const dir = repo('pw', ['name: pw', `instance: "${login(a)}"`, 'run: python3 train.py --out ckpt', 'env: {STEPS: "3", EVERY: "3", DELAY: "0.05"}']);
    const base = ['launch', '--file', join(dir, 'gpu-rent.yaml'), '--accept-new'];
    const pwEnv = { ...env, GPU_RENT_PASSWORD: a.password, SSH_AUTH_SOCK: '' };
    const no = runCli(base, { env: pwEnv, timeoutMs: 120000 });
    assert.equal(no.code, 1, no.stderr + no.stdout);
    assert.match(no.stderr, /could not connect to .*nothing to log in/);
    const other = runCli([...base, '--password-for', `someone@127.0.0.1:${a.port}`], { env: pwEnv, timeoutMs: 120000 });
    assert.equal(other.code, 1, 'another user on the same host: not offered');
    const yes = runCli([...base, '--password-for', `${a.user}@127.0.0.1:${a.port}`], { env: pwEnv, timeoutMs: 120000 });
    assert.equal(yes.code, 0, yes.stderr + yes.stdout);
  });

  it('a tqdm line 1/999999999999 at 0.01 it/s: the cost to finish stays within the state, --status reads it mid-run, the launch ends', async () => {
    const dir = repo('huge', [
      'name: huge',
      `instance: "${login(a)}"`,
      `run: "python3 -c \\"import time; print('  0%|  | 1/999999999999 [00:01<99:99, 0.01it/s]', flush=True); time.sleep(6)\\""`,
      'price_yuan_per_hour: 1.98',
    ]);
    const run = runCliAsync(['launch', '--file', join(dir, 'gpu-rent.yaml'), ...keys, a.privateKeyPath], { ...env, LANG: 'C.UTF-8' });
    let seen: State | undefined;
    for (let i = 0; i < 100 && !seen; i++) {
      await sleep(200);
      const r = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status', '--json'], { env });
      if (r.code !== 0) continue;
      const s = JSON.parse(r.stdout) as State;
      if (s.progress?.total === 999999999999) seen = s;
    }
    const r = await run;
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.ok(seen, 'the state was readable while the run went');
    assert.equal(seen.progress?.costToFinishFen, null);
    assert.match(r.stderr, /watch: step 1\/999999999999 .*> ¥100,?000,?000\.00 to finish/);
    assert.equal(status(dir).outcome?.kind, 'finished');
  });
});

describe('gpu-rent launch on a platform: end checks, release, STILL BILLING, reclaim notices (platform test server + real sshd)', function () {
  this.timeout(300000);
  let s: PlatformServer;
  let c: TestSshd;
  let d: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const file = (dir: string) => join(dir, 'gpu-rent.yaml');
  const repo = (name: string, lines: string[]) => repoIn(home.path, name, lines.join('\n') + '\n');
  const status = (dir: string): State => JSON.parse(runCli(['launch', '--file', file(dir), '--status', '--json'], { env, timeoutMs: 30000 }).stdout) as State;
  const PRO = '/api/v1/dev/instance/pro';

  before(async () => {
    [s, c, d] = await Promise.all([PlatformServer.start(), startSshd(), startSshd()]);
    home = tempDir('gpu-rent-launch-end-p-');
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500', GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '100' };
  });
  after(async () => {
    await Promise.all([c?.stop(), d?.stop(), s?.close()]);
    home?.remove();
  });

  it('end: no-gpu on an AutoDL Pro instance is refused before it is powered on; end: release of a named instance is refused up front even with --yes', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-off', name: 'prooff', state: 'shutdown', sshPort: c.port, password: c.password, sshUser: c.user });
    const dir = repo('pronogpu', ['name: pronogpu', 'instance: prooff', 'resources: {cards: [], gpus: 1}', 'run: python3 train.py --out ckpt', 'end: no-gpu']);
    const r = await runCliAsync(['launch', '--file', file(dir), '--accept-new'], env);
    assert.equal(r.code, 2, r.stderr + r.stdout);
    assert.match(r.stderr, /end: no-gpu cannot happen on prooff \(env-autodl-pro\/pro-off\): AutoDL Pro's API has no no-GPU start\. Use end: power-off/);
    assert.equal(s.sent('autodl-pro', `${PRO}/power_on`).length, 0, 'it was not powered on');
    assert.equal(s.instances.get('pro-off')!.state, 'shutdown');

    const rel = repo('prorel', ['name: prorel', 'instance: prooff', 'resources: {cards: [], gpus: 1}', 'run: python3 train.py --out ckpt', 'end: release']);
    const rr = await runCliAsync(['launch', '--file', file(rel), '--accept-new', '--yes'], env);
    assert.equal(rr.code, 2, rr.stderr + rr.stdout);
    assert.match(rr.stderr, /end: release cannot happen on prooff: the launch releases only an instance it created \(instance: new\).*even with --yes/);
    assert.equal(s.sent('autodl-pro', `${PRO}/power_on`).length, 0);
    assert.equal(s.sent('autodl-pro', `${PRO}/release`).length, 0);
  });

  it('end: release on AutoDL Pro (instance: new, --yes): shut down first, then released; the platform says released; exit 0', async () => {
    s.createLogin = { sshPort: c.port, password: c.password, user: c.user };
    const dir = repo('prorelnew', [
      'name: prorelnew',
      'instance: new',
      'resources: {cards: [4090], gpus: 1}',
      'create: {account: env-autodl-pro, image: base-image-12be412037}',
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "4", EVERY: "2", DELAY: "0.1"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'end: release',
    ]);
    const r = await runCliAsync(['launch', '--file', file(dir), '--accept-new', '--yes'], env);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /end: release: autodl-pro releases only a stopped instance: powering it off first/);
    assert.match(r.stderr, /end: release: released \(the platform reports it\)/);
    const made = [...s.instances.values()].find((i) => i.name === 'prorelnew')!;
    assert.equal(made.state, 'released');
    const offAt = s.sent('autodl-pro', `${PRO}/power_off`).filter((q) => q.body.includes(made.id)).map((q) => q.at);
    const relAt = s.sent('autodl-pro', `${PRO}/release`).filter((q) => q.body.includes(made.id)).map((q) => q.at);
    assert.ok(offAt.length >= 1 && relAt.length === 1 && offAt[0]! <= relAt[0]!, 'the power-off came before the release');
    assert.deepEqual(readdirSync(join(dir, 'ckpt-home')).filter((n) => n.startsWith('step-')).sort(), ['step-0002', 'step-0004']);
    const st = status(dir);
    assert.deepEqual([st.end?.ok, st.end?.stillBilling], [true, false]);
  });

  it('STILL BILLING never exits 0: a power-off the platform refuses ends a resumed launch with exit 4 and says so', async () => {
    s.createLogin = { sshPort: c.port, password: c.password, user: c.user };
    const dir = repo('billing', [
      'name: billing',
      'instance: new',
      'resources: {cards: [4090], gpus: 1}',
      'create: {account: env-autodl-pro, image: base-image-12be412037}',
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "20", EVERY: "5", DELAY: "0.2"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'end: power-off',
    ]);
    const child = spawn(process.execPath, [CLI, 'launch', '--file', file(dir), '--accept-new', '--yes'], { env: { PATH: process.env.PATH, ...env, LANG: 'C.UTF-8' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    for (let i = 0; i < 300 && !/watch: step/.test(err); i++) await sleep(100);
    assert.match(err, /watch: step/, err);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    s.fault({ platform: 'autodl-pro', on: `${PRO}/power_off`, error: 'InternalError', times: 20 });
    const r = await runCliAsync(['launch', '--file', file(dir), '--accept-new', '--resume'], env).finally(() => s.faults.splice(0));
    assert.equal(r.code, 4, r.stderr + r.stdout);
    assert.match(r.stderr, /STILL BILLING: the end action \(power-off\) did not happen/);
    const st = status(dir);
    assert.equal(st.outcome?.kind, 'finished');
    assert.deepEqual([st.end?.ok, st.end?.stillBilling], [false, true]);
    assert.match(r.stdout, /STILL BILLING/);
  });

  it("a spot box's own reclaim notice the platform does not confirm drops nothing: the run goes on there, no instance is created, nothing counted as lost", async () => {
    const meta = createServer((req, res) => (req.url === '/latest/meta-data/instance/spot/termination-time' ? res.end('2026-12-02T01:40:00Z') : res.writeHead(404).end('Not Found')));
    await new Promise<void>((r) => meta.listen(0, '127.0.0.1', r));
    try {
      s.add({ platform: 'autodl-pro', id: 'spot-n', name: 'spotn', state: 'running', sshPort: c.port, password: c.password, sshUser: c.user });
      s.createLogin = { sshPort: d.port, password: d.password, user: d.user };
      const before = s.instances.size;
      const dir = repo('notice', [
        'name: notice',
        'instance: [spotn, new]',
        'resources: {cards: [4090], gpus: 1, spot: true}',
        'create: {account: env-autodl-pro, image: base-image-12be412037}',
        'run: python3 train.py --out ckpt',
        'resume: python3 train.py --out ckpt --resume {checkpoint}',
        'env: {STEPS: "20", EVERY: "5", DELAY: "0.15"}',
        'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
        'price_yuan_per_hour: 0.9',
      ]);
      const port = (meta.address() as AddressInfo).port;
      const r = await runCliAsync(['launch', '--file', file(dir), '--accept-new', '--yes'], { ...env, GPU_RENT_SPOT_METADATA: `127.0.0.1:${port}` });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      assert.match(r.stderr, /spot: the platform announced the reclaim of spotn .* at 2026-12-02T01:40:00Z: syncing the checkpoints now/);
      assert.match(r.stderr, /spot: the platform still reports spotn .* as running: the notice is not confirmed/);
      assert.doesNotMatch(r.stderr, /reclaimed:|creating /);
      assert.equal(s.instances.size, before, 'no instance was created');
      const st = status(dir);
      assert.deepEqual([st.outcome?.kind, st.recoveries, st.boxes.length], ['finished', 0, 0]);
    } finally {
      meta.close();
    }
  });

  it('an instance the launch powered on but cannot log in to is powered off again before it is left (it must not bill on); the launch ends with no box (exit 1)', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-nologin', name: 'nologin', state: 'shutdown', sshPort: 1, password: 'x', sshUser: 'root' });
    const dir = repo('nologin', ['name: nologin', 'instance: nologin', 'resources: {cards: [], gpus: 1}', 'run: python3 train.py --out ckpt']);
    const r = await runCliAsync(['launch', '--file', file(dir), '--accept-new'], env);
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stderr, /nologin is shutdown: powering it on/);
    assert.match(r.stderr, /could not connect to .*env-autodl-pro\/pro-nologin/);
    assert.match(r.stderr, /\(env-autodl-pro\/pro-nologin\) left: powered off \(the platform reports it stopped\)/);
    assert.equal(s.instances.get('pro-nologin')!.state, 'shutdown');
    const st = status(dir);
    assert.equal(st.outcome?.kind, 'noBox');
    assert.equal(typeof st.boxes[0]?.leftAt, 'number');
  });

  // Last: it stops box d for good.
  it('a spot instance that stops answering while the platform still runs it: powered off before it is left, counted until the platform says stopped; the run moves on', async () => {
    s.add({ platform: 'autodl-pro', id: 'spot-s', name: 'spots', state: 'running', sshPort: d.port, password: d.password, sshUser: d.user });
    const dir = repo('silent', [
      'name: silent',
      `instance: [spots, "ssh://${c.user}@127.0.0.1:${c.port}"]`,
      'resources: {cards: [], gpus: 1, spot: true}',
      'run: python3 train.py --out ckpt',
      'resume: python3 train.py --out ckpt --resume {checkpoint}',
      'env: {STEPS: "60", EVERY: "5", DELAY: "0.15"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'reclaim_after: 10s',
      'price_yuan_per_hour: 0.9',
    ]);
    const run = runCliAsync(['launch', '--file', file(dir), '--accept-new', '--identity', c.privateKeyPath], env);
    for (let i = 0; i < 600; i++) {
      await sleep(200);
      const r = runCli(['launch', '--file', file(dir), '--status', '--json'], { env, timeoutMs: 30000 });
      if (r.code === 0 && ((JSON.parse(r.stdout) as State).progress?.step ?? 0) >= 5) break;
    }
    await d.stop(); // the box stops answering; the platform still says running
    const r = await run;
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /spots \(env-autodl-pro\/spot-s\) left: powered off \(the platform reports it stopped\)/);
    assert.match(r.stderr, /reclaimed: spots .*has not answered SSH for \d+ s \(spot\)/);
    assert.equal(s.instances.get('spot-s')!.state, 'shutdown', 'the platform says it is off');
    const st = status(dir);
    assert.equal(st.outcome?.kind, 'finished');
    assert.equal(st.boxes[0]?.leftBecause, 'reclaimed');
    assert.equal(typeof st.boxes[0]?.leftAt, 'number', 'it stopped counting once the platform said it stopped');
  });
});
