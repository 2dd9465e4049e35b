// What the launch calls a checkpoint, through its own sync path on real boxes (loopback OpenSSH
// sshd, real SFTP, `gpu-rent launch` as built): a LLaMA-Factory-like output folder (a log written
// every step, checkpoint-N/ every 10, a half-written checkpoint-N.tmp left newest) gives
// checkpoint-N, never the log or the .tmp (issue 41 bug 2); a folder the box named with `$(…)`
// and backticks never runs on the next box, even with `--resume "{checkpoint}"` quoted by the
// user (issue 41, third attack round, MED).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { sleep, tempDir } from './remote-helpers';

interface State {
  phase: string;
  outcome?: { kind: string; detail: string };
  recoveries: number;
  job?: { resumedFrom?: string };
  lastSync?: { checkpoint?: string };
  events: { text: string }[];
}

/** LLaMA-Factory's output folder as its LogCallback and the HF Trainer write it (trainer_log.jsonl each step, checkpoint-N/ each save_steps). */
const LLAMA_FACTORY_LIKE = `import json, os, sys, time
out = sys.argv[1]
steps = int(os.environ.get('STEPS', '30'))
os.makedirs(out, exist_ok=True)
for step in range(1, steps + 1):
    time.sleep(0.05)
    with open(os.path.join(out, 'trainer_log.jsonl'), 'a') as f:
        f.write(json.dumps({'current_steps': step, 'total_steps': steps, 'loss': 1.0 / step}) + '\\n')
    print("{'loss': %.4f, 'step': %d}" % (1.0 / step, step), flush=True)
    if step % 10 == 0:
        d = os.path.join(out, 'checkpoint-%d' % step)
        os.makedirs(d)
        with open(os.path.join(d, 'adapter_model.safetensors'), 'wb') as f:
            f.write(os.urandom(4096))
        with open(os.path.join(d, 'trainer_state.json'), 'w') as f:
            json.dump({'global_step': step}, f)
# The next checkpoint, half written when the run stops: newer than every complete one.
d = os.path.join(out, 'checkpoint-%d.tmp' % (steps + 10))
os.makedirs(d)
with open(os.path.join(d, 'adapter_model.safetensors'), 'wb') as f:
    f.write(os.urandom(1024))
time.sleep(1.2)
with open(os.path.join(out, 'trainer_log.jsonl'), 'a') as f:
    f.write(json.dumps({'current_steps': steps, 'total_steps': steps, 'done': True}) + '\\n')
`;

/** A box that names its newest checkpoint folder with $( … ) and backticks; a resume says where it started from. */
const HOSTILE_NAMES = `import os, sys, time
if '--resume' in sys.argv:
    print('resumed from [%s]' % sys.argv[sys.argv.index('--resume') + 1], flush=True)
    sys.exit(0)
os.makedirs('ckpt', exist_ok=True)
for name in ['ck-0', 'ck-1$(touch PWNED)\`touch PWNED2\`']:
    os.makedirs(os.path.join('ckpt', name))
    with open(os.path.join('ckpt', name, 'w.bin'), 'wb') as f:
        f.write(b'x' * 100)
    time.sleep(1.1)
print('step 1/100', flush=True)
time.sleep(600)
`;

describe('gpu-rent launch: what a checkpoint is, through the launch\'s sync (real sshd)', function () {
  this.timeout(240000);
  let a: TestSshd;
  let b: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const login = (s: TestSshd) => `ssh://${s.user}@127.0.0.1:${s.port}`;

  function repo(name: string, script: string, yaml: string): string {
    const dir = join(home.path, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), script);
    writeFileSync(join(dir, '.gitignore'), 'ckpt-home/\n');
    writeFileSync(join(dir, 'gpu-rent.yaml'), yaml);
    execFileSync('git', ['init', '-q', dir]);
    return dir;
  }
  const status = (dir: string): State => {
    const r = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status', '--json'], { env, timeoutMs: 30000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    return JSON.parse(r.stdout) as State;
  };

  before(async () => {
    [a, b] = await Promise.all([startSshd(), startSshd()]);
    home = tempDir('gpu-rent-launch-ckpt-');
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500' };
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    home?.remove();
  });

  it('a LLaMA-Factory-like output folder: the newest complete is checkpoint-30, never trainer_log.jsonl (written last) nor checkpoint-40.tmp', () => {
    const dir = repo('lf', LLAMA_FACTORY_LIKE, [
      'name: lf',
      `instance: "${login(a)}"`,
      'run: python3 train.py saves',
      'env: {STEPS: "30"}',
      'checkpoints: {remote: saves, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 1',
      'end: none',
    ].join('\n') + '\n');
    const r = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--accept-new', '--identity', a.privateKeyPath], { env, timeoutMs: 200000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    // Everything came home, the log and the half-written folder too (sync brings files; what counts is decided after).
    assert.ok(existsSync(join(dir, 'ckpt-home', 'trainer_log.jsonl')));
    assert.ok(existsSync(join(dir, 'ckpt-home', 'checkpoint-40.tmp', 'adapter_model.safetensors')));
    const s = status(dir);
    assert.equal(s.outcome?.kind, 'finished', JSON.stringify(s.outcome));
    assert.equal(s.lastSync?.checkpoint, 'checkpoint-30');
    const said = s.events.map((e) => e.text).filter((t) => t.includes('newest complete'));
    assert.ok(said.length > 0, 'the sync names the newest complete checkpoint');
    for (const t of said) assert.doesNotMatch(t, /trainer_log|\.tmp/, t);
  });

  it('a checkpoint folder the box named with $( … ) and backticks never runs on the next box, even inside the user\'s "{checkpoint}"', async () => {
    const dir = repo('hostile', HOSTILE_NAMES, [
      'name: hostile',
      `instance: ["${login(a)}", "${login(b)}"]`,
      'resources: {cards: [], gpus: 1, spot: true}',
      'run: python3 train.py',
      'resume: python3 train.py --resume "{checkpoint}"',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s, pattern: "ck-*"}',
      'reclaim_after: 10s',
      'price_yuan_per_hour: 1',
      'end: none',
    ].join('\n') + '\n');
    const run = runCliAsync(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--accept-new', '--identity', a.privateKeyPath, '--identity', b.privateKeyPath], { ...env, LANG: 'C.UTF-8' });
    let st: State | undefined;
    for (let i = 0; i < 600 && !st?.lastSync; i++) {
      await sleep(200);
      st = status(dir);
    }
    assert.ok(st?.lastSync, 'synced once');
    assert.equal(st.lastSync.checkpoint, 'ck-0', 'the newest complete checkpoint a shell can take as it is');
    assert.ok(st.events.some((e) => /is not used for a resume: its name holds characters a shell reads/.test(e.text)), JSON.stringify(st.events.slice(-5)));
    await a.stop(); // the spot box is gone
    const r = await run;
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const end = status(dir);
    assert.equal(end.recoveries, 1);
    assert.match(end.job?.resumedFrom ?? '', /\/ckpt\/ck-0$/);
    const log = readFileSync(join(b.home, '.gpu-rent', 'jobs', 'hostile', 'output.log'), 'utf8');
    assert.match(log, /resumed from \[\/.*\/ckpt\/ck-0\]/);
    for (const box of [a, b]) {
      for (const marker of ['PWNED', 'PWNED2']) assert.equal(existsSync(join(box.home, 'gpu-rent', 'hostile', marker)), false, `${marker} on ${box.port}`);
    }
  });
});
