import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  accruedFen,
  beijingDayStart,
  beijingMonthKey,
  beijingMonthStart,
  beijingNextMonthStart,
  burnRateFenPerHour,
  repriceCurrent,
  summarizeSpend,
  switchState,
  type Pricing,
  type StateInterval,
} from '../../src/core/spend';

// Prices from the field report: AutoDL 3090 ¥1.98/h, 4090 ¥3.6/h, no-GPU mode ¥0.1/h, data disk ¥0.5/GB/day.
const autodl3090: Pricing = { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 24, spotRate: 158 };
const noDisk: Pricing = { ...autodl3090, dataDiskGb: 0 };
const H = 3600;
const D = 86400;
// 2026-11-10 00:00 Beijing = 2026-11-09 16:00 UTC.
const T0 = Date.UTC(2026, 10, 9, 16) / 1000;

function step(ivs: StateInterval[], state: StateInterval['state'], pricing: Pricing, now: number): StateInterval[] {
  const r = switchState(ivs, state, pricing, now);
  assert.ok(r.ok, `switch to ${state} refused: ${JSON.stringify(!r.ok && r.error)}`);
  return r.intervals;
}

describe('spend accounting', () => {
  it('bills the GPU rate while running: 15 h of a 3090 at ¥1.98/h is ¥29.70', () => {
    const ivs = step([], 'running', noDisk, T0);
    assert.equal(accruedFen(ivs, T0 + 15 * H), 2970);
    assert.equal(burnRateFenPerHour(ivs), 198);
  });

  it('a later price change does not rewrite history', () => {
    let ivs = step([], 'running', noDisk, T0);
    ivs = step(ivs, 'stopped', noDisk, T0 + 10 * H); // 10 h at ¥1.98
    const before = accruedFen(ivs, T0 + 11 * H);
    const dearer: Pricing = { ...noDisk, hourlyRate: 360 };
    ivs = repriceCurrent(ivs, dearer, T0 + 11 * H);
    ivs = step(ivs, 'running', dearer, T0 + 12 * H); // 2 h at ¥3.60
    assert.equal(accruedFen(ivs, T0 + 11 * H), before);
    assert.equal(accruedFen(ivs, T0 + 14 * H), 1980 + 720);
  });

  it('repricing a running instance splits the interval at the change', () => {
    let ivs = step([], 'running', noDisk, T0);
    ivs = repriceCurrent(ivs, { ...noDisk, hourlyRate: 360 }, T0 + H);
    assert.equal(ivs.length, 2);
    assert.equal(ivs[0]!.to, T0 + H);
    assert.equal(accruedFen(ivs, T0 + 2 * H), 198 + 360);
    // unchanged prices add no interval
    assert.equal(repriceCurrent(ivs, { ...noDisk, hourlyRate: 360 }, T0 + 3 * H).length, 2);
  });

  it('storage bills while stopped and in no-GPU mode; a released instance costs nothing more', () => {
    // 24 GB at ¥0.5/GB/day is ¥12/day: the report's own figure.
    let ivs = step([], 'stopped', autodl3090, T0);
    assert.equal(accruedFen(ivs, T0 + D), 1200);
    ivs = step(ivs, 'noGpu', autodl3090, T0 + D);
    assert.equal(accruedFen(ivs, T0 + 2 * D), 1200 + 1200 + 240); // + 24 h × ¥0.1
    ivs = step(ivs, 'released', autodl3090, T0 + 2 * D);
    assert.equal(accruedFen(ivs, T0 + 30 * D), 2640);
    assert.equal(burnRateFenPerHour(ivs), 0);
    const again = switchState(ivs, 'running', autodl3090, T0 + 31 * D);
    assert.deepEqual(again.ok ? null : again.error, { kind: 'alreadyReleased' });
  });

  it('spot bills the spot rate; a package bills whatever the state until released', () => {
    const spot = step([], 'spot', noDisk, T0);
    assert.equal(accruedFen(spot, T0 + 10 * H), 1580);
    const weekly: Pricing = { ...noDisk, billingMode: 'week', hourlyRate: Math.round(27000 / 168) };
    let ivs = step([], 'running', weekly, T0);
    ivs = step(ivs, 'stopped', weekly, T0 + 24 * H);
    assert.equal(accruedFen(ivs, T0 + 48 * H), 48 * 161);
  });

  it('refuses a switch to the same state or back in time, and never returns NaN on garbage', () => {
    const ivs = step([], 'running', noDisk, T0);
    const same = switchState(ivs, 'running', noDisk, T0 + 1);
    assert.deepEqual(same.ok ? null : same.error, { kind: 'sameState' });
    const back = switchState(ivs, 'stopped', noDisk, T0 - 5);
    assert.deepEqual(back.ok ? null : back.error.kind, 'timeBeforeCurrent');
    const garbage: StateInterval[] = [{ state: 'running', from: T0, computeRate: NaN, storageRate: -5 }];
    assert.equal(accruedFen(garbage, T0 + H), 0);
    assert.equal(accruedFen(ivs, T0 - H), 0);
  });

  it('many short intervals round once, not per interval', () => {
    let ivs: StateInterval[] = [];
    // 600 switches of 10 s each at ¥1.98/h: each is 0.55 fen, the total 330 fen.
    for (let i = 0; i < 600; i++) ivs = step(ivs, i % 2 ? 'spot' : 'running', { ...noDisk, spotRate: 198 }, T0 + i * 10);
    assert.equal(accruedFen(ivs, T0 + 6000), 330);
  });
});

describe('Beijing calendar', () => {
  it('days and months start at midnight Beijing time (UTC+8)', () => {
    const t = Date.UTC(2026, 9, 31, 16, 30) / 1000; // 2026-11-01 00:30 Beijing
    assert.equal(beijingDayStart(t), Date.UTC(2026, 9, 31, 16) / 1000);
    assert.equal(beijingMonthStart(t), Date.UTC(2026, 9, 31, 16) / 1000);
    assert.equal(beijingMonthKey(t), '2026-11');
    assert.equal(beijingMonthKey(t - H), '2026-10');
    assert.equal(beijingNextMonthStart(Date.UTC(2026, 11, 15) / 1000), Date.UTC(2026, 11, 31, 16) / 1000); // 2027-01-01 Beijing
  });

  it('a run across Beijing midnight at month end splits between October and November', () => {
    const start = Date.UTC(2026, 9, 31, 14) / 1000; // 22:00 Beijing, Oct 31
    const ivs = step([], 'running', noDisk, start);
    const now = start + 4 * H; // 02:00 Beijing, Nov 1
    const s = summarizeSpend([{ id: 'a', platform: 'autodl', intervals: ivs }], now);
    assert.equal(s.monthFen, 2 * 198);
    assert.equal(s.todayFen, 2 * 198);
    assert.equal(s.perInstance[0]!.totalFen, 4 * 198);
  });

  it('day windows over a month add up to the month (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 60, max: 3 * D }), fc.constantFrom('running', 'noGpu', 'stopped', 'spot') as fc.Arbitrary<StateInterval['state']>), { minLength: 1, maxLength: 30 }), (steps) => {
        let ivs: StateInterval[] = [];
        let t = T0;
        for (const [dur, state] of steps) {
          const r = switchState(ivs, state, autodl3090, t);
          if (r.ok) ivs = r.intervals;
          t += dur;
        }
        const from = beijingMonthStart(T0);
        let days = 0;
        let n = 0;
        for (let d = from; d < t; d += D, n++) days += accruedFen(ivs, t, { from: d, to: Math.min(d + D, t) });
        const whole = accruedFen(ivs, t, { from, to: t });
        assert.ok(Math.abs(days - whole) <= n, `${days} vs ${whole}`);
      }),
      { numRuns: 200 },
    );
  });
});

describe('spend summary and budget', () => {
  const instances = () => {
    const a = step([], 'running', noDisk, T0); // ¥1.98/h
    const b = step([], 'stopped', autodl3090, T0); // ¥12/day storage
    return [
      { id: 'a', platform: 'autodl', intervals: a },
      { id: 'b', platform: 'lanrui', intervals: b },
    ];
  };

  it('totals today, month and burn rate across instances and platforms', () => {
    const now = T0 + 10 * H;
    const s = summarizeSpend(instances(), now);
    assert.equal(s.todayFen, 1980 + 500);
    assert.equal(s.burnRate, 198 + 50);
    assert.equal(s.billing, true);
    assert.deepEqual(s.perPlatform.map((p) => p.platform), ['autodl', 'lanrui']);
    // month-end projection: so far + current burn until Dec 1 00:00 Beijing
    const left = (beijingNextMonthStart(now) - now) / H;
    assert.equal(s.projectedMonthEndFen, s.monthFen + Math.round(248 * left));
  });

  it('warns at 80 % of the budget and says so at 100 %', () => {
    const now = T0 + 10 * H; // month so far 2480 fen
    assert.equal(summarizeSpend(instances(), now, 10000).budget.level, 'ok');
    assert.equal(summarizeSpend(instances(), now, 3100).budget.level, 'warning');
    assert.equal(summarizeSpend(instances(), now, 2480).budget.level, 'exceeded');
    assert.equal(summarizeSpend(instances(), now).budget.level, 'none');
    const s = summarizeSpend(instances(), now, 10000);
    assert.equal(s.budget.projectedOver, s.projectedMonthEndFen > 10000);
  });

  it('nothing billing: not ticking', () => {
    const ivs = step(step([], 'running', noDisk, T0), 'released', noDisk, T0 + H);
    const s = summarizeSpend([{ id: 'a', platform: 'x', intervals: ivs }], T0 + 2 * H);
    assert.equal(s.billing, false);
    assert.equal(s.todayFen, 198);
  });
});
