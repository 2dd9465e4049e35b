// Issue 42 items 2-4 end to end on the built CLI: two real Python training loops started with
// `gpu-rent run --then sync` on a loopback sshd; each run is recorded in the ledger when gpu-rent
// sees it end ($GPU_RENT_HOME/runs.jsonl, parsed from the real log tail by core/progress), then
// read back by `runs --json`, `runs compare --json` and `quote --like RUN --json`, whose card of
// the run is priced from the measured speed (measured, with the run and its date) and every other
// card scaled by relative speed (estimated).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliAsync } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { tempDir } from './remote-helpers';

// A training loop as a trainer prints it: step i/total and the loss, flushed, then a checkpoint.
const TRAIN = `import sys, time, os
steps, total, lr, pause = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
for i in range(1, steps + 1):
    print(f"step {i}/{total} loss={3.0 / (1 + lr * 1000 * i):.4f}", flush=True)
    time.sleep(pause)
os.makedirs(sys.argv[5], exist_ok=True)
open(os.path.join(sys.argv[5], "adapter.bin"), "w").write("weights")
`;

interface RunJson { id: string; name: string; card: string; gpus: number; seconds: number; steps: number; total: number; stepsPerSecond: number; finalLoss: number; bestLoss: number; cost: number; end: string; curve?: { step: number; loss: number; hours: number; yuan: number }[] }

describe('the ledger of runs from the built CLI (real sshd, real Python loops)', function () {
  this.timeout(180000);
  let box: TestSshd;
  let home: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const target = () => `ssh://${box.user}@127.0.0.1:${box.port}`;
  const run = (name: string, extra: string[], lr: string) => runCliAsync(['run', target(), '--accept-new', '--identity', box.privateKeyPath, '--name', name, '--cwd', '~', ...extra, '--then', 'sync', '--sync-remote', join(box.home, `ck-${name}`), '--sync-local', join(home.path, 'ck', name), '--', 'python3', 'train.py', '24', '20000', lr, '0.15', `ck-${name}`], env);

  before(async () => {
    box = await startSshd();
    box.runAsUser(`cat > "$HOME/train.py" <<'EOF_T'\n${TRAIN}EOF_T`);
    home = tempDir();
    env = { GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path, GPU_RENT_HOME: join(home.path, 'cfg'), GPU_RENT_PASSWORD: '', LANG: 'C.UTF-8' };
  });
  after(async () => {
    await box?.stop();
    home?.remove();
  });

  it('two runs recorded at their end; runs, runs compare and quote --like read them back', async () => {
    // Two experiments at once: a 3090 named by --card at ¥1.60/h, and one on what nvidia-smi says (the box's 4090 capture) at ¥2.20/h.
    const [a, b] = await Promise.all([run('lr1', ['--card', '3090', '--rate', '1.6'], '1e-3'), run('lr3', ['--rate', '2.2'], '3e-3')]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.match(a.stderr, /\[lr1\] recorded as run r-\d{8}-\d{6}-[0-9a-f]+ \(gpu-rent runs\)/);
    assert.equal(readFileSync(join(home.path, 'ck', 'lr1', 'adapter.bin'), 'utf8'), 'weights');
    assert.ok(existsSync(join(home.path, 'cfg', 'runs.jsonl')));

    const list = runCli(['runs', '--json'], { env });
    assert.equal(list.code, 0, list.stderr);
    const doc = JSON.parse(list.stdout) as { runs: RunJson[]; skipped: unknown[] };
    assert.deepEqual(doc.skipped, []);
    const byName = Object.fromEntries(doc.runs.map((r) => [r.name, r]));
    const [ra, rb] = [byName.lr1!, byName.lr3!];
    for (const [r, lr, card, rate] of [[ra, 1e-3, 'rtx3090', 160], [rb, 3e-3, 'rtx4090', 220]] as const) {
      assert.equal(r.card, card);
      assert.equal(r.gpus, 1);
      assert.equal(r.steps, 24);
      assert.equal(r.total, 20000);
      assert.equal(r.end, 'finished');
      assert.equal(r.finalLoss, Number((3 / (1 + lr * 1000 * 24)).toFixed(4)));
      assert.equal(r.bestLoss, r.finalLoss);
      assert.ok(r.seconds >= 3 && r.seconds < 60, String(r.seconds));
      assert.ok(r.stepsPerSecond > 0.5 && r.stepsPerSecond < 20, String(r.stepsPerSecond));
      assert.equal(r.cost, Math.round((r.seconds / 3600) * rate) / 100);
    }

    const cmp = runCli(['runs', 'compare', ra.id, 'lr3', '--json'], { env });
    assert.equal(cmp.code, 0, cmp.stderr);
    const c = JSON.parse(cmp.stdout) as { runs: RunJson[]; best: Record<string, string> };
    assert.deepEqual(c.runs.map((r) => r.id), [ra.id, rb.id]);
    for (const r of c.runs) {
      assert.equal(r.curve!.length, 24);
      assert.deepEqual(r.curve!.map((p) => p.step), Array.from({ length: 24 }, (_, i) => i + 1));
      assert.equal(r.curve!.at(-1)!.loss, r.finalLoss);
      for (const p of r.curve!) assert.ok(p.hours !== null && p.yuan !== null && p.hours >= 0 && p.yuan >= 0);
      assert.ok(r.curve!.at(-1)!.hours > r.curve![0]!.hours);
    }
    assert.equal(c.best.finalLoss, rb.id);
    const text = runCli(['runs', 'compare', ra.id, rb.id], { env });
    assert.match(text.stdout, /lowest final loss: r-/);
    // Both runs under the Chinese header (they started together: listed by start, then name).
    const zh = runCli(['runs'], { env: { ...env, LANG: 'zh_CN.UTF-8' } }).stdout;
    assert.match(zh, /最终 loss[\s\S]*结束方式\n/);
    assert.match(zh.slice(zh.indexOf('结束方式')), /lr1/);
    assert.match(zh.slice(zh.indexOf('结束方式')), /lr3/);

    // quote --like: the job (20000 steps) at the run's measured speed on its 3090.
    const q = runCli(['quote', '--like', 'lr1', '--json'], { env });
    assert.equal(q.code, 0, q.stderr);
    const quote = JSON.parse(q.stdout) as { like: { run: string; card: string; hours: number; stepsPerSecond: number; date: string }; rows: { card: string; billing: string; gpus: number; hours: number; hoursEstimated: boolean; basis: { kind: string; run?: string; date?: string } }[] };
    const hours = 20000 / ra.stepsPerSecond / 3600;
    assert.equal(quote.like.run, ra.id);
    assert.equal(quote.like.card, 'rtx3090');
    assert.ok(Math.abs(quote.like.hours - hours) < 1e-3, `${quote.like.hours} vs ${hours}`);
    const measured = quote.rows.filter((r) => r.basis.kind === 'measured');
    assert.ok(measured.length > 0);
    for (const r of measured) {
      assert.equal(r.card, 'rtx3090');
      assert.equal(r.basis.run, ra.id);
      assert.match(r.basis.date!, /^\d{4}-\d{2}-\d{2}$/);
      if (r.billing === 'hour') assert.equal(r.hours, Math.round(hours * 100) / 100);
    }
    const est = quote.rows.find((r) => r.card === 'rtx4090' && r.billing === 'hour')!;
    assert.equal(est.basis.kind, 'estimated');
    assert.ok(est.hours < hours, 'a 4090 is estimated faster than the measured 3090');
    assert.ok(quote.rows.every((r) => r.card === 'rtx3090' || r.basis.kind === 'estimated'));
    const qt = runCli(['quote', '--like', 'lr1'], { env });
    assert.match(qt.stdout, new RegExp(`^From run ${ra.id} \\(lr1, \\d{4}-\\d{2}-\\d{2}\\): 20000 steps at [\\d.]+ steps/s on 1× RTX 3090`));
    assert.match(runCli(['quote', '--like', 'lr1'], { env: { ...env, LANG: 'zh_CN.UTF-8' } }).stdout, /^来自运行 r-.*实测（本次运行）/s);

    // errors: the JSON contract and usage
    const none = runCli(['runs', 'compare', 'nope', 'lr1', '--json'], { env });
    assert.equal(none.code, 1);
    assert.equal((JSON.parse(none.stdout) as { error: { code: string } }).error.code, 'run-not-found');
    const qn = runCli(['quote', '--like', 'nope', '--json'], { env });
    assert.equal(qn.code, 1);
    assert.equal((JSON.parse(qn.stdout) as { error: { code: string } }).error.code, 'run-not-found');
    const both = runCli(['quote', '--like', 'lr1', '--card', '4090', '--json'], { env });
    assert.equal(both.code, 2);
    assert.match(both.stdout, /"code": "usage"[\s\S]*leave out --card/);
    assert.equal(runCli(['runs', 'compare', 'lr1'], { env }).code, 2);
  });
});
