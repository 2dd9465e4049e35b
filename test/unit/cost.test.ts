// The cost model reproduces every worked number of the field report
// (/work/shared/seed/gpu-rental-field-report.zh.txt; the lines used are quoted beside each
// figure), a table of bills computed by hand, and its totals behave for any input (never
// negative or NaN, growing with hours and GB, the sum of their parts).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { builtinCatalog, findPlatform, type BillingMode } from '../../src/core/catalog';
import {
  breakEvenHours,
  cheapestBillingMode,
  cheapestPricedRow,
  downloadHours,
  midpoint,
  quoteCatalog,
  quoteJob,
  unitPrice,
  type JobInput,
  type QuoteRow,
} from '../../src/core/cost';

const cat = builtinCatalog();
const row = (input: JobInput, platform: string, card: string, mode: BillingMode): QuoteRow => {
  const r = quoteJob(cat, { ...input, platforms: [platform], cards: [card], refCard: input.refCard ?? card, includeSpot: true }).find((x) => x.mode === mode);
  assert.ok(r, `${platform} ${card} ${mode}`);
  return r;
};

describe('cost: the field report\'s worked numbers', () => {
  it('LoRA job: 3090 15 h × ¥1.98 ≈ ¥29.7 (the report rounds to ¥30) vs 4090 5 h × ¥3.6 = ¥18, about 40% less', () => {
    // 「AutoDL 的 3090 大概 1.98 元/小时」「AutoDL 的 4090 大约 3.6 元/小时」
    // 「15 小时 3090 的费用是 30 元5 小时 4090 的费用是 18 元省了 40%」
    const r3090 = row({ gpuHours: 15 }, 'autodl', 'rtx3090', 'hour');
    const r4090 = row({ gpuHours: 5 }, 'autodl', 'rtx4090', 'hour');
    assert.deepEqual(r3090.total, { min: 2970, max: 2970 }); // 15 × 198 fen
    assert.deepEqual(r4090.total, { min: 1800, max: 1800 }); // 5 × 360 fen
    assert.equal(Math.round(r3090.total.min / 100), 30, 'the report\'s 30 元');
    const saving = 1 - r4090.total.min / r3090.total.min;
    assert.ok(saving > 0.39 && saving < 0.41, `the report's 40%: ${saving}`);
  });

  it('data disk: 24 GB × ¥0.5/GB/day = ¥12/day, ¥360 for 30 days (stopped days included)', () => {
    // 「数据盘按 0.5 元/GB/天计费」「7B 模型的权重文件 fp16 大概 14GB训练数据集 10GB加起来 24GB
    // 光数据盘一天就是 12 块一个月 360 块」
    const day = row({ gpuHours: 1, storageGb: 24, days: 1 }, 'autodl', 'rtx3090', 'hour');
    assert.deepEqual(day.breakdown.storage, { min: 1200, max: 1200 });
    const month = row({ gpuHours: 1, storageGb: 24, days: 30 }, 'autodl', 'rtx3090', 'hour');
    assert.deepEqual(month.breakdown.storage, { min: 36000, max: 36000 });
  });

  it('no-GPU mode: ¥0.1/h while stopped, against a whole night of a running card', () => {
    // 「AutoDL 的无卡模式是 0.1 元/小时」「腾讯云 GN7按量/包月T4 约 7-9 元/时」「一晚上就是几十块」
    const r = row({ gpuHours: 1, idleHours: 10 }, 'autodl', 'rtx3090', 'hour');
    assert.deepEqual(r.breakdown.idle, { min: 100, max: 100 });
    // "一晚上就是几十块": a 10 h night of a big-cloud T4 left existing, at ¥7–9/h.
    const t = row({ gpuHours: 1, idleHours: 10 }, 'tencent', 't4', 'hour');
    assert.deepEqual(t.breakdown.idle, { min: 7000, max: 9000 });
  });

  it('AutoDL 3090 monthly ¥700–900 and weekly ¥250–300, whole periods', () => {
    // 「它的 3090 包周大概是 250-300 元一个月 700-900 元」「4090 包月大约 1200-1500 元」
    const m = row({ gpuHours: 15 }, 'autodl', 'rtx3090', 'month');
    assert.deepEqual(m.total, { min: 70000, max: 90000 });
    assert.equal(m.periods, 1);
    const w = row({ gpuHours: 15 }, 'autodl', 'rtx3090', 'week');
    assert.deepEqual(w.total, { min: 25000, max: 30000 });
    // Kept 30 days: five weeks, or one month.
    assert.equal(row({ gpuHours: 15, days: 30 }, 'autodl', 'rtx3090', 'week').periods, 5);
    assert.equal(row({ gpuHours: 15, days: 30 }, 'autodl', 'rtx3090', 'month').periods, 1);
    assert.deepEqual(row({ gpuHours: 15 }, 'autodl', 'rtx4090', 'month').total, { min: 120000, max: 150000 });
  });

  it('spot is about 20% cheaper, with rework for reclaims', () => {
    const autodl = findPlatform(cat, 'autodl')!;
    const spot = unitPrice(autodl, 'rtx3090', 'spot')!;
    assert.ok(spot.derived);
    assert.ok(Math.abs(spot.perPeriod.min - 198 * 0.8) < 1e-9);
    const r = row({ gpuHours: 1, reclaimRatePerHour: 0, checkpointIntervalHours: 1 }, 'autodl', 'rtx3090', 'spot');
    assert.deepEqual(r.total, { min: 158, max: 158 });
    // The report's 8 h run reclaimed at hour 2 with no checkpoint: 1 reclaim in 8 h, 2 h lost
    // ≈ reclaim rate 1/8 per hour and a 4 h "interval" (half lost on average).
    // 「竞价实例可以比常规价格低 20% 左右」「用竞价实例跑一个 8 小时的训练任务跑到第 2 个小时时实例被警告即将回收」
    // By hand: 1 reclaim × 2 h lost × 158.4 fen/h (198 × 0.8) = 316.8 fen, 317.
    const eight = row({ gpuHours: 8, reclaimRatePerHour: 1 / 8, checkpointIntervalHours: 4 }, 'autodl', 'rtx3090', 'spot');
    assert.deepEqual(eight.breakdown.spotRework, { min: 317, max: 317 });
    assert.ok(eight.notes.includes('spotLongJob'));
    // Spot rows appear only when asked for.
    assert.ok(!quoteJob(cat, { gpuHours: 1 }).some((x) => x.mode === 'spot'));
    assert.ok(quoteJob(cat, { gpuHours: 1, includeSpot: true }).some((x) => x.mode === 'spot'));
  });

  it('2×4090 is 1.6× one card: fewer hours, more GPU-hours billed', () => {
    // 「租 2×4090 跑 DeepSpeed ZeRO-2……加速比只有 1.6 倍左右」
    // By hand: 16 h / 1.6 = 10 h on two cards; 2 cards × 10 h × 360 fen = 7200 fen.
    const one = row({ gpuHours: 16, gpus: 1 }, 'autodl', 'rtx4090', 'hour');
    const two = row({ gpuHours: 16, gpus: 2 }, 'autodl', 'rtx4090', 'hour');
    assert.equal(two.wallHours, 10);
    assert.deepEqual(two.breakdown.gpu, { min: 7200, max: 7200 });
    assert.ok(two.total.min > one.total.min);
  });

  it('downloads: hours at the platform\'s bandwidth, billed at the GPU rate', () => {
    // 秘塔智算 under 2 Mbps: "an hour downloading data" is under a GB.
    assert.ok(Math.abs(downloadHours(0.9, { min: 2, max: 2 }).max - 1) < 1e-9);
    // 「AutoDL 是 10Mbps」「秘塔智算我实测下载速度有时候连 2Mbps 都不到」
    // By hand: 14 GB = 112,000 Mbit; at 10 Mbit/s 11,200 s = 3.111 h; × 198 fen/h = 616 fen;
    // in no-GPU mode × 10 fen/h = 31.1 fen, 31.
    const a = row({ gpuHours: 1, downloadGb: 14 }, 'autodl', 'rtx3090', 'hour');
    assert.ok(Math.abs(a.downloadHours!.max - 11200 / 3600) < 1e-9);
    assert.deepEqual(a.breakdown.download, { min: 616, max: 616 });
    const viaNoGpu = row({ gpuHours: 1, downloadGb: 14, downloadInNoGpuMode: true }, 'autodl', 'rtx3090', 'hour');
    assert.deepEqual(viaNoGpu.breakdown.download, { min: 31, max: 31 });
    const mita = row({ gpuHours: 1, downloadGb: 14 }, 'mita', 'rtx3090', 'hour');
    assert.ok(mita.downloadHours!.max > 5 * a.downloadHours!.max - 1e-9, 'at 2 Mbps vs 10 Mbps');
    // Big clouds' bandwidth has no figure: the download is reported unpriced, not guessed.
    assert.deepEqual(row({ gpuHours: 1, downloadGb: 14 }, 'aliyun', 't4', 'hour').unpriced, ['download']);
  });

  it('prices unknowns as unknown, never as zero', () => {
    const lanrui = row({ gpuHours: 10, storageGb: 24, idleHours: 5 }, 'lanrui', 'rtx3090', 'hour');
    assert.deepEqual(lanrui.unpriced, ['storage', 'idle']);
    assert.deepEqual(lanrui.total, { min: 1600, max: 2000 });
    // Changed deliberately (issue 10): bundled disk and bandwidth are paid with the GPU, not free.
    const aliyun = row({ gpuHours: 10, storageGb: 24 }, 'aliyun', 't4', 'hour');
    assert.deepEqual(aliyun.unpriced, ['storage', 'download']);
    assert.ok(aliyun.notes.includes('storageBundledUnpriced') && aliyun.notes.includes('bandwidthBundledUnpriced'));
    const mita = row({ gpuHours: 1, idleHours: 2 }, 'mita', 'rtx3090', 'hour');
    assert.ok(mita.notes.includes('idleKeptRunning'));
    assert.deepEqual(mita.breakdown.idle, { min: 240, max: 300 });
    const { skipped } = quoteCatalog(cat, { gpuHours: 1 });
    assert.ok(skipped.some((s) => s.platform === 'huawei' && s.reason === 'noPrices'));
    assert.ok(skipped.some((s) => s.platform === 'lanrui' && s.mode === 'week' && s.reason === 'noFigure'));
  });

  it('estimates other cards from FP16 TFLOPS and marks them', () => {
    const rows = quoteJob(cat, { gpuHours: 15, platforms: ['autodl'], modes: ['hour'] });
    const r4090 = rows.find((r) => r.card === 'rtx4090')!;
    assert.ok(r4090.hoursEstimated);
    assert.ok(Math.abs(r4090.wallHours - (15 * 35.6) / 82.6) < 1e-9);
    // The 4090 is still the cheaper completed job, as the report found.
    assert.equal(rows[0]!.card, 'rtx4090');
    assert.ok(!rows.find((r) => r.card === 'rtx3090')!.hoursEstimated);
  });

  it('hours measured on a card replace the estimate for that card only (the report: 15 h on a 3090, 5 h on a 4090)', () => {
    const rows = quoteJob(cat, { gpuHours: 15, measuredHours: { '4090': 5 }, platforms: ['autodl', 'lanrui'], modes: ['hour'] });
    const r4090 = rows.find((r) => r.card === 'rtx4090')!;
    assert.equal(r4090.wallHours, 5);
    assert.equal(r4090.hoursEstimated, false);
    assert.deepEqual(r4090.breakdown.gpu, { min: 1800, max: 1800 });
    const a100 = rows.find((r) => r.card === 'a100-80g')!;
    assert.ok(a100.hoursEstimated, 'a card without a measurement is still estimated from the 3090 hours');
    // Two measured 4090s scale from the measured hours, and say so.
    const two = quoteJob(cat, { gpuHours: 15, measuredHours: { rtx4090: 5 }, gpus: 2, platforms: ['autodl'], cards: ['rtx4090'], modes: ['hour'] })[0]!;
    assert.ok(Math.abs(two.wallHours - 5 / 1.6) < 1e-9);
    // Unusable measurements fall back to the estimate instead of pricing a free job.
    const bad = quoteJob(cat, { gpuHours: 15, measuredHours: { rtx4090: Number.NaN }, platforms: ['autodl'], cards: ['rtx4090'], modes: ['hour'] })[0]!;
    assert.ok(Math.abs(bad.wallHours - (15 * 35.6) / 82.6) < 1e-9);
  });

  it('the cheapest row is the cheapest fully priced one: an unknown disk price cannot win', () => {
    const rows = quoteJob(cat, { gpuHours: 15, storageGb: 24, cards: ['rtx3090'], modes: ['hour'] });
    const lanrui = rows.find((r) => r.platform === 'lanrui')!;
    assert.ok(lanrui.unpriced.includes('storage'), '揽睿星舟 gives no disk price in the report');
    assert.equal(rows[0], lanrui, 'it sorts first on its known costs alone');
    const best = cheapestPricedRow(rows)!;
    assert.equal(best.unpriced.length, 0);
    assert.ok(rows.filter((r) => r.unpriced.length === 0).every((r) => midpoint(r.total) >= midpoint(best.total)));
    assert.equal(cheapestPricedRow([]), undefined);
  });

  it('skips cards without the VRAM the job needs, and flags them when asked for by name', () => {
    const { rows, skipped } = quoteCatalog(cat, { gpuHours: 15, vramNeededGb: 22 });
    assert.ok(!rows.some((r) => r.card === 't4' || r.card === 'v100-16g'));
    assert.ok(skipped.some((s) => s.card === 't4' && s.reason === 'vramShort'));
    const t4 = quoteJob(cat, { gpuHours: 1, cards: ['t4'], refCard: 't4', vramNeededGb: 22 });
    assert.ok(t4.length > 0 && t4.every((r) => r.notes.includes('vramShort')));
  });

  it('sorts by total midpoint, cheapest first', () => {
    const rows = quoteJob(cat, { gpuHours: 15, storageGb: 24 });
    for (let i = 1; i < rows.length; i++) assert.ok(midpoint(rows[i - 1]!.total) <= midpoint(rows[i]!.total));
  });
});

describe('cost: bills computed by hand (AutoDL 3090 by the hour)', () => {
  // The report's AutoDL rates: 「3090 大概 1.98 元/小时」, 「数据盘按 0.5 元/GB/天」, 「无卡模式是 0.1 元/小时」:
  // 198 fen per card-hour, 50 fen per GB-day, 10 fen per stopped hour. The disk is billed for
  // the days asked for, or at least the whole days the job and the stopped hours span.
  //   hours  GB  days  idle h   GPU              disk                          no-GPU       total
  const table: [number, number, number, number, number, number, number, number][] = [
    [15, 0, 0, 0, 2970, 0, 0, 2970], //          15 × 198                —                             —
    [15, 24, 0, 0, 2970, 1200, 0, 4170], //      15 × 198                24 × 1 day (15 h) × 50        —
    [15, 24, 30, 0, 2970, 36000, 0, 38970], //   15 × 198                24 × 30 × 50                  —
    [15, 24, 0, 33, 2970, 2400, 330, 5700], //   15 × 198                24 × 2 days (15+33 h) × 50    33 × 10
    [30, 24, 0, 0, 5940, 2400, 0, 8340], //      30 × 198                24 × 2 days (30 h) × 50       —
    [1, 0, 0, 100, 198, 0, 1000, 1198], //       1 × 198                 —                             100 × 10
  ];
  for (const [gpuHours, storageGb, days, idleHours, gpu, storage, idle, total] of table) {
    it(`${gpuHours} h, ${storageGb} GB, ${days} days, ${idleHours} h stopped: ¥${(total / 100).toFixed(2)}`, () => {
      const r = row({ gpuHours, storageGb, days, idleHours }, 'autodl', 'rtx3090', 'hour');
      assert.deepEqual(
        { gpu: r.breakdown.gpu.min, storage: r.breakdown.storage.min, idle: r.breakdown.idle.min, total: r.total.min, exact: r.total.min === r.total.max },
        { gpu, storage, idle, total, exact: true },
      );
    });
  }
});

describe('cost: cheapest mode and break-even', () => {
  it('hourly for a short job, monthly for a month of heavy use', () => {
    assert.equal(cheapestBillingMode(cat, 'autodl', '3090', { gpuHours: 15 })!.mode, 'hour');
    assert.equal(cheapestBillingMode(cat, 'autodl', '3090', { gpuHours: 600, days: 30 })!.mode, 'month');
    assert.equal(cheapestBillingMode(cat, 'autodl', '3090', { gpuHours: 150, days: 7 })!.mode, 'week');
    assert.equal(cheapestBillingMode(cat, 'huawei', '3090', { gpuHours: 1 }), null);
  });

  it('break-even: ¥250–300 a week is 126–152 hours at ¥1.98; ¥700–900 a month is 354–455 hours', () => {
    const be = breakEvenHours(findPlatform(cat, 'autodl')!, 'rtx3090');
    const week = be.find((b) => b.shorter === 'hour' && b.longer === 'week')!;
    assert.equal(Math.round(week.units.min), 126);
    assert.equal(Math.round(week.units.max), 152);
    const month = be.find((b) => b.shorter === 'hour' && b.longer === 'month')!;
    assert.equal(Math.round(month.units.min), 354);
    assert.equal(Math.round(month.units.max), 455);
    const wm = be.find((b) => b.shorter === 'week' && b.longer === 'month')!;
    assert.ok(Math.abs(wm.units.min - 700 / 300) < 1e-9 && Math.abs(wm.units.max - 900 / 250) < 1e-9);
  });
});

describe('cost: properties', () => {
  const inputArb = fc.record({
    gpuHours: fc.double({ min: 0.01, max: 5000, noNaN: true }),
    gpus: fc.integer({ min: 1, max: 8 }),
    storageGb: fc.double({ min: 0, max: 5000, noNaN: true }),
    days: fc.double({ min: 0, max: 400, noNaN: true }),
    idleHours: fc.double({ min: 0, max: 2000, noNaN: true }),
    downloadGb: fc.double({ min: 0, max: 2000, noNaN: true }),
    includeSpot: fc.constant(true),
    reclaimRatePerHour: fc.double({ min: 0, max: 2, noNaN: true }),
    checkpointIntervalHours: fc.double({ min: 0.01, max: 48, noNaN: true }),
  });
  const key = (r: QuoteRow) => `${r.platform}/${r.card}/${r.mode}`;

  it('totals are whole, finite, non-negative fen with min ≤ max', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        for (const r of quoteJob(cat, input)) {
          for (const v of [r.total, ...Object.values(r.breakdown)]) {
            if (!Number.isInteger(v.min) || !Number.isInteger(v.max) || v.min < 0 || v.min > v.max) return false;
          }
          if (!Number.isFinite(r.wallHours) || r.wallHours < 0) return false;
        }
        return true;
      }),
      { numRuns: 200 },
    );
  });

  for (const field of ['gpuHours', 'storageGb', 'days', 'idleHours', 'downloadGb'] as const) {
    it(`totals never fall when ${field} grows`, () => {
      fc.assert(
        fc.property(inputArb, fc.double({ min: 0, max: 1000, noNaN: true }), (input, extra) => {
          const a = new Map(quoteJob(cat, input).map((r) => [key(r), r.total]));
          const more = { ...input, [field]: input[field] + extra };
          for (const r of quoteJob(cat, more)) {
            const before = a.get(key(r));
            if (before && (r.total.min < before.min - 1 || r.total.max < before.max - 1)) return false;
          }
          return true;
        }),
        { numRuns: 100 },
      );
    });
  }

  it('a total is the sum of its parts (GPU, disk, stopped hours, download, spot rework)', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        for (const r of quoteJob(cat, input)) {
          const parts = Object.values(r.breakdown);
          if (parts.reduce((a, p) => a + p.min, 0) !== r.total.min || parts.reduce((a, p) => a + p.max, 0) !== r.total.max) return false;
        }
        return true;
      }),
      { numRuns: 100 },
    );
  });

  it('two jobs quoted as one cost no more than the two quoted apart (hours and GB add up)', () => {
    // Per-hour billing is linear in hours and GB-days; only whole storage days round up, so
    // one longer job can never cost more than the two shorter ones it is made of.
    fc.assert(
      fc.property(fc.double({ min: 0.1, max: 500, noNaN: true }), fc.double({ min: 0.1, max: 500, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true }), (h1, h2, gb) => {
        const q = (gpuHours: number) => row({ gpuHours, storageGb: gb }, 'autodl', 'rtx3090', 'hour');
        const whole = q(h1 + h2);
        const a = q(h1);
        const b = q(h2);
        return whole.breakdown.gpu.min === Math.round((h1 + h2) * 198) && Math.abs(whole.breakdown.gpu.min - (a.breakdown.gpu.min + b.breakdown.gpu.min)) <= 1 && whole.breakdown.storage.min <= a.breakdown.storage.min + b.breakdown.storage.min;
      }),
      { numRuns: 100 },
    );
  });

  it('garbage numbers do not produce NaN', () => {
    const rows = quoteJob(cat, { gpuHours: Number.NaN, storageGb: -5, days: Infinity, idleHours: Number.NaN, gpus: Number.NaN, downloadGb: -1 } as JobInput);
    for (const r of rows) assert.ok(Number.isFinite(r.total.min) && Number.isFinite(r.total.max) && r.total.min >= 0, JSON.stringify(r.total));
  });
});
