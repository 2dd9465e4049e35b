// Runs compared (core/ledger/compare.ts) and the job a run did, priced again (quote --like's
// input): the measured card gets exactly the run's hours, other cards the catalog's scaling.
import assert from 'node:assert/strict';
import { cardById, cardSpecs } from '../../src/core/cards';
import { quoteCatalog } from '../../src/core/cost';
import { builtinCatalog } from '../../src/core/catalog';
import { calculatorRuns, compareRuns, curveOf, findRun, likeJob } from '../../src/core/ledger/compare';
import { jobInputFor } from '../../src/webview/job-input';
import { DEFAULT_INPUTS, parseHostMessage } from '../../src/webview/protocol';
import { buildRecord, type RunFacts } from '../../src/core/ledger/record';
import { multiGpuSpeedup, relativeSpeed } from '../../src/core/perf';

const T0 = 1_780_000_000;
const run = (name: string, hex: string, over: Partial<RunFacts> = {}) =>
  buildRecord({ kind: 'run', name, startedAt: T0, endedAt: T0 + 7200, steps: 3600, total: 3600, card: 'rtx3090', gpus: 1, price: { fenPerHour: 150, source: 'user' }, lossCurve: [{ step: 0, loss: 3 }, { step: 1800, loss: 1.5 }, { step: 3600, loss: 1 }], end: { kind: 'finished', exitCode: 0, cause: null }, ...over }, hex);

describe('ledger compare and quote --like', () => {
  const a = run('a', 'aaaa');
  const b = run('b', 'bbbb', { card: 'rtx4090', startedAt: T0 + 10, endedAt: T0 + 10 + 3600, price: { fenPerHour: 200, source: 'catalog' }, lossCurve: [{ step: 0, loss: 3 }, { step: 3600, loss: 0.9 }] });

  it('finds a run by id, unique prefix or unique name; says when none or several', () => {
    assert.equal((findRun([a, b], a.id) as { run: unknown }).run, a);
    assert.equal((findRun([a, b], 'b') as { run: unknown }).run, b);
    assert.deepEqual(findRun([a, b], 'r-2026'), { error: 'ambiguous', candidates: [a.id, b.id] });
    assert.deepEqual(findRun([a, b], 'zzz'), { error: 'none', candidates: [] });
  });

  it('curves: loss against step, hours (step ÷ speed) and yuan (hours × the run\'s cost rate)', () => {
    assert.deepEqual(curveOf(a), [
      { step: 0, loss: 3, hours: 0, yuan: 0 },
      { step: 1800, loss: 1.5, hours: 1, yuan: 1.5 },
      { step: 3600, loss: 1, hours: 2, yuan: 3 },
    ]);
    const c = compareRuns([a, b]);
    assert.equal(c.runs[1]!.curve.at(-1)!.yuan, 2);
    assert.deepEqual(c.best, { cost: b.id, speed: b.id, duration: b.id, finalLoss: b.id });
    assert.equal(c.runs[0]!.costFen, 300);
    assert.equal(c.runs[0]!.stepsPerSecond, 0.5);
  });

  it('likeJob: the run\'s card at the measured speed gets exactly its hours; other cards scale by relative speed', () => {
    const job = likeJob(a, cardSpecs);
    assert.ok(!('problem' in job));
    assert.equal(job.wallHours, 2);
    const q = quoteCatalog(builtinCatalog(), { ...job.input, storageGb: 0 });
    const on3090 = q.rows.filter((r) => r.card === 'rtx3090' && r.mode === 'hour');
    assert.ok(on3090.length > 0);
    for (const r of on3090) {
      assert.equal(r.wallHours, 2);
      assert.equal(r.hoursEstimated, false);
    }
    const on4090 = q.rows.find((r) => r.card === 'rtx4090' && r.mode === 'hour')!;
    assert.equal(on4090.hoursEstimated, true);
    assert.ok(Math.abs(on4090.wallHours - 2 / relativeSpeed(cardById('rtx3090')!, cardById('rtx4090')!)!) < 1e-9);
  });

  it('likeJob on 2 GPUs: the same card × 2 gets the measured wall hours back', () => {
    const two = run('two', 'cccc', { gpus: 2 });
    const job = likeJob(two, cardSpecs);
    assert.ok(!('problem' in job));
    assert.equal(job.input.gpuHours, 2 * multiGpuSpeedup(2));
    const q = quoteCatalog(builtinCatalog(), { ...job.input, storageGb: 0 });
    const row = q.rows.find((r) => r.card === 'rtx3090' && r.gpus === 2 && r.mode === 'hour')!;
    assert.ok(Math.abs(row.wallHours - 2) < 1e-9);
  });

  it('likeJob says why a run cannot be priced', () => {
    assert.deepEqual(likeJob(run('x', 'dddd', { card: null }), cardSpecs), { problem: 'no-card' });
    assert.deepEqual(likeJob(run('x', 'dddd', { card: 'Mystery GPU 9000' }), cardSpecs), { problem: 'unknown-card' });
    assert.deepEqual(likeJob(run('x', 'dddd', { steps: null, total: null, lossCurve: [] }), cardSpecs), { problem: 'no-speed' });
  });

  it("the calculator's From my runs: newest first, only runs it can price, as steps × seconds per step that give back the run's GPU hours; the run's card measured, the others estimated", () => {
    const noCard = run('c', 'cccc', { card: null, endedAt: T0 + 9000 });
    const list = calculatorRuns([a, b, noCard, a], cardSpecs);
    assert.deepEqual(list.map((r) => r.name), ['a', 'b'], 'a ended after b; c has no card; a once');
    const ra = list[0]!;
    assert.equal(ra.card, 'rtx3090');
    assert.equal(ra.steps, 3600);
    assert.ok(Math.abs((ra.steps * ra.secondsPerStep) / 3600 - 2) < 1e-9, 'steps × s/step = the 2 measured hours');
    assert.equal(calculatorRuns([a, b], cardSpecs, 1).length, 1);
    // What the host sends passes the page's schema.
    assert.ok(parseHostMessage({ type: 'myRuns', runs: list }));
    assert.equal(parseHostMessage({ type: 'myRuns', runs: [{ ...ra, id: 'not-an-id' }] }), undefined);
    // The page's job with the run picked: the measured card's row has the run's hours, other cards are marked estimated.
    const inputs = { ...DEFAULT_INPUTS, card: ra.card, gpus: ra.gpus, workMode: 'steps' as const, steps: ra.steps, secondsPerStep: ra.secondsPerStep, measured: { run: ra.name, at: ra.endedAt, card: ra.card, gpuHours: ra.gpuHours } };
    const rows = quoteCatalog(builtinCatalog(), { ...jobInputFor(inputs), cards: ['rtx3090', 'rtx4090'] }).rows;
    const on3090 = rows.find((r) => r.card === 'rtx3090' && r.mode === 'hour')!;
    const on4090 = rows.find((r) => r.card === 'rtx4090' && r.mode === 'hour')!;
    assert.ok(Math.abs(on3090.wallHours - 2) < 1e-6, String(on3090.wallHours));
    assert.ok(!on3090.notes.includes('hoursEstimated'));
    assert.ok(on4090.notes.includes('hoursEstimated'));
    // The 4090 picked in the form (its fields rescaled): still the run's job, measured on the 3090, so the 4090's hours are estimated.
    const picked = quoteCatalog(builtinCatalog(), jobInputFor({ ...inputs, card: 'rtx4090', secondsPerStep: ra.secondsPerStep / 2 })).rows.find((r) => r.mode === 'hour')!;
    assert.ok(picked.notes.includes('hoursEstimated'));
    assert.ok(Math.abs(picked.wallHours - on4090.wallHours) < 1e-9);
  });
});
