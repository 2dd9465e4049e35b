// Progress from training logs: each library's excerpt (test/fixtures/training-logs, written in
// the libraries' printed formats) gives the step, total, rate and loss a user would read off it;
// \r redraws and chunks split anywhere give the same answer; ETA and cost with a fake clock.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { costOfSeconds, detectCause, estimateFinish, isStalled, lastLines, parseInterval, ProgressTracker, progressOf, readLine } from '../../src/core/progress';

const DIR = resolve(__dirname, '..', 'fixtures', 'training-logs');
const log = (f: string) => readFileSync(join(DIR, f), 'utf8');

describe('progress parsers on the library excerpts', () => {
  const cases: { file: string; step: number; total: number; rate?: number; loss?: number; source: string; extra?: (p: ReturnType<typeof progressOf>) => void }[] = [
    { file: 'tqdm-s-per-it.log', step: 450, total: 1000, rate: 1 / 1.61, source: 'tqdm' },
    { file: 'tqdm-it-per-s.log', step: 1200, total: 5000, rate: 3.66, source: 'tqdm' },
    { file: 'hf-trainer.log', step: 450, total: 1500, rate: 1 / 5.2, loss: 0.9821, source: 'tqdm', extra: (p) => { assert.equal(p.epoch, 0.9); assert.equal(p.epochTotal, 3); assert.equal(p.scalars.grad_norm, 0.4402); assert.equal(p.lossCurve.length, 3); } },
    { file: 'llamafactory.log', step: 50, total: 186, rate: 1 / 9.84, loss: 1.2207, source: 'tqdm', extra: (p) => assert.equal(p.scalars.num_input_tokens_seen, 307200) },
    { file: 'swift.log', step: 10, total: 1500, loss: 1.60218, source: 'swift', extra: (p) => { assert.equal(p.scalars.acc, 0.62455); assert.equal(p.scalars['memory(GiB)'], 18.52); assert.ok(Math.abs(p.rate! - 0.49991) < 1e-9); } },
    { file: 'lightning.log', step: 450, total: 1000, rate: 3.66, loss: 0.512, source: 'lightning', extra: (p) => { assert.equal(p.epoch, 3); assert.equal(p.scope, 'epoch'); } },
    { file: 'megatron-deepspeed.log', step: 110, total: 1500, rate: 1 / 0.311, loss: 5.0012, source: 'deepspeed' },
    { file: 'accelerate.log', step: 115, total: 230, rate: 4.4, source: 'tqdm', extra: (p) => assert.equal(p.scalars.f1, 0.8384615384615385) },
    { file: 'generic-epoch-step.log', step: 600, total: 5000, loss: 0.441, source: 'generic' },
    { file: 'generic-step.log', step: 450, total: 1500, loss: 0.479, source: 'generic' },
  ];
  for (const c of cases) {
    it(`${c.file}: step ${c.step}/${c.total}`, () => {
      const p = progressOf(log(c.file), 1000);
      assert.equal(p.step, c.step);
      assert.equal(p.total, c.total);
      assert.equal(p.source, c.source);
      if (c.rate !== undefined) assert.ok(p.rate !== null && Math.abs(p.rate - c.rate) < 1e-6, `rate ${p.rate}`);
      if (c.loss !== undefined) assert.equal(p.loss, c.loss);
      assert.equal(p.lastUpdateAt, 1000);
      c.extra?.(p);
    });
  }

  it('DeepSpeed engine lines: the step and lr; the rate measured from the steps over time', () => {
    const t = new ProgressTracker();
    const lines = log('deepspeed.log').split('\n');
    t.feed(lines.slice(0, 4).join('\n') + '\n', 1000);
    assert.equal(t.progress.step, 10);
    assert.equal(t.progress.scalars.lr, 9.5e-5);
    t.feed(lines.slice(4).join('\n'), 1000 + 308);
    assert.equal(t.progress.step, 20);
    assert.ok(Math.abs(t.progress.rate! - 10 / 308) < 1e-9);
  });

  it('the HF evaluation bar (smaller total) and dataset/shard bars never become the run', () => {
    const p = progressOf(log('llamafactory.log').split('***** Running training')[0]!, 1);
    assert.equal(p.step, null, 'only preparation bars before the header');
    const hf = new ProgressTracker();
    const text = log('hf-trainer.log');
    const cut = text.indexOf('{\'eval_loss');
    hf.feed(text.slice(0, cut), 5);
    assert.equal(hf.progress.step, 20);
    assert.equal(hf.progress.total, 1500);
  });

  it('chunks split anywhere (mid-line, mid-\\r) give the same progress as the whole text', () => {
    for (const f of ['hf-trainer.log', 'swift.log', 'lightning.log', 'tqdm-s-per-it.log', 'megatron-deepspeed.log']) {
      const text = log(f);
      const whole = progressOf(text, 7);
      for (const size of [1, 3, 17, 64]) {
        const t = new ProgressTracker();
        for (let i = 0; i < text.length; i += size) t.feed(text.slice(i, i + size), 7);
        const p = t.progress;
        assert.deepEqual({ step: p.step, total: p.total, rate: p.rate, loss: p.loss }, { step: whole.step, total: whole.total, rate: whole.rate, loss: whole.loss }, `${f} in ${size}-char chunks`);
      }
    }
  });

  it('tqdm intervals and counts', () => {
    assert.equal(parseInterval('12:03'), 723);
    assert.equal(parseInterval('1:31:00'), 5460);
    assert.equal(parseInterval('2d, 1:00:00'), 2 * 86400 + 3600);
    assert.equal(readLine(' 45%|████▌     | 1.50k/3.00k [12:03<14:44,  1.61s/it]')?.step, 1500);
    assert.equal(readLine('Downloading shards: 50%|█████     | 1/2 [00:10<00:10, 10.0s/it]'), null);
    assert.equal(readLine('model.safetensors:  45%|████▌     | 2.25G/5.00G [00:30<00:36, 75.1MB/s]'), null);
  });
});

describe('why a run ended', () => {
  it('recognises each cause on its excerpt, with the line', () => {
    assert.equal(detectCause(log('cuda-oom.log'), 1)?.kind, 'cudaOom');
    assert.equal(detectCause(log('no-kernel-image.log'), 1)?.kind, 'noKernelImage');
    assert.equal(detectCause(log('nccl.log'), 1)?.kind, 'nccl');
    assert.equal(detectCause(log('killed.log'), 137)?.kind, 'killed');
    const disk = detectCause(log('disk-full.log'), 1);
    assert.equal(disk?.kind, 'diskFull');
    assert.match((disk as { line: string }).line, /No space left on device/);
    assert.equal(detectCause('RuntimeError: Found no NVIDIA driver on your system.', 1)?.kind, 'cudaInit');
  });
  it('exit 0 has no cause; 137 alone is Killed unless gpu-rent stop ended it', () => {
    assert.equal(detectCause(log('cuda-oom.log'), 0), null);
    assert.equal(detectCause('step 3/10', 137)?.kind, 'killed');
    assert.equal(detectCause('step 3/10', 137, { stopped: true }), null);
    assert.equal(detectCause('step 3/10', 1), null);
  });
  it('last lines collapse tqdm redraws to the final one', () => {
    const l = lastLines(log('tqdm-s-per-it.log'), 3);
    assert.equal(l.length, 1);
    assert.match(l[0]!, /450\/1000/);
  });
});

describe('ETA and cost to finish (fake clock)', () => {
  const base = progressOf(log('hf-trainer.log'), 10_000); // step 450/1500 at 5.2 s/it
  const price = { computeFenPerHour: 198, storageFenPerDay: 50 * 2 }; // ¥1.98/h, 50 GB at 2 fen/GB/day

  it('remaining steps over the rate, priced with storage', () => {
    const f = estimateFinish(base, price, { boxNow: 10_000, localNow: 50_000, alive: true });
    const eta = (1500 - 450) * 5.2;
    assert.equal(f.etaSeconds, Math.round(eta));
    assert.equal(f.finishAt, Math.round(50_000 + eta));
    assert.equal(f.costToFinishFen, Math.round((198 * eta) / 3600 + (100 * eta) / 86400));
    assert.equal(f.stalled, false);
  });
  it('time since the last reading counts down; a quiet log past the threshold is stalled (and keeps its ETA)', () => {
    const later = estimateFinish(base, price, { boxNow: 10_000 + 300, alive: true });
    assert.equal(later.etaSeconds, Math.round(1050 * 5.2 - 300));
    const stuck = estimateFinish(base, price, { boxNow: 10_000 + 3600, alive: true });
    assert.equal(stuck.stalled, true);
    assert.equal(stuck.etaSeconds, Math.round(1050 * 5.2));
    assert.equal(estimateFinish(base, price, { boxNow: 10_000 + 3600, alive: false }).stalled, false, 'a dead process is ended, not stalled');
  });
  it('a slow step raises the stall threshold to five steps', () => {
    assert.equal(isStalled({ rate: 1 / 300, lastUpdateAt: 0, lastOutputAt: 0 }, 1400, true), false);
    assert.equal(isStalled({ rate: 1 / 300, lastUpdateAt: 0, lastOutputAt: 0 }, 1501, true), true);
  });
  it('spot adds the expected rework from the core spot model', () => {
    const plain = costOfSeconds(7200, { computeFenPerHour: 100, storageFenPerDay: 0 });
    const spot = costOfSeconds(7200, { computeFenPerHour: 100, storageFenPerDay: 0, spot: { syncIntervalSeconds: 1800 } });
    assert.equal(plain.fen, 200);
    // 0.1 reclaims/h × 2 h × 900 s lost each at ¥1/h = 5 fen
    assert.equal(spot.reworkFen, 5);
    assert.equal(spot.fen, 205);
  });
  it('unknown total or rate: no ETA, no cost', () => {
    const p = progressOf(log('deepspeed.log'), 1);
    const f = estimateFinish(p, price, { boxNow: 1, alive: true });
    assert.equal(f.etaSeconds, null);
    assert.equal(f.costToFinishFen, null);
  });
});

// Synthetic lines (written here, not captured) for the cases the real excerpts do not show; the real
// ones are in progress-real.test.ts.
describe('formats on synthetic lines', () => {
  it('JSON lines with NaN / Infinity (Python json.dumps writes them; JSON.parse refuses them) are read tolerantly', () => {
    const t = new ProgressTracker();
    t.feed('{"current_steps": 5, "total_steps": 93, "loss": 5.7013, "epoch": 0.16}\n', 1);
    assert.equal(t.progress.loss, 5.7013);
    t.feed('{"current_steps": 10, "total_steps": 93, "loss": NaN, "epoch": 0.33}\n', 2);
    assert.deepEqual([t.progress.step, t.progress.total, t.progress.diverged?.value, t.progress.diverged?.lastFiniteLoss], [10, 93, 'nan', 5.7013]);
    t.feed('{"current_steps": 15, "total_steps": 93, "loss": Infinity, "epoch": 0.49}\n', 3);
    assert.deepEqual([t.progress.diverged?.value, t.progress.diverged?.readings], ['inf', 2]);
    t.feed('{"current_steps": 20, "total_steps": 93, "loss": 0.5741, "epoch": 0.66}\n', 4);
    assert.equal(t.progress.diverged, null);
    assert.equal(t.progress.loss, 0.5741);
  });
  it('a YOLO epoch row at 100 % of its batches is one epoch of the run, not the run; its NaN losses diverge', () => {
    const header = '      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size\n';
    const p = progressOf(header + '      3/100     10.2G      1.234      0.567      1.089         12        640: 100%|██████████| 118/118 [01:02<00:00,  1.89it/s]\n', 1);
    assert.deepEqual([p.step, p.total, p.epoch, p.epochTotal, p.loss, p.scalars.cls_loss], [3 * 118, 100 * 118, 3, 100, 1.234, 0.567]);
    const q = progressOf(header + '      4/100     10.2G        nan        nan        nan         12        640:  38%|███▊      | 45/118 [00:24<00:39,  1.86it/s]\n', 1);
    assert.deepEqual([q.step, q.total, q.diverged?.value], [3 * 118 + 45, 100 * 118, 'nan']);
  });
  it('several redraws joined on one line: the last counts; a dict or a step line printed after the bar is read too', () => {
    const p = progressOf(' 10%|█         | 10/100 [00:10<01:30,  1.00it/s] 11%|█         | 11/100 [00:11<01:29,  1.00it/s]{\'loss\': 2.5, \'grad_norm\': 1.1, \'learning_rate\': 1e-05, \'epoch\': 0.11}\n', 1);
    assert.deepEqual([p.step, p.total, p.loss, p.epoch], [11, 100, 2.5, 0.11]);
  });
  it('no total is invented: step lines without one leave the total unknown', () => {
    const p = progressOf('step: 14  loss:  3.24405  grad_norm:  0.8319\niter 15: loss 3.1, time 500.00ms\n', 1);
    assert.deepEqual([p.step, p.total, p.loss], [15, null, 3.1]);
    assert.equal(readLine('Dumping profiler traces at step 200'), null, 'a step without a loss is not progress');
    const q = progressOf('Epoch 2/10, step 300, loss: 0.25\n', 1);
    assert.deepEqual([q.step, q.total, q.epoch, q.epochTotal, q.loss], [300, null, 2, 10, 0.25]);
    assert.equal(readLine('| epoch 010 | valid on \'valid\' subset  1000 / 1311 loss=1.60'), null, 'fairseq validation is not the run');
  });
  it('Megatron: the fp16 loss scale is not a loss, the lm loss is', () => {
    const p = progressOf(' iteration       10/ 1000000 | consumed samples:           40 | loss scale: 8388608.0 | number of skipped iterations:  10 |\n', 1);
    assert.deepEqual([p.step, p.total, p.loss, p.diverged], [10, 1000000, null, null]);
    const q = progressOf(' iteration       20/ 1000000 | lm loss: nan | loss scale: 32768.0 |\n', 1);
    assert.equal(q.diverged?.value, 'nan');
  });
});

describe('ms-swift dicts with every value quoted (synthetic lines in the newer swift format)', () => {
  it('reads the step, total, epoch, loss and s/it rate, and a quoted nan loss diverges', () => {
    const t = new ProgressTracker();
    t.feed("Train:   2%|▎         | 1/40 [01:08<44:41, 68.75s/it]{'loss': '0.3605', 'grad_norm': '1.021', 'learning_rate': '5e-05', 'epoch': '0.129', 'global_step/max_steps': '1/40', 'elapsed_time': '1m 9s', 'remaining_time': '44m 41s', 'train_speed(s/it)': '68.75'}\n", 1);
    const p = t.progress;
    assert.deepEqual([p.step, p.total, p.epoch, p.loss, p.scalars.grad_norm], [1, 40, 0.129, 0.3605, 1.021]);
    assert.ok(Math.abs(p.rate! - 1 / 68.75) < 1e-9);
    t.feed("{'loss': 'nan', 'epoch': '0.26', 'global_step/max_steps': '2/40'}\n", 2);
    assert.equal(t.progress.diverged?.value, 'nan');
  });
});
