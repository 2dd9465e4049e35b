// A sweep end to end from the built CLI (issue 42.1) on real boxes (two loopback OpenSSH sshds,
// a real Python training loop): `matrix: {lr: [0.1, 0.2], rank: [8]}` makes two runs, each its own
// launch on its own box at once, its values in the command, its own checkpoint folders; `launch
// --status` shows the sweep as a table; both runs end in the ledger with their parameters (`runs
// --json`); a failed run does not stop the other, and `fail_fast: true` stops the sweep starting more.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, runCli, runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { sleep, tempDir } from './remote-helpers';
import { TRAIN_PY } from '../support/train-loop';

interface RunJson { name: string; kind: string; params: Record<string, unknown>; steps: number | null; total: number | null; finalLoss: number | null; seconds: number; cost: number | null; end: string }

describe('gpu-rent launch: a sweep (real sshd boxes, real Python loops)', function () {
  this.timeout(240000);
  let a: TestSshd;
  let b: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const login = (s: TestSshd) => `ssh://${s.user}@127.0.0.1:${s.port}`;

  function repo(name: string, yaml: string): string {
    const dir = join(home.path, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'train.py'), TRAIN_PY);
    writeFileSync(join(dir, '.gitignore'), 'ckpt-home/\n');
    writeFileSync(join(dir, 'gpu-rent.yaml'), yaml);
    execFileSync('git', ['init', '-q', dir]);
    return dir;
  }
  const launch = (dir: string, args: string[]) => runCliAsync(['launch', '--file', join(dir, 'gpu-rent.yaml'), ...args, '--accept-new', '--identity', a.privateKeyPath, '--identity', b.privateKeyPath], env);

  before(async () => {
    [a, b] = await Promise.all([startSshd(), startSshd()]);
    home = tempDir('gpu-rent-sweep-');
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', GPU_RENT_LAUNCH_POLL_MS: '500', LANG: 'C.UTF-8' };
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    home?.remove();
  });

  it('a 2×1 matrix: two launches at once on the two listed boxes, each with its values and its own checkpoints; the status table; both in the ledger with their parameters', async () => {
    const dir = repo('sweep', [
      'name: lora',
      'resources: {cards: [4090], gpus: 1}',
      `instance: ["${login(a)}", "${login(b)}"]`,
      'run: python3 train.py --out ckpt --lr {lr} --rank {rank} && echo "lr={lr} rank={rank}" > ran-with',
      'env: {STEPS: "8", EVERY: "4", DELAY: "0.3", NAN_FROM: "1000"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 2',
      'budget_yuan: 10',
      'end: none',
      'matrix: {lr: [0.1, 0.2], rank: [8]}',
    ].join('\n') + '\n');
    const r = await launch(dir, []);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /\[lora-1\] sweep run 1 \(lr=0\.1 rank=8\): started/);
    assert.match(r.stderr, /\[lora-2\] sweep run 2 \(lr=0\.2 rank=8\): started/);
    assert.match(r.stderr, /\[lora-1 \d\d:\d\d:\d\d\] acquired .*127\.0\.0\.1/);
    // Both ran at once: the second started before the first was done.
    const started2 = r.stderr.indexOf('[lora-2] sweep run 2');
    const done1 = r.stderr.indexOf('[lora-1] sweep run 1 (lr=0.1 rank=8): done');
    assert.ok(started2 >= 0 && done1 > started2, r.stderr);
    // Each on its own box, in its own workdir, with its own values.
    assert.equal(readFileSync(join(a.home, 'gpu-rent', 'lora-1', 'ran-with'), 'utf8').trim(), 'lr=0.1 rank=8');
    assert.equal(readFileSync(join(b.home, 'gpu-rent', 'lora-2', 'ran-with'), 'utf8').trim(), 'lr=0.2 rank=8');
    // Each run's checkpoints home in its own folder.
    for (const m of ['lora-1', 'lora-2']) assert.deepEqual(readdirSync(join(dir, 'ckpt-home', m)).filter((n) => n.startsWith('step-')).sort(), ['step-0004', 'step-0008']);
    // The table: both runs, their parameters, done.
    assert.match(r.stdout, /sweep lora: 2 runs \(2 done, 0 failed, 0 running, 0 queued, 0 skipped\)/);
    assert.match(r.stdout, /spent ¥\d+\.\d\d of the budget ¥10\.00/);
    assert.match(r.stdout, /1 +lora-1 +lr=0\.1 rank=8 +done +done \(finished\)/);
    assert.match(r.stdout, /2 +lora-2 +lr=0\.2 rank=8 +done +done \(finished\)/);
    const st = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status'], { env: { ...env, LANG: 'zh_CN.UTF-8' } });
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, /扫参 lora：2 次运行（完成 2，失败 0/);
    assert.match(st.stdout, /lora-2 +lr=0\.2 rank=8 +完成/);
    const js = runCli(['launch', '--file', join(dir, 'gpu-rent.yaml'), '--status', '--json'], { env });
    const doc = JSON.parse(js.stdout) as { runs: { name: string; status: string; params: Record<string, unknown>; budgetFen: number }[] };
    assert.deepEqual(doc.runs.map((x) => [x.name, x.status, x.params]), [['lora-1', 'done', { lr: 0.1, rank: 8 }], ['lora-2', 'done', { lr: 0.2, rank: 8 }]]);
    assert.ok(doc.runs.every((x) => x.budgetFen > 0 && x.budgetFen <= 500), 'one budget: each run capped at its share of ¥10 (two at once: ¥5 each)');
    // The ledger: both runs, with their parameters, steps, final loss, seconds and cost.
    const list = runCli(['runs', '--json'], { env });
    assert.equal(list.code, 0, list.stderr);
    const runs = (JSON.parse(list.stdout) as { runs: RunJson[] }).runs.sort((x, y) => (x.name < y.name ? -1 : 1));
    assert.deepEqual(runs.map((x) => [x.name, x.kind, x.params, x.end]), [['lora-1', 'sweep', { lr: 0.1, rank: 8 }, 'finished'], ['lora-2', 'sweep', { lr: 0.2, rank: 8 }, 'finished']]);
    for (const x of runs) {
      assert.equal(x.steps, 8);
      assert.equal(x.total, 8);
      assert.equal(typeof x.finalLoss, 'number');
      assert.ok(x.seconds > 0);
      assert.equal(typeof x.cost, 'number');
    }
    // Done means done: --resume has nothing to continue.
    const again = await launch(dir, ['--resume']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /the sweep lora has ended/);
  });

  it('killed mid-sweep (SIGKILL) and resumed: the runs going on continue from their own states, the queued one starts, none runs twice', async () => {
    const dir = repo('killed', [
      'name: killed',
      'resources: {cards: [4090], gpus: 1}',
      `instance: ["${login(a)}", "${login(b)}"]`,
      'run: python3 train.py --out ckpt --seed {seed}',
      'env: {STEPS: "24", EVERY: "8", DELAY: "0.25"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 1',
      'end: none',
      'matrix: {seed: [1, 2, 3]}',
    ].join('\n') + '\n');
    const child = spawn(process.execPath, [CLI, 'launch', '--file', join(dir, 'gpu-rent.yaml'), '--accept-new', '--identity', a.privateKeyPath, '--identity', b.privateKeyPath], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    for (let i = 0; i < 300 && !(/\[killed-1 [^\]]*\] watch: step/.test(err) && /\[killed-2 [^\]]*\] watch: step/.test(err)); i++) await sleep(100);
    assert.match(err, /\[killed-2 [^\]]*\] watch: step/, err);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const fresh = await launch(dir, []);
    assert.equal(fresh.code, 1, 'a sweep in progress is not started twice');
    assert.match(fresh.stderr, /a sweep of killed is in progress \(2 running, 1 queued\): continue it with --resume/);
    const r = await launch(dir, ['--resume']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /\[killed-1 [^\]]*\] resumed at watch/);
    assert.match(r.stderr, /\[killed-2 [^\]]*\] resumed at watch/);
    assert.doesNotMatch(r.stderr, /\[killed-[12] [^\]]*\] run: started/, 'the runs going on are not started again');
    assert.match(r.stderr, /\[killed-3 [^\]]*\] run: started/);
    assert.match(r.stdout, /sweep killed: 3 runs \(3 done, 0 failed/);
    for (const m of ['killed-1', 'killed-2', 'killed-3']) assert.deepEqual(readdirSync(join(dir, 'ckpt-home', m)).filter((n) => n.startsWith('step-')).sort(), ['step-0008', 'step-0016', 'step-0024'], m);
  });

  it('gpus_per_run: two runs side by side on one two-GPU box (a real 2× RTX 2070 nvidia-smi capture), each with its own CUDA_VISIBLE_DEVICES', async () => {
    a.setNvidiaSmi('rtx2070_x2_driver590.44.01_q.xml');
    try {
      const dir = repo('lanes', [
        'name: lanes',
        'resources: {gpus: 2}',
        `instance: "${login(a)}"`,
        'run: date +%s.%N > started && echo "$CUDA_VISIBLE_DEVICES" > devices && python3 train.py --out ckpt && date +%s.%N > ended',
        'env: {STEPS: "8", EVERY: "4", DELAY: "0.4", SEED: "{seed}"}',
        'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
        'price_yuan_per_hour: 3',
        'end: none',
        'gpus_per_run: 1',
        'matrix: {seed: [1, 2]}',
      ].join('\n') + '\n');
      const r = await launch(dir, []);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const read = (m: string, f: string) => readFileSync(join(a.home, 'gpu-rent', m, f), 'utf8').trim();
      assert.deepEqual([read('lanes-1', 'devices'), read('lanes-2', 'devices')], ['0', '1']);
      // Side by side: the second started before the first ended.
      assert.ok(Number(read('lanes-2', 'started')) < Number(read('lanes-1', 'ended')), 'the two runs overlapped');
      assert.match(r.stdout, /lanes-1 .*127\.0\.0\.1:\d+ gpu 0/);
      assert.match(r.stdout, /lanes-2 .*127\.0\.0\.1:\d+ gpu 1/);
    } finally {
      a.setNvidiaSmi('rtx4090_driver535.86.05_q.xml');
    }
  });

  it('a failed run does not stop the others; with fail_fast: true no further run starts', async () => {
    const yaml = (failFast: boolean) => [
      `name: ${failFast ? 'ffs' : 'ff'}`,
      'resources: {cards: [4090], gpus: 1}',
      `instance: "${login(a)}"`,
      'run: mkdir -p ckpt && test {seed} != 1 && python3 train.py --out ckpt',
      'env: {STEPS: "2", EVERY: "2", DELAY: "0.1"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 1',
      'end: none',
      'matrix: {seed: [1, 2, 3]}',
      ...(failFast ? ['fail_fast: true'] : []),
    ].join('\n') + '\n';
    const dir = repo('ff', yaml(false));
    const r = await launch(dir, []);
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stdout, /sweep ff: 3 runs \(2 done, 1 failed, 0 running, 0 queued, 0 skipped\)/);
    const ff = repo('ff2', yaml(true));
    const f = await launch(ff, []);
    assert.equal(f.code, 1, f.stderr + f.stdout);
    // One box, one run at a time: run 1 fails, runs 2 and 3 never start.
    assert.match(f.stdout, /sweep ffs: 3 runs \(0 done, 1 failed, 0 running, 0 queued, 2 skipped\)/);
    assert.match(f.stdout, /no further run starts: fail_fast: ffs-1 failed/);
    assert.equal(existsSync(join(a.home, 'gpu-rent', 'ffs-2')), false);
  });
});
