// Advice by monthly budget and task, following the field report's §5. Returns codes and
// figures; ADVICE_TEXT gives default English/Chinese wording for each code.
import type { BillingMode, Catalog, FenRange } from './catalog';
import { findPlatform } from './catalog';
import { unitPrice } from './cost';
import { yuanToFen, type Fen } from './money';

export const ADVICE_TASKS = ['lora', 'full-finetune', 'inference', 'aigc'] as const;
export type AdviceTask = (typeof ADVICE_TASKS)[number];

/** Budget tiers; the report names under100, 300to1000 and 3000up; the gaps are bridged. */
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
  | 'vram16Short';

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
  /** The catalog price per GPU per period (null: free or no figure). */
  price: FenRange | null;
  /** Cards per instance (4 for the ZeRO-Infinity 70B run). */
  gpus: number;
  /** What one month of this pick costs, per the report or from a monthly price. */
  monthly: FenRange | null;
  /** Periods of `mode` (hours, days, weeks) the monthly budget buys; null for month or free picks. */
  periodsForBudget: { min: number; max: number } | null;
  withinBudget: boolean;
  reasons: AdviceReason[];
}

export interface Advice {
  budget: Fen;
  task: AdviceTask;
  tier: BudgetTier;
  picks: AdvicePick[];
}

export function budgetTier(budget: Fen): BudgetTier {
  if (budget < 10000) return 'under100';
  if (budget < 30000) return '100to300';
  if (budget <= 100000) return '300to1000';
  if (budget < 300000) return '1000to3000';
  return '3000up';
}

const r = (code: ReasonCode, ref = '§5'): AdviceReason => ({ code, ref });

interface PickOpts {
  gpus?: number;
  /** The report's own monthly figure for this pick, yuan. */
  monthlyYuan?: [number, number];
}

function pick(catalog: Catalog, budget: Fen, code: AdviceCode, platform: string | null, card: string | null, mode: BillingMode | null, reasons: AdviceReason[], opts: PickOpts = {}): AdvicePick {
  const gpus = opts.gpus ?? 1;
  const p = platform ? findPlatform(catalog, platform) : undefined;
  const unit = p && card && mode ? (unitPrice(p, card, mode)?.perPeriod ?? null) : null;
  const price = unit ? { min: unit.min * gpus, max: unit.max * gpus } : null;
  let monthly: FenRange | null = opts.monthlyYuan ? { min: yuanToFen(opts.monthlyYuan[0]), max: yuanToFen(opts.monthlyYuan[1]) } : null;
  if (!monthly && price && mode === 'month') monthly = price;
  const periodsForBudget = price && mode !== 'month' && price.min > 0 ? { min: budget / price.max, max: budget / price.min } : null;
  // Within budget when the cheapest commitment (a month, or one period) fits.
  const commitment = monthly ?? price;
  const withinBudget = commitment ? commitment.min <= budget : true;
  const rs = [...reasons];
  if (!withinBudget) rs.push(r('overBudget', 'derived'));
  return { code, platform, card, mode, price, gpus, monthly, periodsForBudget, withinBudget, reasons: rs };
}

/** The report's §5 advice for a monthly budget (yuan) and task. */
export function adviseByBudget(catalog: Catalog, input: { budgetYuanPerMonth: number; task: AdviceTask }): Advice {
  const budget = yuanToFen(Math.max(0, Number.isFinite(input.budgetYuanPerMonth) ? input.budgetYuanPerMonth : 0));
  const tier = budgetTier(budget);
  const task = input.task;
  const picks: AdvicePick[] = [];
  const P = (...a: Parameters<typeof pick> extends [Catalog, Fen, ...infer R] ? R : never) => picks.push(pick(catalog, budget, ...a));

  const cheapTier = () => {
    P('freeColabT4', 'colab', 't4', 'hour', [r('freeQuotaLimited')]);
    P('freeAiStudioV100', 'aistudio', 'v100-16g', 'hour', [r('freeQuotaLimited'), r('vram16Short', '§1')]);
    P('mitaOffPeak', 'mita', 'rtx3090', 'hour', [r('offPeakOnly'), r('queueAndDataLoss', '§4')], { monthlyYuan: [30, 50] });
  };
  // The 3090 by the week while a month does not fit the budget, by the month once it does.
  const month3090 = () => (budget >= 70000 ? 'month' : 'week');
  const hourlyUnder = (fen: Fen) => (budget < fen ? 'hour' : 'month');
  const midTier = () => {
    P('autodl3090WeekMonth', 'autodl', 'rtx3090', month3090(), [r('stableQueueImagesNoGpuMode')]);
    P('autodl4090Month', 'autodl', 'rtx4090', 'month', [r('speedDoubles'), r('cheaperPerJob', '§3')]);
  };
  const bigTier = () => {
    P('bigCloudEnterprise', 'aliyun', 'a100-80g', budget >= 1500000 ? 'month' : 'hour', [r('realInterconnect'), r('pciePenalty')]);
    P('zeroInfinityOccasional70b', 'autodl', 'rtx4090', 'hour', [r('pciePenalty')], { gpus: 4 });
  };

  if (task === 'aigc') {
    P('aigcPlatforms', 'qingjiao', 'rtx3090', 'hour', [r('noSetup')]);
    P('aigcAutodl', 'autodl', 'rtx3090', 'hour', [r('cheaperFlexible'), r('imageSpeed'), r('saveCustomImage')]);
    if (tier === 'under100') cheapTier();
  } else if (task === 'inference') {
    if (tier === 'under100') cheapTier();
    P('inference4090', 'autodl', 'rtx4090', hourlyUnder(120000), [r('tokensPerSecond', '§3')]);
  } else if (task === 'full-finetune') {
    if (tier === '3000up') bigTier();
    else {
      P('a100For13bFull', 'lanrui', 'a100-80g', 'hour', [r('vramRoom', '§3')]);
      P('qloraSingleCard', 'autodl', 'rtx4090', hourlyUnder(120000), [r('pciePenalty', '§3')]);
      if (tier === '1000to3000') bigTier();
    }
  } else {
    if (tier === 'under100') cheapTier();
    else if (tier === '100to300') {
      P('autodlHourly', 'autodl', 'rtx3090', 'hour', [r('budgetGap', 'derived'), r('stableQueueImagesNoGpuMode')]);
      P('mitaOffPeak', 'mita', 'rtx3090', 'hour', [r('offPeakOnly'), r('queueAndDataLoss', '§4')]);
    } else if (tier === '300to1000') midTier();
    else if (tier === '1000to3000') {
      midTier();
      P('authorCombo', null, null, null, [r('authorMix')], { monthlyYuan: [1500, 1500] });
    } else {
      bigTier();
      midTier();
    }
  }
  return { budget, task, tier, picks };
}

export const ADVICE_TEXT: Record<AdviceCode | ReasonCode, { en: string; zh: string }> = {
  freeColabT4: { en: 'Google Colab free T4 for small tests', zh: 'Google Colab 免费 T4 跑小型测试' },
  freeAiStudioV100: { en: 'Baidu AI Studio free V100 quota', zh: '百度 AI Studio 免费 V100 额度' },
  mitaOffPeak: { en: '秘塔智算 3090 by the hour, off-peak, 1–2 h per experiment (about ¥30–50/month)', zh: '秘塔智算低峰时段按小时租 3090，一次实验 1-2 小时（每月约 30-50 元）' },
  autodlHourly: { en: 'AutoDL 3090 by the hour, no-GPU mode between runs', zh: 'AutoDL 3090 按小时，空闲时无卡模式' },
  autodl3090WeekMonth: { en: 'AutoDL 3090 weekly (¥250–300) or monthly (¥700–900)', zh: 'AutoDL 3090 包周（250-300 元）或包月（700-900 元）' },
  autodl4090Month: { en: 'AutoDL 4090 monthly (¥1200–1500) if you need more speed', zh: '需要更快就上 AutoDL 4090 包月（1200-1500 元）' },
  authorCombo: { en: "The author's mix (~¥1500/month): a 4090 on AutoDL for daily work, 秘塔智算 for bursts, a big cloud for big jobs", zh: '作者的组合拳（每月约 1500 元）：AutoDL 长租 4090 做日常，秘塔智算跑临时任务，大任务去大厂云' },
  bigCloudEnterprise: { en: 'A big cloud with enterprise verification: A100-80G ¥20–30/h, ¥15,000–20,000/month', zh: '大厂云企业认证：A100-80G 每小时 20-30 元，包月 1.5-2 万' },
  zeroInfinityOccasional70b: { en: 'An occasional 70B run: DeepSpeed ZeRO-Infinity + 8-bit optimizer on 4×4090 or 4×3090', zh: '偶尔跑 70B：4×4090 或 4×3090 上用 DeepSpeed ZeRO-Infinity 加 8-bit 优化器' },
  aigcPlatforms: { en: '青椒云 / 赞奇云: Stable Diffusion preinstalled, pay by time', zh: '青椒云、赞奇云：预装 SD，按时间计费' },
  aigcAutodl: { en: 'AutoDL 3090 with your own SD/ComfyUI image: cheaper and flexible', zh: 'AutoDL 3090 自配 SD/ComfyUI 环境：更便宜、更灵活' },
  inference4090: { en: 'An RTX 4090 for inference', zh: '推理直接上 RTX 4090' },
  a100For13bFull: { en: '揽睿星舟 A100-80G (~¥11/h) for a 13B full fine-tune', zh: '揽睿星舟 A100-80G（约 11 元/小时）跑 13B 全参微调' },
  qloraSingleCard: { en: 'QLoRA + gradient checkpointing on one 4090 instead of full fine-tuning', zh: '单卡 4090 上用 QLoRA 加梯度检查点代替全参微调' },
  freeQuotaLimited: { en: 'free, but the quota is small or unstable', zh: '免费但额度小或不稳定' },
  offPeakOnly: { en: 'cheapest 3090 (¥1.2–1.5/h) if you avoid 19:00–23:00', zh: '避开 19:00-23:00 就是最便宜的 3090（1.2-1.5 元/时）' },
  queueAndDataLoss: { en: 'expect evening queues of 1–3 h and possible data loss', zh: '做好晚高峰排队 1-3 小时和数据丢失的准备' },
  stableQueueImagesNoGpuMode: { en: 'stable: short queues, good images, a no-GPU mode, good docs', zh: '稳定：排队可控、镜像好用、无卡模式省钱、文档详细' },
  speedDoubles: { en: 'training about twice as fast as a 3090', zh: '训练速度约为 3090 的两倍' },
  cheaperPerJob: { en: 'cheaper per finished job: the LoRA run cost ¥18 on a 4090 vs ¥30 on a 3090', zh: '按完成任务算更便宜：同一 LoRA 任务 4090 花 18 元，3090 花 30 元' },
  pciePenalty: { en: 'multi-card rentals talk over PCIe: 2×4090 gave only 1.6×', zh: '个人平台多卡走 PCIe：2×4090 加速比只有 1.6 倍' },
  realInterconnect: { en: 'real multi-GPU clusters with fast interconnect for 13B–70B', zh: '13B-70B 用真正的多卡集群和高速互联' },
  noSetup: { en: 'friendliest if you do not want to set up an environment', zh: '对不会配环境的人最友好' },
  cheaperFlexible: { en: 'the same environment can be built for less', zh: '同样环境可以自己配，定价更低' },
  imageSpeed: { en: 'a 3090 renders a 1024×1024 image in about 2–3 s', zh: '3090 出一张 1024×1024 的图约 2-3 秒' },
  saveCustomImage: { en: 'install ControlNet and LoRA plugins once and save a custom image', zh: '装好 ControlNet、LoRA 插件后保存自定义镜像' },
  tokensPerSecond: { en: 'ChatGLM3-6B fp16: 25–30 tokens/s on a 4090 vs 12–15 on a 3090', zh: 'ChatGLM3-6B FP16：4090 每秒 25-30 token，3090 只有 12-15' },
  vramRoom: { en: '80 GB: large batches, little gradient accumulation', zh: '80GB 显存：batch 可以开很大' },
  overBudget: { en: 'costs more than this budget', zh: '超出该预算' },
  budgetGap: { en: 'the report gives no advice for this budget; derived from its prices', zh: '报告未覆盖该预算档，按其价格推算' },
  authorMix: { en: "the author's own setup kept the monthly bill around ¥1500", zh: '作者用这个组合把月度算力成本控制在 1500 元左右' },
  vram16Short: { en: '16 GB is not enough for 7B fine-tuning', zh: '16GB 显存不够 7B 微调' },
};
