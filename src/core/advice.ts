// Advice by monthly budget and task, following the field report's §5 point by point. Every
// suggestion is priced as a month of the task's usage through the cost model `quote` uses
// (advice-month.ts) and cites the report's sentence it comes from (advice-text.ts). Returns
// codes and figures; ADVICE_TEXT gives default English/Chinese wording for each code.
import { bestMonth, candidateMonth, loraRunHours, MONTH_DAYS, MONTH_HOURS, priceMonth, type Candidate, type Month, type TaskProfile } from './advice-month';
import { CITES, type Cite } from './advice-text';
import { BOUNDS } from './bounds';
import type { BillingMode, Catalog, FenRange } from './catalog';
import { findPlatform } from './catalog';
import { unitPrice } from './cost';
import { yuanToFen, type Fen } from './money';

export { ADVICE_TEXT, CITES, type Cite } from './advice-text';
export { monthJobInput, type Month, type MonthUsage, type UsagePattern } from './advice-month';

export const ADVICE_TASKS = ['lora', 'full-finetune', 'inference', 'aigc'] as const;
export type AdviceTask = (typeof ADVICE_TASKS)[number];

/** Budget tiers. The report names "100 元内", "300-1000 元" and "3000 元以上" (all inclusive); the gaps are bridged. */
export type BudgetTier = 'under100' | '100to300' | '300to1000' | '1000to3000' | '3000up';

export type AdviceCode =
  | 'freeColabT4'
  | 'freeAiStudioV100'
  | 'mitaOffPeak'
  | 'autodlHourly'
  | 'autodl3090WeekMonth'
  | 'autodl4090Month'
  | 'authorCombo'
  | 'bigCloudEnterprise'
  | 'zeroInfinityOccasional70b'
  | 'aigcPlatforms'
  | 'aigcAutodl'
  | 'inference4090'
  | 'lora4090'
  | 'a100For13bFull'
  | 'qloraSingleCard';

export type ReasonCode =
  | 'freeQuotaLimited'
  | 'offPeakOnly'
  | 'queueAndDataLoss'
  | 'stableQueueImagesNoGpuMode'
  | 'speedDoubles'
  | 'cheaperPerJob'
  | 'pciePenalty'
  | 'realInterconnect'
  | 'noSetup'
  | 'cheaperFlexible'
  | 'imageSpeed'
  | 'saveCustomImage'
  | 'tokensPerSecond'
  | 'vramRoom'
  | 'overBudget'
  | 'budgetGap'
  | 'authorMix'
  | 'vram16Short'
  | 'individualsSkipA100'
  | 'largeModelsOnly'
  | 'unpricedCost'
  | 'dataDiskMonth';

export interface AdviceReason {
  code: ReasonCode;
  /** Where in the field report (or "derived"). */
  ref: string;
}

export interface AdvicePick {
  code: AdviceCode;
  platform: string | null;
  card: string | null;
  mode: BillingMode | null;
  /** Cards per instance (4 for the ZeRO-Infinity 70B run). */
  gpus: number;
  /** The catalog price of the whole instance per period of `mode` (null: no figure). */
  price: FenRange | null;
  /** The report's own monthly figure where it gives one (e.g. 秘塔 ¥30–50, the author's ~¥1500). */
  reportMonthly: FenRange | null;
  /** A month of the task's usage on this pick, priced like `quote`. */
  month: Month | null;
  /** The same platform's monthly plan for this card and disk, when the pick is not that plan. */
  compare: Month | null;
  /** True only when the month's total (its maximum) fits the budget with every cost priced. */
  withinBudget: boolean;
  reasons: AdviceReason[];
  /** The report's sentences this suggestion follows. */
  cites: Cite[];
}

export interface Advice {
  budget: Fen;
  task: AdviceTask;
  tier: BudgetTier;
  picks: AdvicePick[];
}

/** Tiers with the report's own boundaries inclusive: ¥100 is "100 元内", ¥300 and ¥1000 are in "300-1000", ¥3000 is "3000 元以上". */
export function budgetTier(budget: Fen): BudgetTier {
  if (budget <= 10000) return 'under100';
  if (budget < 30000) return '100to300';
  if (budget <= 100000) return '300to1000';
  if (budget < 300000) return '1000to3000';
  return '3000up';
}

/**
 * What a month of each task holds. Disk sizes follow §2's arithmetic (7B fp16 weights 14 GB +
 * 10 GB of data = 24 GB; 13B fp16 = 26 GB + 10 GB); run lengths are the report's LoRA job
 * (15 h on a 3090, 5 h on a 4090); the others are stated assumptions (README).
 */
export const TASK_PROFILES: Record<AdviceTask, TaskProfile> = {
  lora: { dataDiskGb: 24, runHours: loraRunHours },
  'full-finetune': { dataDiskGb: 36, runHours: () => 24 },
  inference: { dataDiskGb: 14, runHours: () => 2 },
  aigc: { dataDiskGb: 10, runHours: () => 2 },
};

const r = (code: ReasonCode, ref = '§5'): AdviceReason => ({ code, ref });
const HOURLY: Candidate[] = [{ kind: 'hourlyKept' }, { kind: 'hourlyRuns' }];
const PLAN_OR_HOURLY: Candidate[] = [{ kind: 'plan', mode: 'month' }, { kind: 'plan', mode: 'week' }, ...HOURLY];

interface Spec {
  code: AdviceCode;
  platform: string | null;
  card: string | null;
  gpus?: number;
  candidates: Candidate[];
  reasons: AdviceReason[];
  cites: Cite[];
  reportMonthlyYuan?: [number, number];
}

function build(catalog: Catalog, budget: Fen, profile: TaskProfile, s: Spec): AdvicePick {
  const gpus = s.gpus ?? 1;
  const p = s.platform ? findPlatform(catalog, s.platform) : undefined;
  // The platform's monthly plan for this card and disk: the ceiling for buying by the hour, and the comparison.
  const plan = p && s.card && unitPrice(p, s.card, 'month') ? priceMonth(catalog, p.id, s.card, 'month', { pattern: 'plan', gpuHours: MONTH_HOURS, noGpuHours: 0, dataDiskGb: profile.dataDiskGb, days: MONTH_DAYS, downloadGb: 0, gpus, count: 1 }, budget) : null;
  const floor = plan && plan.unpriced.length === 0 ? plan.total.min : undefined;
  const month = p && s.card ? bestMonth(s.candidates.map((c) => candidateMonth(catalog, p.id, s.card!, gpus, c, profile, budget, floor)), budget) : null;
  const mode = month?.mode ?? null;
  const unit = p && s.card && mode ? (unitPrice(p, s.card, mode)?.perPeriod ?? null) : null;
  const price = unit ? { min: unit.min * gpus, max: unit.max * gpus } : null;
  const compare = month && month.mode !== 'month' ? plan : null;
  const withinBudget = month?.withinBudget ?? false;
  const reasons = [...s.reasons];
  if (month && month.breakdown.storage.max > 0 && month.usage.days >= 7) reasons.push(r('dataDiskMonth', '§2'));
  if (month && month.unpriced.length) reasons.push(r('unpricedCost', 'derived'));
  else if (!withinBudget) reasons.push(r('overBudget', 'derived'));
  const reportMonthly = s.reportMonthlyYuan ? { min: yuanToFen(s.reportMonthlyYuan[0]), max: yuanToFen(s.reportMonthlyYuan[1]) } : null;
  return { code: s.code, platform: p?.id ?? null, card: s.card, mode, gpus, price, reportMonthly, month, compare, withinBudget, reasons, cites: s.cites };
}

/** §5 point 1 (≤ ¥100): free quotas, then 秘塔智算 off-peak, 1–2 h per experiment. */
function learningTier(): Spec[] {
  return [
    { code: 'freeColabT4', platform: 'colab', card: 't4', candidates: [{ kind: 'free', quotaHours: 1 }], reasons: [r('freeQuotaLimited')], cites: [CITES.p1Intro, CITES.p1Free] },
    { code: 'freeAiStudioV100', platform: 'aistudio', card: 'v100-16g', candidates: [{ kind: 'free', quotaHours: 0 }], reasons: [r('freeQuotaLimited', '§1'), r('vram16Short', '§1')], cites: [CITES.p1Free] },
    {
      code: 'mitaOffPeak',
      platform: 'mita',
      card: 'rtx3090',
      candidates: [{ kind: 'hourlyRuns', runHours: 2 }],
      reasons: [r('offPeakOnly'), r('queueAndDataLoss', '§4')],
      cites: [CITES.p1Mita],
      reportMonthlyYuan: [30, 50],
    },
  ];
}

const autodl3090 = (reasons: AdviceReason[] = [r('stableQueueImagesNoGpuMode')]): Spec => ({
  code: 'autodl3090WeekMonth',
  platform: 'autodl',
  card: 'rtx3090',
  candidates: PLAN_OR_HOURLY,
  reasons,
  cites: [CITES.p2Autodl, CITES.p2Plans],
});
const autodl4090Month: Spec = { code: 'autodl4090Month', platform: 'autodl', card: 'rtx4090', candidates: [{ kind: 'plan', mode: 'month' }], reasons: [r('speedDoubles'), r('cheaperPerJob', '§3')], cites: [CITES.p24090] };
const authorCombo: Spec = {
  code: 'authorCombo',
  platform: 'autodl',
  card: 'rtx4090',
  candidates: [{ kind: 'hourlyKept' }],
  reasons: [r('authorMix')],
  cites: [CITES.p5Combo, CITES.p5Total],
  reportMonthlyYuan: [1500, 1500],
};
const qlora: Spec = { code: 'qloraSingleCard', platform: 'autodl', card: 'rtx4090', candidates: PLAN_OR_HOURLY, reasons: [r('pciePenalty', '§3')], cites: [CITES.s3Qlora] };
const inference4090: Spec = { code: 'inference4090', platform: 'autodl', card: 'rtx4090', candidates: PLAN_OR_HOURLY, reasons: [r('tokensPerSecond', '§3')], cites: [CITES.s3Inference] };

/** The report's §5 advice for a monthly budget (yuan) and task, each pick priced as a month. */
export function adviseByBudget(catalog: Catalog, input: { budgetYuanPerMonth: number; task: AdviceTask }): Advice {
  const raw = Number.isFinite(input.budgetYuanPerMonth) ? input.budgetYuanPerMonth : 0;
  const budget = yuanToFen(Math.min(BOUNDS.budgetYuanPerMonth.max, Math.max(0, raw)));
  const tier = budgetTier(budget);
  const task = input.task;
  const specs: Spec[] = [];
  if (tier === 'under100') specs.push(...learningTier());

  if (task === 'aigc') {
    specs.push(
      { code: 'aigcPlatforms', platform: 'qingjiao', card: 'rtx3090', candidates: [{ kind: 'hourlyRuns' }], reasons: [r('noSetup')], cites: [CITES.p4Aigc] },
      { code: 'aigcAutodl', platform: 'autodl', card: 'rtx3090', candidates: PLAN_OR_HOURLY, reasons: [r('cheaperFlexible'), r('imageSpeed'), r('saveCustomImage')], cites: [CITES.p4Autodl] },
    );
  } else if (task === 'inference') {
    specs.push(inference4090);
    if (tier === '300to1000') specs.push(autodl3090());
  } else if (task === 'full-finetune') {
    if (tier === '3000up') {
      specs.push(
        { code: 'bigCloudEnterprise', platform: 'aliyun', card: 'a100-80g', candidates: [{ kind: 'plan', mode: 'month' }, { kind: 'hourlyRuns' }], reasons: [r('realInterconnect'), r('pciePenalty')], cites: [CITES.p3Big, CITES.p3A100] },
        { code: 'a100For13bFull', platform: 'lanrui', card: 'a100-80g', candidates: [{ kind: 'hourlyRuns' }], reasons: [r('vramRoom', '§3'), r('individualsSkipA100', '§3')], cites: [CITES.s3A100, CITES.s3A100Not] },
        { code: 'zeroInfinityOccasional70b', platform: 'autodl', card: 'rtx4090', gpus: 4, candidates: [{ kind: 'hourlyRuns', runHours: 24, maxRuns: 1 }], reasons: [r('pciePenalty')], cites: [CITES.p3Zero] },
      );
    } else specs.push(qlora);
  } else if (tier === '100to300') {
    specs.push({ ...autodl3090([r('budgetGap', 'derived'), r('stableQueueImagesNoGpuMode')]), code: 'autodlHourly', candidates: HOURLY }, { ...learningTier()[2]!, candidates: [{ kind: 'hourlyRuns' }], reasons: [r('budgetGap', 'derived'), r('offPeakOnly'), r('queueAndDataLoss', '§4')] });
  } else if (tier === '300to1000') specs.push(autodl3090(), autodl4090Month);
  else if (tier === '1000to3000') specs.push(autodl3090(), autodl4090Month, authorCombo);
  else if (tier === '3000up') {
    specs.push(
      { code: 'lora4090', platform: 'autodl', card: 'rtx4090', candidates: PLAN_OR_HOURLY, reasons: [r('speedDoubles'), r('cheaperPerJob', '§3'), r('largeModelsOnly')], cites: [CITES.s3Lora, CITES.p24090] },
      authorCombo,
    );
  }
  const profile = TASK_PROFILES[task];
  return { budget, task, tier, picks: specs.map((s) => build(catalog, budget, profile, s)) };
}
