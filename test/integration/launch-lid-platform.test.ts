// Close the lid on a platform (issue 39, Measure: "with the lid closed, the meter off within 2
// minutes of the run's end"): a named AutoDL Pro instance on the platform test server whose box is
// the loopback sshd, `end: power-off`, the CLI SIGKILLed 3 s after the run starts. The box's
// supervisor runs the end itself; its stand-in for `shutdown` (GPU_RENT_TEST_BOX_POWER_OFF) does
// what AutoDL's shutdown inside the instance does (its 关机: the instance stops, the GPU billing
// stops): it tells the platform test server the instance shut down. The platform reports it
// stopped within 2 minutes of the run's end (the job record's exit time on the box), the journal
// says action-start / action-exit 0, and `launch --resume` says the run finished while you were
// away and exits 0 with the instance still stopped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { PlatformServer } from '../support/platform-server';
import { boxShutdownHook } from '../support/box-shutdown';
import { tempDir, sleep } from './remote-helpers';
import { TRAIN_PY } from '../support/train-loop';

describe('close the lid on AutoDL: the box shuts the instance down itself, the platform stops billing (platform test server + real sshd)', function () {
  this.timeout(300000);
  let s: PlatformServer;
  let c: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let hook: Awaited<ReturnType<typeof boxShutdownHook>>;
  let env: Record<string, string>;
  const PRO = '/api/v1/dev/instance/pro';

  before(async () => {
    [s, c] = await Promise.all([PlatformServer.start(), startSshd()]);
    home = tempDir('gpu-rent-lid-platform-');
  });
  after(async () => {
    await new Promise<void>((r) => (hook ? hook.server.close(() => r()) : r()));
    await Promise.all([c?.stop(), s?.close()]);
    home?.remove();
  });

  it('SIGKILLed 3 s after the run starts: the box shuts the instance down, the platform says shutdown within 2 min of the run end; journal action-start/action-exit 0', async () => {
    const inst = s.add({ platform: 'autodl-pro', id: 'pro-lid', name: 'lidbox', state: 'running', sshPort: c.port, password: c.password, sshUser: c.user });
    hook = await boxShutdownHook(s, inst);
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500', GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '100', GPU_RENT_TEST_LAPTOP_AWAY_SECONDS: '3', GPU_RENT_TEST_BOX_POWER_OFF: hook.command, LANG: 'C.UTF-8' };
    const dir = join(home.path, 'lid');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), TRAIN_PY);
    const file = join(dir, 'gpu-rent.yaml');
    writeFileSync(file, ['name: lidp', 'instance: lidbox', 'resources: {cards: [], gpus: 1}', 'run: python3 train.py --out ckpt', 'env: {STEPS: "12", EVERY: "4", DELAY: "0.5"}', 'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}', 'end: power-off'].join('\n') + '\n');
    const child = spawn(process.execPath, [CLI, 'launch', '--file', file, '--accept-new'], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    for (let i = 0; i < 600 && !/run: started/.test(err); i++) await sleep(100);
    assert.match(err, /run: started/, err);
    await sleep(3000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.equal(inst.state, 'running', `the laptop did not end it: ${err}`);

    const sup = join(c.home, '.gpu-rent', 'supervisor', 'lidp');
    const journal = () => {
      try {
        return readFileSync(join(sup, 'journal.log'), 'utf8');
      } catch (e) {
        return String(e);
      }
    };
    // The box alone: the run ends (12 × 0.5 s), the laptop counts as away, the box shuts itself down.
    for (let i = 0; i < 1200 && hook.stoppedAt() === null; i++) await sleep(100);
    const stoppedAt = hook.stoppedAt();
    assert.ok(stoppedAt !== null, `the box never shut the instance down; journal: ${journal()}`);
    const endedAt = statSync(join(c.home, '.gpu-rent', 'jobs', 'lidp', 'exit')).mtimeMs;
    const seconds = (stoppedAt - endedAt) / 1000;
    assert.ok(seconds >= 0 && seconds <= 120, `the meter stopped ${seconds} s after the run's end`);
    await sleep(s.transitionMs + 200);
    const state = (): string => inst.state;
    assert.ok(state() === 'shutdown' || (inst.pending?.state === 'shutdown' && inst.pending.at <= Date.now()), `platform state ${state()}`);
    const j = journal();
    const events = j.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; detail: string });
    assert.deepEqual(events.filter((e) => e.kind.startsWith('action-')).map((e) => [e.kind, e.detail.split(' ')[0]]), [['action-start', 'power-off'], ['action-exit', '0']], j);

    console.log(`      lid-meter-off: ${seconds.toFixed(1)} s from the run's end to the platform's shutdown`);
  });

  it('--resume after the box shut itself down: not powered back on with a GPU; says so and how to finish, the state kept', async () => {
    const file = join(home.path, 'lid', 'gpu-rent.yaml');
    const inst = s.instances.get('pro-lid')!;
    // The laptop comes back. AutoDL Pro has no no-GPU start and the task has no store: the box stays off.
    const powerOnsBefore = s.sent('autodl-pro', `${PRO}/power_on`).length;
    const r = await runCliAsync(['launch', '--file', file, '--accept-new', '--resume'], env);
    const powerOns = s.sent('autodl-pro', `${PRO}/power_on`).length - powerOnsBefore;
    assert.equal(powerOns, 0, `the resumed launch powered the instance back on: ${r.stderr}`);
    assert.equal(inst.state, 'shutdown');
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stderr + r.stdout, /is stopped: its supervisor ended the run and powered it off while you were away/);
    assert.match(r.stderr + r.stdout, /stays off: powering it on with a GPU only to read what its supervisor did would bill the GPU/);
    // The state is kept: once the user powers it on, --resume finishes the end.
    const st = await runCliAsync(['launch', '--file', file, '--status', '--json'], env);
    const sj = JSON.parse(st.stdout) as { phase: string; box?: { unread?: string } };
    assert.equal(sj.phase, 'watch');
    // --status only looks: the box is off (never powered on to read it) and the task has no store to read its journal from.
    assert.match(sj.box?.unread ?? '', /is shutdown/, st.stdout);
    assert.equal(s.sent('autodl-pro', `${PRO}/power_on`).length, powerOnsBefore, 'status powered nothing on');
  });
});
