// Garbage in the log never throws and never yields NaN: random strings, bytes, spliced
// excerpts and absurd numbers give a progress (maybe empty), in bounded memory.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { detectCause, estimateFinish, lastLines, ProgressTracker, readLine } from '../../src/core/progress';

const DIR = resolve(__dirname, '..', 'fixtures', 'training-logs');
const TEXTS = readdirSync(DIR).filter((f) => f.endsWith('.log')).map((f) => readFileSync(join(DIR, f), 'utf8'));

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
