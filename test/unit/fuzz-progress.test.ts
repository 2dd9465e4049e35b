// Garbage in the log never throws and never yields NaN: random strings, bytes, spliced
// excerpts and absurd numbers give a progress (maybe empty), in bounded memory.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { detectCause, estimateFinish, lastLines, ProgressTracker, readLine } from '../../src/core/progress';

const DIR = resolve(__dirname, '..', 'fixtures', 'training-logs');
const REAL = join(DIR, 'real', 'progress');
const TEXTS = [
  ...readdirSync(DIR).filter((f) => f.endsWith('.log')).map((f) => readFileSync(join(DIR, f), 'utf8')),
  ...readdirSync(REAL).filter((f) => f.endsWith('.log')).map((f) => readFileSync(join(REAL, f), 'utf8')),
  ...['aside', 'dev', 'fresh', 'fresh2', 'fresh3', 'fresh4'].flatMap((sub) => readdirSync(join(DIR, 'heldout5', sub)).filter((f) => f.endsWith('.log')).map((f) => readFileSync(join(DIR, 'heldout5', sub, f), 'utf8'))),
];

// Where each format's pattern starts (formats.ts, lines.ts): every one gets long runs after it.
const FORMAT_KEYWORDS = [
  '{"', '{"current_steps": ', '{"loss": NaN, "global_step/max_steps": "', '{"mode": "train", "iter": ', "{'Step': ", '}',
  'Epoch(train)  [', 'Epoch(train) [1][', 'Iter(train) [', 'Epoch [1][', 'Iter [', 'Epoch: [0]  [', 'Epoch: [0]  [1/',
  ' iteration ', ' iteration      1/', ' iteration 1/ 2 |', '| epoch 001  ', '| epoch 001  1 / ', '1/2 (epoch ', '1/2 (epoch 1.5), train_loss = ',
  'iter 1: loss ', 'Iter 1: Train loss ', 'step 1 - loss ', '[ 1/2 ', '[ 1/2 00:01 < ', ' it/s', ', Epoch 0.1/',
  'epoch is incremented. current_epoch: 1, epoch: ', 'Starting training for ', 'Total steps = ', 'step: 1  loss: ', 'Step 1 loss=', 'Epoch: 0, step: ',
  // The general reader (general.ts): progress words, counters, loss words in any spelling, escaped bars.
  'loss ', 'Loss: ', 'total loss is ', 'loss train: ', '1.5 loss', 'iter: ', 'Iteration ', 'Batch[', '1 updates', 'progress: ', 'Epoch: [1/2][', 'Epoch 4 ', ' of ',
  'val_loss: ', ' ce ', '| Iteration | Loss |', '| 1 | 2.5 | ', 'iter:  20,', '1/2 - 1s - loss: ', ' 1/2 [=', '10%\\|', '1/2 [====', 'Epoch[1] Batch [', '1.5s/it', '7.0it/s',
  'Epoch    GPU_mem   box_loss', '      1/10      1.2G ', '      1/10      1.2G      nan ', '%', ' 93% ', ' 93% 1/', '1|2|Loss: ', ']', 'eta: ', 'time: ',
  // fresh5's formats: mmcv's `max: N epochs`, CLU's `] [500] k=v`, HTML-escaped pastes, tables without outer pipes and CSV,
  // an evaluation banner, epoch-only lines, a value before a qualified label, quoted keys, a throughput.
  'max: ', '] [1] a=', '&lt;', '&', 'Step | Training Loss', '1 | 2', 'a,global_step,train_loss', '1,2,', '***** Eval results *****', '*** ', '==> Finished Epoch ', 'epoch:  ',
  '21423: 1.2, 1.5 avg loss', "'loss': '", '1 samples/sec', 'Batch [1] Speed: ',
];
const FORMAT_RUNS = [' ', '\t', '0', '9', ':', '[', ']', '.', '/', '=', '|', '-', ',', '%', '{', '}', '"', "'", 'a', 'e', '%|', '1/2 ', 'loss: 1 ', '] ', '| a: 1 '];

function sane(t: ProgressTracker): void {
  const p = t.progress;
  for (const v of [p.step, p.total, p.rate, p.epoch, p.loss]) if (v !== null) assert.ok(Number.isFinite(v), `non-finite ${v}`);
  for (const v of Object.values(p.scalars)) assert.ok(Number.isFinite(v));
  const f = estimateFinish(p, { computeFenPerHour: 200, storageFenPerDay: 10, spot: { syncIntervalSeconds: 600 } }, { boxNow: 2e9, alive: true });
  for (const v of [f.etaSeconds, f.costToFinishFen, f.finishAt]) if (v !== null) assert.ok(Number.isFinite(v) && v >= 0);
}

describe('fuzzing the progress parsers', () => {
  it('random text, bytes and splices of the excerpts never throw', () => {
    const junk = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a).toString('latin1')),
      fc.tuple(fc.constantFrom(...TEXTS), fc.nat(), fc.nat(), fc.string({ maxLength: 40 })).map(([t, a, b, s]) => t.slice(0, a % (t.length + 1)) + s + t.slice(b % (t.length + 1))),
      fc.tuple(fc.integer(), fc.integer(), fc.double()).map(([a, b, c]) => ` 45%|███| ${a}/${b} [12:03<14:44, ${c}s/it, loss=${c}]\r{'loss': ${c}, 'global_step/max_steps': '${a}/${b}'}\nsteps: ${a} loss: ${c} iter time (s): ${c}\n`),
      fc.tuple(fc.integer(), fc.integer(), fc.double(), fc.constantFrom('NaN', 'Infinity', '-Infinity', 'nan', '1e309')).map(
        ([a, b, c, n]) =>
          `{"current_steps": ${a}, "total_steps": ${b}, "loss": ${n}, "epoch": ${c}}\n      ${a}/${b}      1.2G      ${n}      ${c}         3        640: 100%|█| ${a}/${b} [00:01<00:00,  1.0it/s]\n` +
          `Epoch(train)  [${a}][${a}/${b}]  lr: ${c}  eta: 0:01:02  time: ${c}  loss: ${n}\n iteration ${a}/ ${b} | lm loss: ${n} | loss scale: ${c} |\niter ${a}: loss ${n}, time ${c}ms\n[ ${a}/${b} 00:01 < 00:02, ${c} it/s, Epoch ${c}/${b}]\n`,
      ),
    );
    fc.assert(
      fc.property(fc.array(junk, { maxLength: 8 }), (chunks) => {
        const t = new ProgressTracker();
        let now = 0;
        for (const c of chunks) {
          t.feed(c, (now += 7));
          readLine(c);
        }
        sane(t);
        detectCause(chunks.join(''), 1);
        lastLines(chunks.join(''));
      }),
      { numRuns: 1500 },
    );
  });
  it(`every format's pattern is linear: ${FORMAT_KEYWORDS.length * FORMAT_RUNS.length * 2} lines of 16 KB runs after each keyword, and 4x the length costs about 4x the time`, function () {
    this.timeout(120_000);
    const time = (length: number): number => {
      const t0 = process.hrtime.bigint();
      for (const kw of FORMAT_KEYWORDS) {
        for (const c of FORMAT_RUNS) {
          const run = c.repeat(Math.ceil(length / c.length)).slice(0, length);
          for (const line of [kw + run + 'x', kw + run + kw + '1/2 loss: nan x']) {
            readLine(line);
            const t = new ProgressTracker();
            t.feed(line + '\n', 1);
          }
        }
      }
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    time(1000); // warm up the JIT
    const short = Math.min(time(4000), time(4000));
    const long = Math.min(time(16000), time(16000));
    // Linear: ~4x. A quadratic pattern makes it ~16x, a cubic one 64x.
    assert.ok(long / Math.max(short, 1) < 9, `16 KB lines took ${long.toFixed(0)} ms, 4 KB lines ${short.toFixed(0)} ms`);
    assert.ok(long < 30_000, `${long.toFixed(0)} ms`);
  });
  it('a log with no line ends, 5 MB long, keeps memory bounded and answers fast', () => {
    const t = new ProgressTracker();
    const bar = ' 45%|████▌     | 450/1000 [12:03<14:44,  1.61s/it]';
    const t0 = Date.now();
    for (let i = 0; i < 100; i++) t.feed('x'.repeat(50_000), i);
    t.feed('\r' + bar, 101);
    assert.equal(t.progress.step, 450);
    assert.ok(Date.now() - t0 < 2000);
    assert.ok(t.progress.lossCurve.length <= 2000);
  });
});
