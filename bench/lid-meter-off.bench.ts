// Close the lid, the meter off (issue 39, Measure: "with the lid closed, the meter off (platform
// test server) within 2 minutes of the run's end"). A named AutoDL Pro instance on the platform
// test server whose box is the loopback sshd, `end: power-off`, a 12 × 0.5 s run:
// - lid closed: the CLI SIGKILLed 3 s after the run starts; the box's supervisor runs the end
//   itself, its stand-in `shutdown` (GPU_RENT_TEST_BOX_POWER_OFF) telling the platform server the
//   instance shut down (test/integration/launch-lid-platform.test.ts's hook);
// - laptop-driven: the same launch left running to its end (the laptop syncs, then the platform
//   API's power_off).
// Row: seconds from the run's end (the job record's exit file on the box) to the platform's
// shutdown state. LID_BENCH_AWAY_SECONDS (default 3; the product's default is 120) is how soon the
// box counts the laptop away: see bench/README.md for what it means for the figure.
import { spawn } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, runCliAsync } from '../test/support/cli';
import { startSshd } from '../test/support/sshd';
import { PlatformServer } from '../test/support/platform-server';
import { TRAIN_PY } from '../test/support/train-loop';
import { tempDir, sleep } from '../test/integration/remote-helpers';
import { boxShutdownHook } from '../test/support/box-shutdown';

const AWAY = Number(process.env.LID_BENCH_AWAY_SECONDS ?? 3);
const PRO = '/api/v1/dev/instance/pro';

export async function run(): Promise<void> {
  const [s, c] = await Promise.all([PlatformServer.start(), startSshd()]);
  const home = tempDir('gpu-rent-lid-bench-');
  const hooks: { server: { close: (cb: () => void) => void } }[] = [];
  try {
    const base = { PATH: process.env.PATH ?? '', GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500', GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '100', GPU_RENT_TEST_LAPTOP_AWAY_SECONDS: String(AWAY), LANG: 'C.UTF-8' };
    const task = (name: string, box: string) => {
      const dir = join(home.path, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'train.py'), TRAIN_PY);
      writeFileSync(join(dir, 'gpu-rent.yaml'), [`name: ${name}`, `instance: ${box}`, 'resources: {cards: [], gpus: 1}', 'run: python3 train.py --out ckpt', 'env: {STEPS: "12", EVERY: "4", DELAY: "0.5"}', 'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}', 'end: power-off'].join('\n') + '\n');
      return join(dir, 'gpu-rent.yaml');
    };
    const endedAt = (job: string) => statSync(join(c.home, '.gpu-rent', 'jobs', job, 'exit')).mtimeMs;

    // Lid closed.
    const lid = s.add({ platform: 'autodl-pro', id: 'pro-lidb', name: 'lidb', state: 'running', sshPort: c.port, password: c.password, sshUser: c.user });
    const hook = await boxShutdownHook(s, lid);
    hooks.push(hook);
    const child = spawn(process.execPath, [CLI, 'launch', '--file', task('lidb', 'lidb'), '--accept-new'], { env: { ...base, GPU_RENT_TEST_BOX_POWER_OFF: hook.command }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    for (let i = 0; i < 600 && !/run: started/.test(err); i++) await sleep(100);
    await sleep(3000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    for (let i = 0; i < 3000 && hook.stoppedAt() === null; i++) await sleep(100);
    const lidS = hook.stoppedAt() === null ? NaN : (hook.stoppedAt()! - endedAt('lidb')) / 1000;

    // Laptop-driven: the same launch left running to its end.
    s.add({ platform: 'autodl-pro', id: 'pro-lapb', name: 'lapb', state: 'running', sshPort: c.port, password: c.password, sshUser: c.user });
    const r = await runCliAsync(['launch', '--file', task('lapb', 'lapb'), '--accept-new'], base);
    const off = s.sent('autodl-pro', `${PRO}/power_off`).filter((q) => q.body.includes('pro-lapb'));
    const lapS = r.code === 0 && off.length ? (off[0]!.at + s.transitionMs - endedAt('lapb')) / 1000 : NaN;

    console.log(`lid-meter-off: run end → platform shutdown, lid closed (box's own shutdown, laptop away after ${AWAY} s): ${lidS.toFixed(1)} s`);
    console.log(`lid-meter-off: run end → platform shutdown, laptop-driven (sync, then the API's power_off): ${lapS.toFixed(1)} s${r.code === 0 ? '' : ` (launch exit ${r.code})`}`);
    console.log(`lid-meter-off: target ≤ 120 s with the lid closed: ${lidS <= 120 ? 'met' : 'NOT met'}`);
  } finally {
    for (const h of hooks) await new Promise<void>((r) => h.server.close(() => r()));
    await Promise.all([c.stop(), s.close()]);
    home.remove();
  }
}
