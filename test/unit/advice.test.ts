// Advice follows the report's §5 point by point, each pick priced as a month of the task's
// usage by the cost model `quote` uses, and citing the report's sentence it comes from.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ADVICE_TASKS, ADVICE_TEXT, adviseByBudget, budgetTier, CITES, TASK_PROFILES, type AdviceCode, type AdviceTask } from '../../src/core/advice';
import { builtinCatalog } from '../../src/core/catalog';
import { quoteCatalog, type JobInput } from '../../src/core/cost';
import { multiGpuSpeedup } from '../../src/core/perf';

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

describe('advice: properties', () => {
  it('"within budget" agrees with quote for the same usage, for any budget and task', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60000 }), fc.constantFrom(...ADVICE_TASKS), (yuan, task) => {
        const a = advise(yuan, task);
        for (const p of a.picks) {
          if (!p.month) {
            assert.equal(p.withinBudget, false);
            continue;
          }
          const u = p.month.usage;
          // The quote a renter would run for this month, built from the usage alone.
          const input: JobInput = { gpuHours: u.gpuHours * multiGpuSpeedup(u.gpus), refCard: p.card!, cards: [p.card!], platforms: [p.platform!], gpus: u.gpus, storageGb: u.dataDiskGb, days: u.days, idleHours: u.noGpuHours, downloadGb: u.downloadGb, downloadInNoGpuMode: u.noGpuHours > 0 };
          const row = quoteCatalog(cat, input).rows.find((r) => r.mode === p.mode)!;
          assert.ok(row, `${p.code}: quote has a ${p.mode} row`);
          assert.deepEqual(row.total, p.month.total, p.code);
          assert.equal(p.withinBudget, row.unpriced.length === 0 && row.total.max <= a.budget, `${yuan} ${task} ${p.code}`);
          assert.ok(u.gpuHours + u.noGpuHours <= 720 + 1e-9, `${p.code}: at most a month of hours`);
          assert.equal(u.dataDiskGb, p.code.startsWith('free') ? 0 : TASK_PROFILES[task].dataDiskGb, p.code);
        }
      }),
      { numRuns: 60 },
    );
  });
});
