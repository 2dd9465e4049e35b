// What `quote` adds up and what it calls cheapest (issue 10): spot over the report's 1 h limit
// and rows with a `?` are never starred, bundled costs are `?`, spot rework is bounded by the
// work done, multi-GPU beyond the measurement is marked, idle hours say how they are billed,
// every figure is bounded and dated only as far as anybody knows.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { builtinCatalog, dating, formatDating, mergeCatalog, parseCatalog } from '../../src/core/catalog';
import { builtinCatalogJson } from '../../src/core/catalog/data';
import {
  cheapestPricedRow,
  expectedLossPerReclaim,
  quoteCatalog,
  reworkHoursIfReclaimedAt,
  starExclusion,
  type JobInput,
} from '../../src/core/cost';
import { formatHours } from '../../src/core/format';
import { multiGpuSpeedup } from '../../src/core/perf';

const cat = builtinCatalog();
const DEFAULT_JOB: JobInput = { gpuHours: 15, refCard: 'rtx3090', storageGb: 24, vramNeededGb: 22, measuredHours: { rtx3090: 15, rtx4090: 5 } };

describe('quote: the star goes to a job a careful renter would run', () => {
  it('a 15 h job on spot is listed with its risk but never starred (it was, at ¥36.95 vs ¥41.70)', () => {
    const { rows } = quoteCatalog(cat, { ...DEFAULT_JOB, includeSpot: true });
    const spot3090 = rows.find((r) => r.platform === 'autodl' && r.card === 'rtx3090' && r.mode === 'spot')!;
    assert.equal((spot3090.total.min / 100).toFixed(2), '36.95');
    assert.ok(spot3090.notes.includes('spotLongJob'));
    assert.equal(starExclusion(spot3090), 'spotOverLimit');
    const star = cheapestPricedRow(rows)!;
    assert.notEqual(star.mode, 'spot');
    assert.deepEqual([star.platform, star.card, star.mode], ['autodl', 'rtx4090', 'hour']);
    assert.ok(rows.indexOf(star) > 0, 'cheaper spot rows exist above it');
  });

  it('a job of 1 h or less may be starred on spot', () => {
    const { rows } = quoteCatalog(cat, { gpuHours: 1, refCard: 'rtx3090', cards: ['rtx3090'], platforms: ['autodl'], includeSpot: true, storageGb: 0 });
    assert.equal(cheapestPricedRow(rows)!.mode, 'spot');
  });

  it('--card a100 --gpu-hours 10: 阿里云\'s bundled disk and bandwidth are ?, so 阿里云 is not starred', () => {
    const { rows } = quoteCatalog(cat, { gpuHours: 10, refCard: 'a100-80g', cards: ['a100-80g'], storageGb: 24 });
    const aliyun = rows.find((r) => r.platform === 'aliyun' && r.mode === 'hour')!;
    assert.deepEqual(aliyun.unpriced, ['storage', 'download']);
    assert.ok(aliyun.notes.includes('storageBundledUnpriced'));
    assert.equal(cheapestPricedRow(rows), undefined, 'every A100 row has a cost without a figure');
  });

  it('a bundled disk the catalog prices is counted, not ?', () => {
    const r = mergeCatalog(cat, { platforms: [{ id: 'aliyun', dataDisk: { yuanPerGbDay: 0.01, bundled: true }, bandwidthMbps: { value: 5, yuanPerMonth: 60 } }] });
    assert.ok(r.ok);
    const row = quoteCatalog(r.catalog, { gpuHours: 10, refCard: 't4', cards: ['t4'], platforms: ['aliyun'], storageGb: 24, modes: ['hour'] }).rows[0]!;
    assert.deepEqual(row.unpriced, []);
    assert.deepEqual(row.breakdown.storage, { min: 24, max: 24 });
    assert.deepEqual(row.breakdown.download, { min: 200, max: 200 }, '¥60/month for one day');
  });

  it('property: the starred row is never spot over 1 h and never has a ?', () => {
    fc.assert(
      fc.property(
        fc.record({
          gpuHours: fc.double({ min: 1 / 3600, max: 2000, noNaN: true }),
          storageGb: fc.double({ min: 0, max: 500, noNaN: true }),
          idleHours: fc.double({ min: 0, max: 500, noNaN: true }),
          downloadGb: fc.double({ min: 0, max: 100, noNaN: true }),
          days: fc.integer({ min: 0, max: 60 }),
          gpus: fc.integer({ min: 1, max: 8 }),
          reclaimRatePerHour: fc.double({ min: 0, max: 10, noNaN: true }),
          checkpointIntervalHours: fc.double({ min: 1 / 60, max: 1000, noNaN: true }),
        }),
        (i) => {
          const star = cheapestPricedRow(quoteCatalog(cat, { ...i, includeSpot: true }).rows);
          if (!star) return;
          assert.equal(star.unpriced.length, 0);
          assert.ok(!(star.mode === 'spot' && star.wallHours > 1));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('quote: spot rework is bounded by the work done', () => {
  it('the report\'s case: an 8 h run reclaimed at hour 2 with no checkpoint lost those 2 h, all the work so far', () => {
    assert.equal(reworkHoursIfReclaimedAt(2, null), 2);
    assert.equal(reworkHoursIfReclaimedAt(2.5, 1), 0.5);
    // Reclaim equally likely anywhere in the 8 h: half the job without checkpoints, half an hour with hourly ones.
    assert.equal(expectedLossPerReclaim(8, 1000), 4);
    assert.equal(expectedLossPerReclaim(8, 1), 0.5);
    assert.ok(Math.abs(expectedLossPerReclaim(8, 3) - (2 * 9 + 4) / 16) < 1e-12);
  });

  it('--gpu-hours 1 --reclaim-rate 10 --checkpoint-hours 1000: ¥7.92 of rework (10 × ½ h), not ¥7,920', () => {
    const row = quoteCatalog(cat, { gpuHours: 1, refCard: 'rtx3090', cards: ['rtx3090'], platforms: ['autodl'], modes: ['spot'], includeSpot: true, storageGb: 0, reclaimRatePerHour: 10, checkpointIntervalHours: 1000 }).rows[0]!;
    assert.deepEqual(row.breakdown.spotRework, { min: 792, max: 792 });
    assert.equal(row.spot!.reclaims, 10);
  });

  it('property: the expected loss per reclaim never exceeds the job, nor half an interval', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 1e5, noNaN: true }), fc.double({ min: 1e-3, max: 1e5, noNaN: true }), (T, c) => {
        const l = expectedLossPerReclaim(T, c);
        assert.ok(l >= 0 && l <= T / 2 + 1e-9 && l <= c / 2 + 1e-9, `${T} ${c} ${l}`);
      }),
    );
  });
});

describe('quote: multi-GPU, idle hours, provenance, bounds', () => {
  it('4 cards: an estimate beyond the report\'s 2-card measurement, at 2.56×, not 2.8×', () => {
    const row = quoteCatalog(cat, { gpuHours: 16, refCard: 'rtx4090', cards: ['rtx4090'], platforms: ['autodl'], modes: ['hour'], gpus: 4 }).rows[0]!;
    assert.ok(row.notes.includes('multiGpuEstimate'));
    assert.ok(Math.abs(row.wallHours - 16 / multiGpuSpeedup(4)) < 1e-9);
    const two = quoteCatalog(cat, { gpuHours: 16, refCard: 'rtx4090', cards: ['rtx4090'], platforms: ['autodl'], modes: ['hour'], gpus: 2 }).rows[0]!;
    assert.ok(!two.notes.includes('multiGpuEstimate'));
    assert.equal(two.wallHours, 10);
  });

  it('each row says how its idle hours were billed', () => {
    const basis = (platform: string, card: string, mode: 'hour' | 'month' = 'hour') =>
      quoteCatalog(cat, { gpuHours: 2, idleHours: 10, refCard: card, cards: [card], platforms: [platform], modes: [mode] }).rows[0]!.idleBasis;
    assert.equal(basis('autodl', 'rtx3090'), 'noGpuMode');
    assert.equal(basis('mita', 'rtx3090'), 'keptRunning');
    assert.equal(basis('aliyun', 't4'), 'fullRate');
    assert.equal(basis('lanrui', 'rtx3090'), 'unpriced');
    assert.equal(basis('autodl', 'rtx3090', 'month'), 'inPlan');
  });

  it('dates: the report\'s figures are undated, a user\'s file shows its asOf, an API price when it was read', () => {
    const r = mergeCatalog(cat, { asOf: '2026-11-01', platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 3.2 }, { card: '3090', mode: 'hour', yuan: 1.9, source: 'AutoDL API', readAt: '2026-11-02T08:15:00Z' }] }] });
    assert.ok(r.ok);
    const autodl = r.catalog.platforms.find((p) => p.id === 'autodl')!;
    const label = (card: string, mode: string) => formatDating(dating(autodl.prices.find((p) => p.card === card && p.mode === mode)!));
    assert.equal(label('rtx4090', 'hour'), 'as of 2026-11-01');
    assert.equal(label('rtx3090', 'hour'), 'read 2026-11-02 08:15 UTC');
    assert.equal(label('rtx3090', 'month'), 'undated (field report test week)');
  });

  it('a 1-second job is "1 s", not "1 min"', () => {
    assert.equal(formatHours(1 / 3600), '1 s');
    assert.equal(formatHours(0.5 / 60), '30 s');
    assert.equal(formatHours(1 / 60), '1 min');
  });

  it('catalog numbers beyond their bounds are refused with the path, never priced as ¥0.00', () => {
    const bad = (patch: object) => {
      const r = mergeCatalog(cat, { platforms: [{ id: 'autodl', ...patch }] });
      assert.ok(!r.ok, JSON.stringify(patch));
      return `${r.errors[0]!.path}: ${r.errors[0]!.message}`;
    };
    assert.match(bad({ prices: [{ card: '4090', mode: 'hour', yuan: 1e308 }] }), /^platforms\[0\]\.prices\[0\]\.yuan: expected at most 100,000 yuan per hour/);
    assert.match(bad({ prices: [{ card: '4090', mode: 'hour', yuan: 1.5e19 }] }), /prices\[0\]\.yuan: expected at most/);
    assert.match(bad({ prices: [{ card: '4090', mode: 'month', yuan: [1, 1e9] }] }), /expected at most 72,000,000 yuan per month/);
    assert.match(bad({ bandwidthMbps: { value: 1e-300 } }), /bandwidthMbps\.value: expected at least 0\.1 Mbit\/s/);
    assert.match(bad({ dataDisk: { yuanPerGbDay: 1e6 } }), /dataDisk\.yuanPerGbDay: expected at most 1,000 ¥\/GB\/day/);
    assert.match(bad({ noGpuMode: { support: 'yes', yuanPerHour: 1e9 } }), /noGpuMode\.yuanPerHour/);
    // A month price of ¥70,000 (an 8-card A100 box) is fine.
    assert.ok(mergeCatalog(cat, { platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'month', yuan: 70000 }] }] }).ok);
  });

  it('the same platform id twice in one file is refused, naming both places', () => {
    const twice = { id: 'mybox', name: { zh: '自建', en: 'Home box' }, billingModes: ['hour'], prices: [{ card: '4090', mode: 'hour', yuan: 1 }] };
    const r = mergeCatalog(cat, { platforms: [twice, { id: 'autodl', prices: [] }, { ...twice, prices: [{ card: '4090', mode: 'hour', yuan: 2 }] }] });
    assert.ok(!r.ok);
    assert.equal(r.errors[0]!.path, 'platforms[2].id');
    assert.match(r.errors[0]!.message, /duplicate platform id "mybox" \(also at platforms\[0\]\.id\)/);
    const again = mergeCatalog(cat, { platforms: [{ id: 'autodl', prices: [] }, { id: 'autodl', prices: [] }] });
    assert.ok(!again.ok && again.errors[0]!.path === 'platforms[1].id' && again.errors[0]!.message.includes('platforms[0].id'));
    const whole = parseCatalog({ platforms: [builtinCatalogJson.platforms[0], builtinCatalogJson.platforms[0]] });
    assert.ok(!whole.ok && whole.errors[0]!.path === 'platforms[1].id' && whole.errors[0]!.message.includes('platforms[0].id'));
    const price = mergeCatalog(cat, { platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 3 }, { card: 'RTX 4090', mode: 'hour', yuan: 4 }] }] });
    assert.ok(!price.ok && price.errors[0]!.path === 'platforms[0].prices[1]' && price.errors[0]!.message.includes('platforms[0].prices[0]'));
  });
});
