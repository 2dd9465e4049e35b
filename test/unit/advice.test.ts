// Advice follows the report's §5, tier by tier, with reasons.
import { strict as assert } from 'node:assert';
import { ADVICE_TEXT, adviseByBudget, budgetTier } from '../../src/core/advice';
import { builtinCatalog } from '../../src/core/catalog';

const cat = builtinCatalog();
const codes = (budget: number, task: 'lora' | 'aigc' | 'inference' | 'full-finetune' = 'lora') => adviseByBudget(cat, { budgetYuanPerMonth: budget, task }).picks.map((p) => p.code);

describe('advice', () => {
  it('tiers follow the report: under ¥100, ¥300–1000, ¥3000+ (and bridges the gaps)', () => {
    assert.equal(budgetTier(5000), 'under100');
    assert.equal(budgetTier(20000), '100to300');
    assert.equal(budgetTier(30000), '300to1000');
    assert.equal(budgetTier(100000), '300to1000');
    assert.equal(budgetTier(150000), '1000to3000');
    assert.equal(budgetTier(300000), '3000up');
  });

  it('under ¥100: Colab and AI Studio free, 秘塔智算 off-peak at about ¥30–50 a month', () => {
    const a = adviseByBudget(cat, { budgetYuanPerMonth: 80, task: 'lora' });
    assert.deepEqual(a.picks.map((p) => p.code), ['freeColabT4', 'freeAiStudioV100', 'mitaOffPeak']);
    const mita = a.picks[2]!;
    assert.deepEqual(mita.monthly, { min: 3000, max: 5000 });
    assert.ok(mita.withinBudget);
    assert.equal(mita.platform, 'mita');
    assert.ok(mita.reasons.every((r) => r.ref.length > 0));
    assert.ok(a.picks[0]!.price!.max === 0);
  });

  it('¥300–1000: AutoDL 3090 weekly when a month does not fit, monthly when it does; 4090 monthly ¥1200–1500', () => {
    const low = adviseByBudget(cat, { budgetYuanPerMonth: 500, task: 'lora' });
    assert.equal(low.picks[0]!.code, 'autodl3090WeekMonth');
    assert.equal(low.picks[0]!.mode, 'week');
    assert.ok(low.picks[0]!.withinBudget);
    const high = adviseByBudget(cat, { budgetYuanPerMonth: 900, task: 'lora' });
    assert.equal(high.picks[0]!.mode, 'month');
    assert.deepEqual(high.picks[0]!.monthly, { min: 70000, max: 90000 });
    const p4090 = high.picks.find((p) => p.code === 'autodl4090Month')!;
    assert.deepEqual(p4090.monthly, { min: 120000, max: 150000 });
    assert.equal(p4090.withinBudget, false);
    assert.ok(p4090.reasons.some((r) => r.code === 'overBudget'));
    assert.ok(p4090.reasons.some((r) => r.code === 'cheaperPerJob'));
  });

  it('¥1000–3000: the author\'s ~¥1500 mix; ¥3000+: big-cloud A100 and ZeRO-Infinity on 4×4090 for occasional 70B', () => {
    assert.ok(codes(2000).includes('authorCombo'));
    const big = adviseByBudget(cat, { budgetYuanPerMonth: 5000, task: 'lora' });
    assert.deepEqual(big.picks.slice(0, 2).map((p) => p.code), ['bigCloudEnterprise', 'zeroInfinityOccasional70b']);
    assert.equal(big.picks[1]!.gpus, 4);
    assert.deepEqual(big.picks[1]!.price, { min: 1440, max: 1440 });
    assert.ok(big.picks[0]!.reasons.some((r) => r.code === 'pciePenalty'));
  });

  it('AIGC: 青椒/赞奇 for no setup, AutoDL cheaper with a saved custom image, 2–3 s per 1024² image', () => {
    const a = adviseByBudget(cat, { budgetYuanPerMonth: 800, task: 'aigc' });
    assert.deepEqual(a.picks.map((p) => p.code), ['aigcPlatforms', 'aigcAutodl']);
    const reasons = a.picks[1]!.reasons.map((r) => r.code);
    assert.ok(reasons.includes('imageSpeed') && reasons.includes('saveCustomImage'));
    assert.ok(a.picks[1]!.price!.min < a.picks[0]!.price!.min, 'AutoDL is cheaper per hour');
  });

  it('inference goes to a 4090; full fine-tuning under ¥3000 suggests the A100 or QLoRA', () => {
    assert.deepEqual(codes(800, 'inference'), ['inference4090']);
    assert.deepEqual(codes(800, 'full-finetune'), ['a100For13bFull', 'qloraSingleCard']);
    assert.ok(codes(8000, 'full-finetune').includes('bigCloudEnterprise'));
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
