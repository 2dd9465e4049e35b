// gpu-rent launch end to end on real boxes (loopback OpenSSH sshd, real SFTP, a real Python
// training loop writing checkpoints and a progress bar): a launch on an SSH login that pushes
// the workdir as git sees it, runs setup and the run detached, syncs checkpoints and ends; a
// launch killed mid-run and resumed; a spot box that stops answering mid-run, relaunched on a
// second box from the last verified checkpoint with none lost; a budget cap that stops a run;
// the smoke test; a red GPU check that stops before anything is pushed; a task file error that
// names its line and field.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  box?: { label: string };
  boxes: { label: string; leftBecause?: string }[];
  job?: { resumedFrom?: string; attempt: number };
  lastSync?: { checkpoint?: string };
  end?: { action: string; ok: boolean; stillBilling: boolean };
  events: { text: string }[];
  spentFen: number | null;
}

/** Waits (at most 2 minutes) until the launch of the task file `file` has a verified checkpoint; its state then. */
async function firstCheckpoint(file: string, env: Record<string, string>): Promise<State> {
  for (let i = 0; i < 600; i++) {
    await sleep(200);
    const r = runCli(['launch', '--file', file, '--status', '--json'], { env, timeoutMs: 30000 });
    const st = r.code === 0 ? (JSON.parse(r.stdout) as State) : undefined;
    if (st?.lastSync?.checkpoint) return st;
  }
  assert.fail(`no checkpoint was synced for ${file}`);
}

describe('gpu-rent launch: a task end to end (real sshd boxes)', function () {
  this.timeout(240000);
  let a: TestSshd;
  let b: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const login = (s: TestSshd) => `ssh://${s.user}@127.0.0.1:${s.port}`;
  const keys = (s: TestSshd) => ['--accept-new', '--identity', s.privateKeyPath];

  /** A repository folder with the task file, the script, a .gitignore'd file, and git. */
  function repo(name: string, yaml: string): string {
    const dir = join(home.path, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), TRAIN_PY);
    writeFileSync(join(dir, 'requirements.txt'), '# nothing to install\n');
    writeFileSync(join(dir, '.gitignore'), 'scratch/\n*.log\nckpt-home/\n');
    mkdirSync(join(dir, 'scratch'), { recursive: true });
    writeFileSync(join(dir, 'scratch', 'big-local-only.bin'), Buffer.alloc(4096, 1));
    writeFileSync(join(dir, 'run.log'), 'local log, ignored\n');
    writeFileSync(join(dir, 'gpu-rent.yaml'), yaml);
    execFileSync('git', ['init', '-q', dir]);
    return dir;
  }
  const launch = (dir: string, args: string[], s: TestSshd = a) => runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), ...args, ...keys(s)], { env, timeoutMs: 200000 });
  const status = (dir: string): State => {
    const r = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status', '--json'], { env, timeoutMs: 30000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    return JSON.parse(r.stdout) as State;
  };
  const ckpts = (dir: string) => (existsSync(join(dir, 'ckpt-home')) ? readdirSync(join(dir, 'ckpt-home')).filter((n) => n.startsWith('step-')).sort() : []);

  before(async () => {
    [a, b] = await Promise.all([startSshd(), startSshd()]);
    home = tempDir('gpu-rent-launch-');
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500' };
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    home?.remove();
  });

  it('an SSH login: push (gitignore respected), setup, run detached, every checkpoint synced and verified, done', () => {
    const dir = repo('plain', [
      'name: plain',
      'resources: {cards: [4090], gpus: 1}',
      `instance: "${login(a)}"`,
      'setup: [pip --version >/dev/null 2>&1 || true, "echo set-up > setup-ran"]',
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "12", EVERY: "4", DELAY: "0.2"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 1.98',
      'end: none',
    ].join('\n') + '\n');
    const r = launch(dir, []);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /\[plain \d\d:\d\d:\d\d\] acquired .*127\.0\.0\.1.* at ¥1\.98\/h/);
    assert.match(r.stderr, /check: .*RTX 4090/);
    assert.match(r.stderr, /push: workdir → .*gpu-rent\/plain: \d+ sent, .*2 left out by \.gitignore/);
    assert.match(r.stderr, /watch: step \d+\/12/);
    assert.deepEqual(ckpts(dir), ['step-0004', 'step-0008', 'step-0012']);
    const remote = join(a.home, 'gpu-rent', 'plain');
    assert.ok(existsSync(join(remote, 'train.py')));
    assert.equal(existsSync(join(remote, 'scratch')), false, '.gitignore: scratch/ is not pushed');
    assert.equal(existsSync(join(remote, 'run.log')), false, '.gitignore: *.log is not pushed');
    assert.equal(existsSync(join(remote, '.git')), false, '.git is never pushed');
    assert.equal(readFileSync(join(remote, 'setup-ran'), 'utf8').trim(), 'set-up');
    const s = status(dir);
    assert.equal(s.phase, 'done');
    assert.equal(s.outcome?.kind, 'finished');
    assert.equal(s.lastSync?.checkpoint, 'step-0012');
    assert.equal(typeof s.spentFen, 'number');
    // The same weights on both sides.
    assert.deepEqual(readFileSync(join(dir, 'ckpt-home', 'step-0008', 'weights.bin')), readFileSync(join(remote, 'ckpt', 'step-0008', 'weights.bin')));
    // Done means done: --resume has nothing to continue, and the text status says so.
    const again = launch(dir, ['--resume']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /has ended \(finished\)/);
  });

  it('killed mid-run (SIGKILL) and resumed: the run went on on the box and the resumed launch finishes it', async () => {
    const dir = repo('killed', [
      'name: killed',
      `instance: "${login(a)}"`,
      'resources: {cards: [], gpus: 1}',
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "30", EVERY: "10", DELAY: "0.25"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
    ].join('\n') + '\n');
    const child = spawn(process.execPath, [CLI, 'launch', '--file', join(dir, 'gpu-rent.yaml'), ...keys(a)], { env: { ...process.env, ...env, LANG: 'C.UTF-8' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    for (let i = 0; i < 200 && !/watch: step/.test(err); i++) await sleep(100);
    assert.match(err, /watch: step/, err);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const mid = status(dir);
    assert.equal(mid.phase, 'watch', 'the state on disk says where it was');
    const fresh = launch(dir, []);
    assert.equal(fresh.code, 1, 'a launch in progress is not started twice');
    assert.match(fresh.stderr, /in progress \(watch on .*\): continue it with --resume/);
    const r = launch(dir, ['--resume']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /resumed at watch/);
    assert.doesNotMatch(r.stderr, /run: started/, 'the run is not started again');
    assert.deepEqual(ckpts(dir), ['step-0010', 'step-0020', 'step-0030']);
    assert.equal(status(dir).outcome?.kind, 'finished');
  });

  it('setup: {environment}: the capture (gpu-rent env capture) is rebuilt on the box first, and setup and the run use that env', () => {
    // Box b gets a venv with a marker package (pip's own); the capture is taken from it with the CLI.
    b.runAsUser('python3 -m venv "$HOME/srcenv"');
    appendFileSync(join(b.home, '.profile'), 'export PATH="$HOME/srcenv/bin:$PATH"\n');
    const dir = repo('envtask', [
      'name: envtask',
      `instance: "${login(b)}"`,
      'setup: {environment: gpu-rent-env, commands: ["command -v python > which-python"]}',
      'run: python train.py --out ckpt',
      'env: {STEPS: "4", EVERY: "2", DELAY: "0.1"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
    ].join('\n') + '\n');
    const cap = runCli(['env', 'capture', login(b), ...keys(b), '--out', join(dir, 'gpu-rent-env')], { env, timeoutMs: 120000 });
    assert.equal(cap.code, 0, cap.stderr);
    const r = launch(dir, [], b);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /setup: rebuilding the environment from gpu-rent-env as envtask/);
    assert.match(r.stderr, /setup: environment envtask ready/);
    assert.equal(readFileSync(join(b.home, 'gpu-rent', 'envtask', 'which-python'), 'utf8').trim(), join(b.home, '.gpu-rent', 'venvs', 'envtask', 'bin', 'python'));
    assert.deepEqual(ckpts(dir), ['step-0002', 'step-0004']);
  });

  it('a budget cap: a step it cannot cover at the current burn is not started; a run whose projected cost passes it is stopped after a verified sync (exit 3)', () => {
    const small = repo('budget-small', ['name: budget-small', `instance: "${login(a)}"`, 'run: python3 train.py --out ckpt', 'price_yuan_per_hour: 3.6', 'budget_yuan: 0.5'].join('\n') + '\n');
    const r0 = launch(small, []);
    assert.equal(r0.code, 3, r0.stderr + r0.stdout);
    assert.match(r0.stderr, /budget: the budget cap ¥0\.50 does not cover 10 more minutes at ¥3\.60\/h/);
    assert.equal(existsSync(join(a.home, 'gpu-rent', 'budget-small')), false, 'nothing was pushed');
    assert.equal(status(small).outcome?.kind, 'budget');

    const dir = repo('budget', [
      'name: budget',
      `instance: "${login(a)}"`,
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "100000", EVERY: "3", DELAY: "0.1"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 3.6',
      'budget_yuan: 1',
    ].join('\n') + '\n');
    const r = launch(dir, []);
    assert.equal(r.code, 3, r.stderr + r.stdout);
    assert.match(r.stderr, /budget: the projected cost to finish, ¥\d+\.\d\d, passes the budget cap ¥1\.00/);
    assert.match(r.stderr, /end: sync ok/);
    const jobs = JSON.parse(runCli(['jobs', login(a), ...keys(a), '--json'], { env, timeoutMs: 60000 }).stdout) as { name: string; state: string; stopped: boolean }[];
    const job = jobs.find((j) => j.name === 'budget')!;
    assert.equal(job.state, 'exited', 'the run was stopped on the box');
    const onBox = readdirSync(join(a.home, 'gpu-rent', 'budget', 'ckpt')).filter((n) => /^step-\d+$/.test(n)).sort();
    assert.deepEqual(ckpts(dir), onBox, 'every checkpoint the box wrote is home');
    assert.equal(status(dir).phase, 'stopped');
  });

  it('--smoke stops after the smoke steps, syncs, and says how to run it whole', () => {
    const dir = repo('smoke', [
      'name: smoke',
      `instance: "${login(a)}"`,
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "5000", EVERY: "2", DELAY: "0.1"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'smoke: {steps: 6}',
    ].join('\n') + '\n');
    const r = launch(dir, ['--smoke']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /smoke test done: \d+ steps ran/);
    const s = status(dir);
    assert.equal(s.outcome?.kind, 'smoke');
    assert.ok(ckpts(dir).includes('step-0006'), ckpts(dir).join(','));
    assert.ok(!ckpts(dir).includes('step-0100'), 'it stopped early');
  });

  it('a red GPU check stops before anything is pushed or run', () => {
    b.setNvidiaSmi(null);
    try {
      const dir = repo('red', ['name: red', `instance: "${login(b)}"`, 'run: python3 train.py --out ckpt'].join('\n') + '\n');
      const r = launch(dir, [], b);
      assert.equal(r.code, 3, r.stderr + r.stdout);
      assert.match(r.stderr, /the doctor's verdict is no-driver/);
      assert.match(r.stdout, /stopped by the GPU check: the GPU check failed/);
      assert.equal(existsSync(join(b.home, 'gpu-rent', 'red')), false, 'nothing was pushed');
    } finally {
      b.setNvidiaSmi('rtx4090_driver535.86.05_q.xml');
    }
  });

  it('a task file error names its line and field; a missing file says where it looked', () => {
    const dir = join(home.path, 'bad');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'gpu-rent.yaml'), 'name: bad\nrun: python train.py\nchekpoints: {remote: ckpt, local: ./c}\n');
    const r = runCli(['launch'], { env, cwd: dir });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /line 3, column 1 \(chekpoints\):.*checkpoints/);
    const none = runCli(['launch'], { env, cwd: home.path });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no task file: .*gpu-rent\.yaml or .*gpu-rent\.yml not found/);
    const j = runCli(['launch', '--json'], { env, cwd: dir });
    assert.equal(JSON.parse(j.stdout).error.code, 'bad-task-file');
  });

  it('nodes: 2 with torchrun: both boxes checked, pushed and set up, the launcher started on each with its rank, rank 0\'s checkpoints home', () => {
    // A torchrun stand-in (no torch here): records its argv, then runs the script as torchrun would on one GPU.
    for (const box of [a, b]) box.runAsUser(`cat > "$HOME/bin/torchrun" <<'EOF_T'\n#!/bin/sh\nprintf '%s\\n' "$@" > "$HOME/torchrun.argv"\nwhile [ $# -gt 0 ]; do case "$1" in --*) shift ;; *) break ;; esac; done\nexec python3 "$@"\nEOF_T\nchmod +x "$HOME/bin/torchrun"`);
    const dir = repo('ddp', [
      'name: ddp',
      `instance: ["${login(a)}", "${login(b)}"]`,
      'nodes: 2',
      'launcher: torchrun',
      'master_addr: 127.0.0.1',
      'port: 29633',
      'setup: "echo ok > setup-ran"',
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "6", EVERY: "3", DELAY: "0.2"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 2',
    ].join('\n') + '\n');
    const r = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--accept-new', '--identity', a.privateKeyPath, '--identity', b.privateKeyPath], { env, timeoutMs: 200000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /acquired rank 0: .*127\.0\.0\.1/);
    assert.match(r.stderr, /acquired rank 1: .*127\.0\.0\.1/);
    assert.match(r.stderr, /run: started ddp on 2 nodes with torchrun \(1 GPU\(s\) each, rendezvous 127\.0\.0\.1:29633\)/);
    for (const [rank, box] of [a, b].entries()) {
      assert.equal(readFileSync(join(box.home, 'gpu-rent', 'ddp', 'setup-ran'), 'utf8').trim(), 'ok');
      assert.deepEqual(readFileSync(join(box.home, 'torchrun.argv'), 'utf8').trim().split('\n'), ['--nnodes=2', `--node_rank=${rank}`, '--nproc_per_node=1', '--master_addr=127.0.0.1', '--master_port=29633', 'train.py', '--out', 'ckpt']);
    }
    assert.deepEqual(ckpts(dir), ['step-0003', 'step-0006']);
    const st = status(dir) as State & { nodes?: unknown[] };
    assert.equal(st.outcome?.kind, 'finished');
    assert.equal(st.nodes?.length, 1);
  });

  it('a spot notice on the box (阿里云 metadata termination-time): the checkpoints come home at once and the run moves to the next box', async () => {
    // The metadata service as 阿里云 documents it: 404 until a reclaim is scheduled, then the time (ISO 8601, UTC).
    // Both boxes are this machine: the notice is served once (to box a), box b then sees 404 as its own metadata would say.
    let notice: string | null = null;
    const meta = createServer((req, res) => {
      if (req.url === '/latest/meta-data/instance/spot/termination-time' && notice) {
        res.end(notice);
        notice = null;
      } else res.writeHead(404).end('Not Found');
    });
    await new Promise<void>((r) => meta.listen(0, '127.0.0.1', r));
    try {
      const port = (meta.address() as AddressInfo).port;
      const dir = repo('notice', [
        'name: notice',
        `instance: ["${login(a)}", "${login(b)}"]`,
        'resources: {cards: [], gpus: 1, spot: true}',
        'run: python3 train.py --out ckpt',
        'resume: python3 train.py --out ckpt --resume {checkpoint}',
        'env: {STEPS: "260", EVERY: "5", DELAY: "0.15"}',
        'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
        'price_yuan_per_hour: 0.9',
      ].join('\n') + '\n');
      const run = runCliAsync(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--accept-new', '--identity', a.privateKeyPath, '--identity', b.privateKeyPath], { ...env, LANG: 'C.UTF-8', GPU_RENT_SPOT_METADATA: `127.0.0.1:${port}` });
      await firstCheckpoint(join(dir, 'gpu-rent.yaml'), env);
      notice = '2026-12-02T01:40:00Z';
      const r = await run;
      assert.equal(r.code, 0, r.stderr + r.stdout);
      assert.match(r.stderr, /spot: the platform announced the reclaim of .* at 2026-12-02T01:40:00Z: syncing the checkpoints now/);
      assert.match(r.stderr, /reclaimed: .*announced its reclaim at 2026-12-02T01:40:00Z/);
      assert.match(r.stderr, /run: started notice .*resuming from .*step-\d{4}/);
      const end = status(dir);
      assert.equal(end.recoveries, 1);
      assert.equal(end.outcome?.kind, 'finished');
      assert.deepEqual(ckpts(dir), Array.from({ length: 52 }, (_, i) => `step-${String((i + 1) * 5).padStart(4, '0')}`));
    } finally {
      meta.close();
    }
  });

  // Last: it stops box a for good.
  it('a spot box that stops answering mid-run: relaunched on the second box from the last verified checkpoint, none lost, #recoveries 1', async () => {
    const dir = repo('spot', [
      'name: spot',
      `instance: ["${login(a)}", "${login(b)}"]`,
      'resources: {cards: [], gpus: 1, spot: true}',
      'run: python3 train.py --out ckpt',
      'resume: python3 train.py --out ckpt --resume {checkpoint}',
      'env: {STEPS: "300", EVERY: "5", DELAY: "0.15"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'reclaim_after: 10s',
      'price_yuan_per_hour: 0.9',
    ].join('\n') + '\n');
    const run = runCliAsync(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--accept-new', '--identity', a.privateKeyPath, '--identity', b.privateKeyPath], { ...env, LANG: 'C.UTF-8' });
    const synced = (await firstCheckpoint(join(dir, 'gpu-rent.yaml'), env)).lastSync!.checkpoint!;
    await a.stop(); // the spot box is gone: its sshd stops answering
    const r = await run;
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /reclaimed: .*has not answered SSH for \d+ s \(spot\)/);
    assert.match(r.stderr, /recovery #1: relaunching on the next instance/);
    assert.match(r.stderr, new RegExp(`push: checkpoints → .*resuming from ${synced}`));
    assert.match(r.stderr, /run: started spot .*resuming from .*step-\d{4}/);
    const end = status(dir);
    assert.equal(end.outcome?.kind, 'finished');
    assert.equal(end.recoveries, 1);
    assert.equal(end.boxes[0]?.leftBecause, 'reclaimed');
    // None lost: every checkpoint from step 5 to 300 is home (those after the reclaim redone on b).
    const want = Array.from({ length: 60 }, (_, i) => `step-${String((i + 1) * 5).padStart(4, '0')}`);
    assert.deepEqual(ckpts(dir), want);
    const log = readFileSync(join(b.home, '.gpu-rent', 'jobs', 'spot', 'output.log'), 'utf8');
    assert.match(log, /resumed from .*step-\d{4} at step \d+/);
  });
});

describe('gpu-rent launch on a platform (the platform test server + real sshd boxes)', function () {
  this.timeout(240000);
  let s: PlatformServer;
  let c: TestSshd;
  let d: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const file = (dir: string) => join(dir, 'gpu-rent.yaml');
  const ckpts = (dir: string) => (existsSync(join(dir, 'ckpt-home')) ? readdirSync(join(dir, 'ckpt-home')).filter((n) => n.startsWith('step-')).sort() : []);
  function repo(name: string, yaml: string): string {
    const dir = join(home.path, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), TRAIN_PY);
    writeFileSync(join(dir, 'gpu-rent.yaml'), yaml);
    return dir;
  }
  const status = (dir: string): State => JSON.parse(runCli(['launch', '--file', file(dir), '--status', '--json'], { env, timeoutMs: 30000 }).stdout) as State;

  before(async () => {
    [s, c, d] = await Promise.all([PlatformServer.start(), startSshd(), startSshd()]);
    home = tempDir('gpu-rent-launch-p-');
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500', GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '100' };
  });
  after(async () => {
    await Promise.all([c?.stop(), d?.stop(), s?.close()]);
    home?.remove();
  });

  it('instance: new creates only when confirmed (--yes), runs on it, brings the checkpoints home, then powers it off through the platform', async () => {
    s.createLogin = { sshPort: c.port, password: c.password, user: c.user };
    const dir = repo('made', [
      'name: made',
      'instance: new',
      'resources: {cards: [4090], gpus: 1}',
      'create: {account: env-autodl-pro, image: base-image-12be412037}',
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "8", EVERY: "4", DELAY: "0.2"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'end: power-off',
    ].join('\n') + '\n');
    const no = await runCliAsync(['launch', '--file', file(dir), '--accept-new'], env);
    assert.equal(no.code, 1, no.stderr + no.stdout);
    assert.match(no.stderr, /quote: cheapest in the catalog: rtx4090 on AutoDL ¥\d+\.\d\d\/h \(field report.*undated/);
    assert.match(no.stderr, /not created: made on env-autodl-pro \(rtx4090 × 1, price per hour not quoted by the platform before a create\)\. .*gpu-rent launch --yes/);
    assert.equal(s.instances.size, 0, 'nothing was created');
    const r = await runCliAsync(['launch', '--file', file(dir), '--accept-new', '--yes'], env);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /creating made on env-autodl-pro/);
    assert.match(r.stderr, /acquired made \(env-autodl-pro\/[\w-]+\) at ¥\d+\.\d\d\/h/);
    assert.match(r.stderr, /end: powerOff ok \(connector\)/);
    const made = [...s.instances.values()].find((i) => i.name === 'made')!;
    assert.equal(made.state, 'shutdown', 'the platform says it is off');
    assert.deepEqual(ckpts(dir), ['step-0004', 'step-0008']);
    const st = status(dir);
    assert.equal(st.outcome?.kind, 'finished');
    assert.equal(st.end?.stillBilling, false);
  });

  it('a spot instance the platform takes back mid-run: synced on the notice, relaunched on the next candidate from the last checkpoint', async () => {
    s.add({ platform: 'autodl-pro', id: 'spot-1', name: 'spotbox', state: 'running', sshPort: c.port, password: c.password, sshUser: c.user });
    const dir = repo('taken', [
      'name: taken',
      `instance: [spotbox, "ssh://${d.user}@127.0.0.1:${d.port}"]`,
      'resources: {cards: [], gpus: 1, spot: true}',
      'run: python3 train.py --out ckpt',
      'resume: python3 train.py --out ckpt --resume {checkpoint}',
      'env: {STEPS: "260", EVERY: "5", DELAY: "0.15"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 0.9',
    ].join('\n') + '\n');
    const run = runCliAsync(['launch', '--file', file(dir), '--accept-new', '--identity', d.privateKeyPath], env);
    await firstCheckpoint(file(dir), env);
    s.instances.get('spot-1')!.state = 'shutdown'; // the platform took it back
    const r = await run;
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /reclaimed: spotbox .*was taken back by the platform/);
    assert.match(r.stderr, /run: started taken .*resuming from .*step-\d{4}/);
    const end = status(dir);
    assert.equal(end.recoveries, 1);
    assert.equal(end.outcome?.kind, 'finished');
    assert.deepEqual(ckpts(dir), Array.from({ length: 52 }, (_, i) => `step-${String((i + 1) * 5).padStart(4, '0')}`));
  });
});
