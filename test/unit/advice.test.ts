// Advice follows the report's §5 point by point, each pick priced as a month of the task's
// usage by the cost model `quote` uses, and citing the report's sentence it comes from.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ADVICE_TASKS, ADVICE_TEXT, adviseByBudget, budgetTier, CITES, TASK_PROFILES, type AdviceCode, type AdviceTask } from '../../src/core/advice';
import { builtinCatalog } from '../../src/core/catalog';
import { quoteCatalog } from '../../src/core/cost';

const cat = builtinCatalog();
const advise = (budget: number, task: AdviceTask = 'lora') => adviseByBudget(cat, { budgetYuanPerMonth: budget, task });
const codes = (budget: number, task: AdviceTask = 'lora') => advise(budget, task).picks.map((p) => p.code);
const REPORT = join(__dirname, '..', 'fixtures', 'field-report', 'gpu-rental-field-report.zh.txt');

describe('advice: the report\'s §5 as a table', () => {
  // budget × task → the first picks (code, platform, card) and a sentence of the report each cites.
  const table: { budget: number; task: AdviceTask; picks: [AdviceCode, string, string][]; cite: string }[] = [
    { budget: 50, task: 'lora', picks: [['freeColabT4', 'colab', 't4'], ['freeAiStudioV100', 'aistudio', 'v100-16g'], ['mitaOffPeak', 'mita', 'rtx3090']], cite: '月预算 100 元内优先考虑免费或极低成本的资源' },
    { budget: 100, task: 'lora', picks: [['freeColabT4', 'colab', 't4'], ['freeAiStudioV100', 'aistudio', 'v100-16g'], ['mitaOffPeak', 'mita', 'rtx3090']], cite: '一次实验控制在 1-2 小时内' },
    { budget: 200, task: 'lora', picks: [['autodlHourly', 'autodl', 'rtx3090'], ['mitaOffPeak', 'mita', 'rtx3090']], cite: '无卡模式省钱' },
    { budget: 300, task: 'lora', picks: [['autodl3090WeekMonth', 'autodl', 'rtx3090'], ['autodl4090Month', 'autodl', 'rtx4090']], cite: '月预算 300-1000 元AutoDL 是最稳妥的选择' },
    { budget: 1000, task: 'lora', picks: [['autodl3090WeekMonth', 'autodl', 'rtx3090'], ['autodl4090Month', 'autodl', 'rtx4090']], cite: '直接上 4090 包月大约 1200-1500 元' },
    { budget: 2000, task: 'lora', picks: [['autodl3090WeekMonth', 'autodl', 'rtx3090'], ['autodl4090Month', 'autodl', 'rtx4090'], ['authorCombo', 'autodl', 'rtx4090']], cite: '这个组合让我把月度算力成本控制在 1500 元左右' },
    { budget: 3000, task: 'lora', picks: [['lora4090', 'autodl', 'rtx4090'], ['authorCombo', 'autodl', 'rtx4090']], cite: '所以如果你是个人跑 Lora 微调单卡 4090 是最优解' },
    { budget: 5000, task: 'full-finetune', picks: [['bigCloudEnterprise', 'aliyun', 'a100-80g'], ['a100For13bFull', 'lanrui', 'a100-80g'], ['zeroInfinityOccasional70b', 'autodl', 'rtx4090']], cite: '月预算 3000 元以上建议去大厂云开企业认证' },
    { budget: 3000, task: 'full-finetune', picks: [['bigCloudEnterprise', 'aliyun', 'a100-80g']], cite: 'DeepSpeed ZeRO-Infinity 加 8-bit 优化器在 4×4090 或 4×3090 上凑合跑' },
    { budget: 800, task: 'full-finetune', picks: [['qloraSingleCard', 'autodl', 'rtx4090']], cite: 'QLoRA 梯度检查点在单卡上硬啃' },
    { budget: 800, task: 'inference', picks: [['inference4090', 'autodl', 'rtx4090'], ['autodl3090WeekMonth', 'autodl', 'rtx3090']], cite: '所以如果有推理服务需求别犹豫直接上 4090' },
    { budget: 800, task: 'aigc', picks: [['aigcPlatforms', 'qingjiao', 'rtx3090'], ['aigcAutodl', 'autodl', 'rtx3090']], cite: '对不会配环境的人最友好' },
    { budget: 5000, task: 'aigc', picks: [['aigcPlatforms', 'qingjiao', 'rtx3090'], ['aigcAutodl', 'autodl', 'rtx3090']], cite: 'AutoDL 这种平台也能配出同样的环境而且定价更低' },
  ];
  for (const row of table) {
    it(`¥${row.budget} ${row.task} → ${row.picks.map((p) => p[0]).join(', ')}`, () => {
      const a = advise(row.budget, row.task);
      assert.deepEqual(a.picks.slice(0, row.picks.length).map((p) => [p.code, p.platform, p.card]), row.picks);
      assert.ok(a.picks.some((p) => p.cites.some((c) => c.text.includes(row.cite))), `cites "${row.cite}"`);
      for (const p of a.picks) assert.ok(p.cites.length > 0, `${p.code} cites the report`);
    });
  }

  it('every cited sentence is in the report, word for word', () => {
    const text = readFileSync(REPORT, 'utf8');
    for (const [k, c] of Object.entries(CITES)) {
      assert.ok(text.includes(c.text), k);
      const s5 = text.indexOf('5. 我的最终选型建议');
      const s3 = text.indexOf('3. 核心环节实测');
      const at = text.indexOf(c.text);
      assert.equal(c.section, at > s5 ? '§5' : at > s3 ? '§3' : '?', k);
    }
  });

  it('boundaries are inclusive as the report words them: ¥100 is "100 元内", ¥300/¥1000 are "300-1000", ¥3000 is "3000 元以上"', () => {
    assert.equal(budgetTier(10000), 'under100');
    assert.equal(budgetTier(10001), '100to300');
    assert.equal(budgetTier(29999), '100to300');
    assert.equal(budgetTier(30000), '300to1000');
    assert.equal(budgetTier(100000), '300to1000');
    assert.equal(budgetTier(100001), '1000to3000');
    assert.equal(budgetTier(299999), '1000to3000');
    assert.equal(budgetTier(300000), '3000up');
  });

  it('full fine-tuning below ¥3000 never leads with the ¥11/h A100 ("个人开发者不用考虑这个档位")', () => {
    for (const b of [50, 100, 300, 1000, 2999]) assert.ok(!codes(b, 'full-finetune').includes('a100For13bFull'), String(b));
    const big = advise(5000, 'full-finetune').picks.find((p) => p.code === 'a100For13bFull')!;
    assert.ok(big.reasons.some((r) => r.code === 'individualsSkipA100'));
  });

  it('LoRA at ¥3000+ leads with one 4090, not a big-cloud A100 or a 70B run', () => {
    for (const b of [3000, 5000, 50000]) {
      const c = codes(b);
      assert.equal(c[0], 'lora4090');
      assert.ok(!c.includes('bigCloudEnterprise') && !c.includes('zeroInfinityOccasional70b'), String(b));
    }
  });
});

describe('advice: each pick priced as a month, with the data disk', () => {
  it('¥100: the free quotas and 秘塔 off-peak, the disk counted; AutoDL by the hour with 24 GB is not offered as within budget', () => {
    const a = advise(100);
    assert.equal(a.tier, 'under100');
    const mita = a.picks.find((p) => p.code === 'mitaOffPeak')!;
    assert.ok(mita.withinBudget);
    assert.ok(mita.month!.breakdown.storage.max > 0, 'the data disk is in the month');
    assert.ok(mita.month!.total.max <= 10000);
    assert.deepEqual(mita.reportMonthly, { min: 3000, max: 5000 });
    for (const p of a.picks) if (p.withinBudget) assert.ok(p.month!.total.max <= 10000, p.code);
  });

  it('the issue\'s month: AutoDL 3090, 50 GPU h + 670 no-GPU h with 24 GB kept 30 days is ¥526, over ¥100 and ¥300', () => {
    const r = quoteCatalog(cat, { gpuHours: 50, refCard: 'rtx3090', cards: ['rtx3090'], platforms: ['autodl'], modes: ['hour'], storageGb: 24, days: 30, idleHours: 670 }).rows[0]!;
    assert.deepEqual(r.total, { min: 52600, max: 52600 });
    for (const b of [100, 200]) {
      for (const p of advise(b).picks.filter((x) => x.platform === 'autodl' && x.withinBudget)) assert.ok(p.month!.total.max <= b * 100, `${b}: ${p.code}`);
    }
  });

  it('¥1000: the 3090 monthly plan is ¥1060–1260 with 24 GB of disk, so it is compared, never called within budget', () => {
    const p = advise(1000).picks.find((x) => x.code === 'autodl3090WeekMonth')!;
    assert.notEqual(p.mode, 'month');
    assert.ok(p.withinBudget && p.month!.total.max <= 100000);
    assert.deepEqual(p.compare!.total, { min: 106000, max: 126000 });
    assert.equal(p.compare!.withinBudget, false);
    const p4090 = advise(1000).picks.find((x) => x.code === 'autodl4090Month')!;
    assert.deepEqual(p4090.month!.total, { min: 156000, max: 186000 });
    assert.equal(p4090.withinBudget, false);
    assert.ok(p4090.reasons.some((r) => r.code === 'overBudget'));
    // At ¥1260 the monthly plan fits and wins: 720 h of the card.
    const m = advise(1260).picks.find((x) => x.code === 'autodl3090WeekMonth')!;
    assert.equal(m.mode, 'month');
    assert.ok(m.withinBudget);
  });

  it('AIGC at ¥3000/¥5000 never buys more hours than a month has, and offers the monthly plan', () => {
    for (const b of [3000, 5000, 1e6]) {
      for (const p of advise(b, 'aigc').picks) assert.ok(!p.month || p.month.usage.gpuHours + p.month.usage.noGpuHours <= 720, `${b} ${p.code}`);
      const autodl = advise(b, 'aigc').picks.find((p) => p.code === 'aigcAutodl')!;
      assert.equal(autodl.mode, 'month');
    }
  });

  it('bundled or unknown costs make a month "within budget unknown", never within budget', () => {
    const big = advise(50000, 'full-finetune').picks.find((p) => p.code === 'bigCloudEnterprise')!;
    assert.ok(big.month!.unpriced.includes('storage'));
    assert.equal(big.withinBudget, false);
    assert.ok(big.reasons.some((r) => r.code === 'unpricedCost'));
  });

  it('every code has English and Chinese text', () => {
    for (const [code, t] of Object.entries(ADVICE_TEXT)) {
      assert.ok(t.en.length > 3, code);
      assert.ok(/[\u4e00-\u9fff]/.test(t.zh), code);
    }
  });

  it('a garbage budget is treated as zero, not NaN', () => {
    const a = adviseByBudget(cat, { budgetYuanPerMonth: Number.NaN, task: 'lora' });
    assert.equal(a.budget, 0);
    assert.equal(a.tier, 'under100');
  });
});

describe('advice: months computed by hand from the report\'s prices', () => {
  // AutoDL: 「3090 大概 1.98 元/小时」「4090 大约 3.6 元/小时」「数据盘按 0.5 元/GB/天」「无卡模式是 0.1 元/小时」
  // 「3090 包周大概是 250-300 元一个月 700-900 元」「4090 包月大约 1200-1500 元」;
  // 秘塔智算: 「1.2-1.5」元/小时 (the report's table), 「1 元/GB/天约」.
  //   budget task        pick                 usage (GPU h, no-GPU h, GB, days)   by hand                                          total (fen)
  const table: { budget: number; task: AdviceTask; code: AdviceCode; usage: [number, number, number, number]; total: [number, number] }[] = [
    // 60 × 198 = 11,880 + 24 × 4 × 50 = 4,800
    { budget: 200, task: 'lora', code: 'autodlHourly', usage: [60, 0, 24, 4], total: [16680, 16680] },
    // 6 × 120–150 = 720–900 + 24 × 3 × 100 = 7,200
    { budget: 100, task: 'lora', code: 'mitaOffPeak', usage: [6, 0, 24, 3], total: [7920, 8100] },
    // 322 × 360 = 115,920 + 24 × 30 × 50 = 36,000 + 398 × 10 = 3,980: 「把月度算力成本控制在 1500 元左右」
    { budget: 3000, task: 'lora', code: 'authorCombo', usage: [322, 398, 24, 30], total: [155900, 155900] },
    // a month of the 4090 plan 120,000–150,000 + 36,000
    { budget: 3000, task: 'lora', code: 'lora4090', usage: [720, 0, 24, 30], total: [156000, 186000] },
    // 148 × 360 = 53,280 + 14 × 30 × 50 = 21,000 + 572 × 10 = 5,720: exactly the ¥800
    { budget: 800, task: 'inference', code: 'inference4090', usage: [148, 572, 14, 30], total: [80000, 80000] },
    // two weeks of the 3090 plan 2 × 25,000–30,000 + 14 × 14 × 50 = 9,800
    { budget: 800, task: 'inference', code: 'autodl3090WeekMonth', usage: [336, 0, 14, 14], total: [59800, 69800] },
  ];
  for (const t of table) {
    it(`¥${t.budget} ${t.task}, ${t.code}: ¥${t.total[0] / 100}${t.total[1] === t.total[0] ? '' : `–${t.total[1] / 100}`}`, () => {
      const p = advise(t.budget, t.task).picks.find((x) => x.code === t.code)!;
      assert.ok(p?.month, t.code);
      const u = p.month.usage;
      assert.deepEqual([u.gpuHours, u.noGpuHours, u.dataDiskGb, u.days], t.usage);
      assert.deepEqual(p.month.total, { min: t.total[0], max: t.total[1] });
      assert.equal(p.withinBudget, t.total[1] <= t.budget * 100);
    });
  }
});

describe('advice: properties', () => {
  // The report's AutoDL prices in fen, per card-hour (by the hour) or per period (plans).
  const AUTODL = { hour: { rtx3090: [198, 198], rtx4090: [360, 360] }, week: { rtx3090: [25000, 30000] }, month: { rtx3090: [70000, 90000], rtx4090: [120000, 150000] } } as Record<string, Record<string, [number, number]>>;

  it('"within budget" means fully priced and at most the budget; an AutoDL month is the report\'s prices × the usage', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60000 }), fc.constantFrom(...ADVICE_TASKS), (yuan, task) => {
        const a = advise(yuan, task);
        for (const p of a.picks) {
          if (!p.month) {
            assert.equal(p.withinBudget, false);
            continue;
          }
          const u = p.month.usage;
          assert.equal(p.withinBudget, p.month.unpriced.length === 0 && p.month.total.max <= a.budget, `${yuan} ${task} ${p.code}`);
          assert.ok(u.gpuHours + u.noGpuHours <= 720 + 1e-9, `${p.code}: at most a month of hours`);
          assert.equal(u.dataDiskGb, p.code.startsWith('free') ? 0 : TASK_PROFILES[task].dataDiskGb, p.code);
          const rate = p.platform === 'autodl' && u.downloadGb === 0 ? AUTODL[p.mode!]?.[p.card!] : undefined;
          if (!rate) continue;
          // Disk for the days kept, or at least the whole days the hours span (stopped days included).
          const disk = u.dataDiskGb * Math.max(u.days, Math.ceil((u.gpuHours + u.noGpuHours) / 24 - 1e-9)) * 50;
          const gpu = p.mode === 'hour' ? rate.map((r) => Math.round(r * u.gpus * u.gpuHours)) : rate.map((r) => r * u.gpus * u.count);
          const idle = p.mode === 'hour' ? Math.round(u.noGpuHours * 10) : 0;
          assert.deepEqual(p.month.total, { min: gpu[0]! + disk + idle, max: gpu[1]! + disk + idle }, `${yuan} ${task} ${p.code} ${JSON.stringify(u)}`);
        }
      }),
      { numRuns: 60 },
    );
  });
});
