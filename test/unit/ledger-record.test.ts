// The ledger's record (core/ledger/record.ts): the schema that guards every line read back,
// the curve thinned to ≤ 200 points keeping its ends and its best point, and the record built
// from what a front end knows at a run's end (speed, best loss, cost in fen).
import assert from 'node:assert/strict';
import { buildRecord, downsample, MAX_CURVE_POINTS, recordProblem, RunRecordSchema, runId, type RunFacts } from '../../src/core/ledger/record';

const T0 = 1_780_000_000;
const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
  kind: 'run',
  name: 'lora-a',
  startedAt: T0,
  endedAt: T0 + 3600,
  steps: 1800,
  total: 1800,
  card: 'rtx3090',
  gpus: 1,
  price: { fenPerHour: 160, source: 'user' },
  lossCurve: Array.from({ length: 1800 }, (_, i) => ({ step: i + 1, loss: 2 / Math.sqrt(i + 1) })),
  end: { kind: 'finished', exitCode: 0, cause: null },
  ...over,
});

describe('ledger record', () => {
  it('builds a valid record: speed from steps over seconds, cost from hours × price, best and final loss, a ≤200-point curve', () => {
    const r = buildRecord(facts(), 'abcd');
    assert.equal(recordProblem(r), null);
    assert.equal(r.id, runId(T0, 'abcd'));
    assert.match(r.id, /^r-\d{8}-\d{6}-abcd$/);
    assert.equal(r.stepsPerSecond, 0.5);
    assert.equal(r.costFen, 160);
    assert.equal(r.finalLoss, 2 / Math.sqrt(1800));
    assert.equal(r.bestLoss, 2 / Math.sqrt(1800));
    assert.equal(r.curve.length, MAX_CURVE_POINTS);
    assert.deepEqual(r.curve[0], [1, 2, null]);
    assert.equal(r.curve.at(-1)![0], 1800);
    // a log's own rate wins over the average; a launch's own cost is kept
    const own = buildRecord(facts({ stepsPerSecond: 0.7, costFen: 999 }), 'abce');
    assert.equal(own.stepsPerSecond, 0.7);
    assert.equal(own.costFen, 999);
    // no price: cost unknown (never 0)
    assert.equal(buildRecord(facts({ price: { fenPerHour: null, source: null } }), 'abcf').costFen, null);
  });

  it('keeps the seconds since the start where the curve has times', () => {
    const r = buildRecord(facts({ lossCurve: [{ step: 10, loss: 1, at: T0 + 60 }, { step: 20, loss: 0.5, at: T0 + 125.4 }] }), 'abcd');
    assert.deepEqual(r.curve, [[10, 1, 60], [20, 0.5, 125]]);
  });

  it('drops NaN/Inf points from the curve (a diverged run) and keeps the last finite loss', () => {
    const r = buildRecord(facts({ lossCurve: [{ step: 1, loss: 3 }, { step: 2, loss: 1 }, { step: 3, loss: NaN }, { step: 4, loss: Infinity }] }), 'abcd');
    assert.deepEqual(r.curve.map((p) => p[1]), [3, 1]);
    assert.equal(r.finalLoss, 1);
    assert.equal(r.bestLoss, 1);
  });

  it('the schema refuses what is not a record, saying where', () => {
    const good = buildRecord(facts(), 'abcd');
    assert.match(recordProblem({ ...good, curve: Array.from({ length: 201 }, (_, i) => [i, 1, null]) })!, /^curve: /);
    assert.match(recordProblem({ ...good, endedAt: good.startedAt - 1 })!, /endedAt/);
    assert.match(recordProblem({ ...good, costFen: 1.5 })!, /^costFen/);
    assert.match(recordProblem({ ...good, id: '../../etc' })!, /^id/);
    assert.match(recordProblem({ ...good, extra: 1 })!, /extra|Unrecognized/);
    assert.match(recordProblem({ ...good, v: 2 })!, /^v/);
    assert.match(recordProblem({ ...good, finalLoss: 'NaN' })!, /^finalLoss/);
    assert.equal(RunRecordSchema.safeParse(JSON.parse(JSON.stringify(good))).success, true, 'a record survives its own JSON');
    assert.throws(() => buildRecord(facts({ gpus: 0 }), 'abcd'), /run record: gpus/);
  });

  it('downsample: at most max points, first, last and the lowest loss kept, order kept', () => {
    const pts = Array.from({ length: 1000 }, (_, i) => ({ step: i, loss: i === 617 ? -5 : 1000 - i }));
    const d = downsample(pts, 200);
    assert.equal(d.length, 200);
    assert.equal(d[0]!.step, 0);
    assert.equal(d.at(-1)!.step, 999);
    assert.ok(d.some((p) => p.step === 617), 'the best point survives');
    for (let i = 1; i < d.length; i++) assert.ok(d[i]!.step > d[i - 1]!.step);
    assert.deepEqual(downsample(pts.slice(0, 5), 200), pts.slice(0, 5), 'short curves are kept whole');
    // evenly spread: no gap much larger than n/max
    const gaps = d.slice(1).map((p, i) => p.step - d[i]!.step);
    assert.ok(Math.max(...gaps) <= 12, String(Math.max(...gaps)));
  });
});
