// The launch's pure decisions (core/task/launch.ts) and the task quote (core/task/quote.ts):
// what the boxes cost so far, whether the budget covers the next step or the projected finish,
// when a smoke test is done, which candidate a recovery moves to, which catalog rows fit a task.
import assert from 'node:assert/strict';
import { builtinCatalog } from '../../src/core/catalog';
import { boundedFigure, boxCostFen, checkBudget, COST_TO_FINISH_CAP_FEN, launchExitCode, LaunchStateSchema, newLaunchState, nextCandidate, smokeReached, spentFen, STEP_RESERVE_SECONDS, stillBillingLeft, withEvent, MAX_EVENTS, type LaunchBox, type LaunchState } from '../../src/core/task/launch';
import { quoteTask } from '../../src/core/task/quote';
import { parseTaskFile, staysInside } from '../../src/core/task/schema';

const box = (o: Partial<LaunchBox> = {}): LaunchBox => ({ candidate: 0, kind: 'ssh', label: 'root@h:22', priceFenPerHour: 360, spot: false, acquiredAt: 1000, ...o });
const state = (o: Partial<LaunchState> = {}): LaunchState => ({ ...newLaunchState({ task: 't', file: '/r/gpu-rent.yaml', taskDigest: 'd', smoke: false, now: 1000 }), ...o });

describe('launch decisions (core/task/launch)', () => {
  it('a box costs its price per hour for the seconds held, to when it was left or now; unknown price is null', () => {
    assert.equal(boxCostFen(box(), 1000 + 3600), 360);
    assert.equal(boxCostFen(box({ leftAt: 1000 + 1800 }), 1000 + 7200), 180);
    assert.equal(boxCostFen(box({ priceFenPerHour: null }), 5000), null);
    const s = state({ box: box({ acquiredAt: 4600 }), boxes: [box({ leftAt: 1000 + 3600, leftBecause: 'reclaimed' })], nodes: [box({ acquiredAt: 4600, priceFenPerHour: 100 })] });
    assert.deepEqual(spentFen(s, 4600 + 3600), { fen: 360 + 360 + 100, unknown: false });
    assert.deepEqual(spentFen(state({ box: box({ priceFenPerHour: null }) }), 9999), { fen: 0, unknown: true });
  });

  it('the budget: no cap passes; spent, the reserve for the next step, the projected finish and an unknown price each stop it', () => {
    const s = state({ box: box() });
    assert.deepEqual(checkBudget(s, undefined, 99999, { burnFenPerHour: 360 }), { ok: true });
    // 10 minutes at ¥3.60/h is 60 fen: a cap of 59 fen cannot cover the next step, 60 can.
    assert.equal(STEP_RESERVE_SECONDS, 600);
    assert.equal(checkBudget(s, 59, 1000, { burnFenPerHour: 360 }).ok, false);
    assert.deepEqual(checkBudget(s, 59, 1000, { burnFenPerHour: 360 }), { ok: false, reason: 'reserve', spentFen: 0, capFen: 59, needFen: 60 });
    assert.equal(checkBudget(s, 60, 1000, { burnFenPerHour: 360 }).ok, true);
    assert.deepEqual(checkBudget(s, 100, 1000 + 1000, { burnFenPerHour: 360 }), { ok: false, reason: 'spent', spentFen: 100, capFen: 100 });
    // While running the ETA decides: 50 spent + 60 to finish passes a cap of 100; 40 to finish does not.
    assert.deepEqual(checkBudget(s, 100, 1500, { burnFenPerHour: 360, costToFinishFen: 60 }), { ok: false, reason: 'projected', spentFen: 50, capFen: 100, needFen: 110 });
    assert.deepEqual(checkBudget(s, 100, 1500, { burnFenPerHour: 360, costToFinishFen: 40 }), { ok: true });
    assert.equal((checkBudget(state({ box: box({ priceFenPerHour: null }) }), 100, 1000, { burnFenPerHour: null }) as { reason: string }).reason, 'noPrice');
    // Before any box: only what was spent counts.
    assert.deepEqual(checkBudget(state(), 100, 1000, { burnFenPerHour: null }), { ok: true });
  });

  it('a smoke test ends at its steps or its seconds, whichever first; a log without steps only at the seconds', () => {
    assert.equal(smokeReached({ steps: 20, seconds: 300 }, { step: 19, runningSeconds: 10 }), null);
    assert.equal(smokeReached({ steps: 20, seconds: 300 }, { step: 20, runningSeconds: 10 }), 'steps');
    assert.equal(smokeReached({ steps: 20, seconds: 300 }, { step: null, runningSeconds: 300 }), 'seconds');
    assert.equal(smokeReached({ steps: 5 }, { step: null, runningSeconds: 1e6 }), null);
  });

  it('a recovery never goes back to a reclaimed or failed box; a new candidate creates again, at most 3 times', () => {
    const kinds = ['existing', 'existing'] as const;
    assert.equal(nextCandidate(state(), kinds), 0);
    assert.equal(nextCandidate(state({ boxes: [box({ leftBecause: 'reclaimed' })] }), kinds), 1);
    assert.equal(nextCandidate(state({ boxes: [box({ leftBecause: 'reclaimed' }), box({ candidate: 1, leftBecause: 'failed' })] }), kinds), null);
    assert.equal(nextCandidate(state({ boxes: [box({ leftBecause: 'ended' })] }), kinds), 0, 'a box left at the end is not lost');
    const made = (n: number) => Array.from({ length: n }, () => box({ created: true, leftBecause: 'reclaimed', leftAt: 2000 }));
    assert.equal(nextCandidate(state({ boxes: made(2) }), ['new']), 0);
    assert.equal(nextCandidate(state({ boxes: made(3) }), ['new']), null);
  });

  it('no new instance is created while one this launch made and left still bills (its platform has not said it stopped), and its spend goes on counting', () => {
    const billing = box({ created: true, leftBecause: 'reclaimed', acquiredAt: 1000 });
    assert.equal(nextCandidate(state({ boxes: [billing] }), ['new']), null);
    assert.equal(nextCandidate(state({ boxes: [billing] }), ['new', 'existing']), 1, 'an existing candidate may still be tried');
    assert.equal(nextCandidate(state({ boxes: [{ ...billing, leftAt: 2000 }] }), ['new']), 0, 'once the platform said it stopped, a new one may be made');
    assert.deepEqual(stillBillingLeft(state({ boxes: [billing, box({ leftAt: 1500 })] })), [billing]);
    // ¥3.60/h: an hour later it has cost 360 fen, not the ¥0.00 of a box dropped at its notice.
    assert.deepEqual(spentFen(state({ boxes: [billing] }), 1000 + 3600), { fen: 360, unknown: false });
  });

  it('the exit status: 0 only when the end state is the one asked for; STILL BILLING never 0, with launch and --resume alike', () => {
    const end = (ok: boolean, stillBilling: boolean) => ({ action: 'power-off', ok, stillBilling, detail: '' });
    assert.equal(launchExitCode({ phase: 'done', outcome: { kind: 'finished', detail: '' }, end: end(true, false) }), 0);
    assert.equal(launchExitCode({ phase: 'done', outcome: { kind: 'finished', detail: '' }, end: end(false, true) }), 4);
    assert.equal(launchExitCode({ phase: 'done', outcome: { kind: 'finished', detail: '' }, end: end(false, false) }), 4);
    assert.equal(launchExitCode({ phase: 'stopped', outcome: { kind: 'budget', detail: '' }, end: end(true, false) }), 3);
    assert.equal(launchExitCode({ phase: 'failed', outcome: { kind: 'diverged', detail: '' }, end: end(true, false) }), 1);
    assert.equal(launchExitCode({ phase: 'failed', outcome: { kind: 'refused', detail: '' } }), 2);
    assert.equal(launchExitCode({ phase: 'failed', outcome: { kind: 'noBox', detail: '' } }), 1);
  });

  it('a cost to finish past the bound is kept as unknown; a state saved with one out of range still reads (the end action can run)', () => {
    assert.equal(boundedFigure(2.8e15, COST_TO_FINISH_CAP_FEN), null);
    assert.equal(boundedFigure(1234, COST_TO_FINISH_CAP_FEN), 1234);
    assert.equal(boundedFigure(Number.NaN, COST_TO_FINISH_CAP_FEN), null);
    const written = { ...state({ phase: 'watch' }), progress: { step: 1, total: 999999999999, etaSeconds: 1e14, costToFinishFen: 2.8e15, loss: null } };
    const r = LaunchStateSchema.safeParse(JSON.parse(JSON.stringify(written)));
    assert.ok(r.success, r.success ? '' : r.error.message);
    assert.equal(r.data.progress?.costToFinishFen, null);
    assert.equal(r.data.progress?.etaSeconds, null);
    assert.equal(r.data.phase, 'watch');
  });

  it('the event log keeps the newest entries; the state round-trips through its schema and refuses what is not one', () => {
    let s = state();
    for (let i = 0; i < MAX_EVENTS + 50; i++) s = withEvent(s, 1000 + i, `e${i}`);
    assert.equal(s.events.length, MAX_EVENTS);
    assert.equal(s.events[0]!.text, 'e50');
    assert.equal(LaunchStateSchema.safeParse(JSON.parse(JSON.stringify(s))).success, true);
    assert.equal(LaunchStateSchema.safeParse({ ...s, phase: 'flying' }).success, false);
    assert.equal(LaunchStateSchema.safeParse({ ...s, extra: 1 }).success, false);
  });
});

describe('the task quote (core/task/quote)', () => {
  const task = (yaml: string) => {
    const r = parseTaskFile(`name: q\nrun: python train.py\n${yaml}`);
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    return r.tasks[0]!;
  };

  it('the cards accepted on every platform allowed, cheapest first, each with its source; the GPU count multiplies', () => {
    const q = quoteTask(builtinCatalog(), task('resources: {cards: [4090, 3090]}\n'));
    assert.ok(q.rows.length >= 2);
    assert.ok(q.rows.every((r) => r.card === 'rtx4090' || r.card === 'rtx3090'));
    assert.ok(q.rows.every((r) => r.mode === 'hour'), 'no spot rows unless spot is allowed');
    for (let i = 1; i < q.rows.length; i++) assert.ok(q.rows[i - 1]!.fenPerHour.min <= q.rows[i]!.fenPerHour.min);
    assert.ok(q.rows.every((r) => r.source.length > 0));
    const two = quoteTask(builtinCatalog(), task('resources: {cards: [4090, 3090], gpus: 2}\n'));
    assert.equal(two.rows[0]!.fenPerHour.min, q.rows[0]!.fenPerHour.min * 2);
  });

  it('the ¥/h cap, the VRAM floor and the platform list cut rows; nothing left says why', () => {
    const all = quoteTask(builtinCatalog(), task('resources: {cards: [4090, 3090]}\n')).rows;
    const cap = all[0]!.fenPerHour.min;
    const capped = quoteTask(builtinCatalog(), task(`resources: {cards: [4090, 3090], max_yuan_per_hour: ${cap / 100}}\n`));
    assert.ok(capped.rows.length >= 1 && capped.rows.every((r) => r.fenPerHour.min <= cap));
    assert.equal(quoteTask(builtinCatalog(), task('resources: {cards: [4090], max_yuan_per_hour: 0.01}\n')).empty, 'overCap');
    assert.equal(quoteTask(builtinCatalog(), task('resources: {cards: [3090], min_vram_gb: 40}\n')).empty, 'noCard');
    const spot = quoteTask(builtinCatalog(), task('resources: {cards: [4090, 3090], spot: true}\n'));
    assert.ok(spot.rows.length >= all.length);
  });
});

describe('task file paths stay inside the task folder', () => {
  it('relative paths inside pass; absolute, ~, drive letters and .. out of it are refused with the field named', () => {
    for (const p of ['.', './ckpt', 'a/b/../c', 'data']) assert.equal(staysInside(p), true, p);
    for (const p of ['/etc', '~/.ssh', '..', 'a/../../b', 'C:\\\\x', '\\\\\\\\server\\\\share']) assert.equal(staysInside(p), false, p);
    const r = parseTaskFile('name: t\nrun: x\ncheckpoints: {remote: ckpt, local: ~/.ssh}\n');
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.errors.some((e) => e.field === 'checkpoints.local' && e.line === 3 && /inside the task file's folder/.test(e.message)));
  });
});
