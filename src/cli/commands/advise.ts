// `gpu-rent advise`: the field report's §5 advice for a monthly budget and a task, each pick
// priced as a month of the task's usage by the same cost model as `gpu-rent quote`.
import { ADVICE_TASKS, ADVICE_TEXT, adviseByBudget, TASK_PROFILES, type AdvicePick, type AdviceTask, type BudgetTier, type Month } from '../../core/advice';
import { BOUNDS } from '../../core/bounds';
import { cardById } from '../../core/cards';
import { findPlatform, type Catalog, type FenRange } from '../../core/catalog';
import { midpoint } from '../../core/cost';
import { formatCny, formatFenRange, formatHours } from '../../core/format';
import { fenToYuan } from '../../core/money';
import { UsageError, type FlagSpecs } from '../args';
import { loadCatalog } from '../catalog-file';
import type { CliCommand } from '../command';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { defineCommand } from '../define';
import { t } from '../words';
import { quoteWords } from './quote-words';

const specs = {
  budget: { type: 'number', valueName: 'YUAN', min: 0, max: BOUNDS.budgetYuanPerMonth.max, description: 'monthly budget in yuan (required)', zh: '每月预算，元（必填）' },
  task: { type: 'string', valueName: 'TASK', choices: ADVICE_TASKS, description: `what you run: ${ADVICE_TASKS.join('|')} (default lora)`, zh: `你跑什么：${ADVICE_TASKS.join('|')}（默认 lora）` },
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides, merged over the built-in catalog', zh: '覆盖内置价格目录的 JSON 文件' },
  json: { type: 'boolean', description: 'print JSON (yuan as numbers)', zh: '以 JSON 输出（元为数字）' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const TIER_TEXT: Record<BudgetTier, string> = {
  under100: 'up to ¥100/month ("100 元内"): free quotas and off-peak hours (report §5)',
  '100to300': "¥100–300/month: between the report's tiers; derived from its prices",
  '300to1000': '¥300–1000/month: daily LoRA and demos (report §5)',
  '1000to3000': "¥1000–3000/month: between the report's tiers; a 4090 monthly or the author's ~¥1500 mix (report §5)",
  '3000up': '¥3000+/month ("3000 元以上"): 13B–70B models on big clouds (report §5)',
};

const TIER_ZH: Record<BudgetTier, string> = {
  under100: '每月 100 元内：免费额度和低峰时段（报告 §5）',
  '100to300': '每月 100–300 元：介于报告的两档之间；按报告的价格推算',
  '300to1000': '每月 300–1000 元：日常 LoRA 和演示（报告 §5）',
  '1000to3000': '每月 1000–3000 元：介于报告的两档之间；包月 4090，或作者每月约 1500 元的组合（报告 §5）',
  '3000up': '每月 3000 元以上：在大云上跑 13B–70B 模型（报告 §5）',
};

const yuanOf = (r: FenRange): number | [number, number] => (r.min === r.max ? fenToYuan(r.min) : [fenToYuan(r.min), fenToYuan(r.max)]);

function monthJson(m: Month): Record<string, unknown> {
  const range = m.total.min !== m.total.max;
  const part = (k: 'gpu' | 'storage' | 'idle' | 'download') => ((m.unpriced as string[]).includes(k) ? null : fenToYuan(midpoint(m.breakdown[k])));
  return {
    total: fenToYuan(midpoint(m.total)),
    ...(range ? { totalMin: fenToYuan(m.total.min), totalMax: fenToYuan(m.total.max) } : {}),
    billing: m.mode,
    breakdown: { gpu: part('gpu'), storage: part('storage'), idle: part('idle'), download: part('download') },
    unpriced: m.unpriced,
    usage: {
      pattern: m.usage.pattern,
      gpuHours: Math.round(m.usage.gpuHours * 100) / 100,
      noGpuHours: Math.round(m.usage.noGpuHours * 100) / 100,
      dataDiskGb: m.usage.dataDiskGb,
      days: m.usage.days,
      downloadGb: m.usage.downloadGb,
      gpus: m.usage.gpus,
      ...(m.usage.pattern === 'hourlyRuns' ? { runs: m.usage.count } : m.usage.pattern === 'plan' ? { periods: m.usage.count } : {}),
    },
    withinBudget: m.withinBudget,
  };
}

function usageTextZh(m: Month): string {
  const u = m.usage;
  const h = (x: number) => quoteWords('zh-cn').hours(formatHours(x));
  const disk = u.dataDiskGb > 0 ? `，数据盘 ${u.dataDiskGb} GB × ${u.days} 天` : '';
  switch (u.pattern) {
    case 'free':
      return u.gpuHours > 0 ? `约 ${h(u.gpuHours)} 免费额度` : '大小未说明的免费额度（不稳定）';
    case 'plan':
      return `${u.count} ${({ hour: '小时', spot: '小时', day: '天', week: '周', month: '个月' } as const)[m.mode]}（${quoteWords('zh-cn').mode(m.mode)}，显卡 ${h(u.gpuHours)}）${disk}`;
    case 'hourlyKept':
      return `GPU ${h(u.gpuHours)} + 无卡模式 ${h(u.noGpuHours)}${disk}`;
    case 'hourlyRuns':
      return `${u.count} 次、每次 ${h(u.gpuHours / Math.max(1, u.count))}（GPU 共 ${h(u.gpuHours)}）${disk}，两次之间释放`;
  }
}

function usageText(m: Month, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn') return usageTextZh(m);
  const u = m.usage;
  const disk = u.dataDiskGb > 0 ? `, data disk ${u.dataDiskGb} GB × ${u.days} day${u.days === 1 ? '' : 's'}` : '';
  switch (u.pattern) {
    case 'free':
      return u.gpuHours > 0 ? `about ${formatHours(u.gpuHours)} of free quota` : 'a free quota of unstated size (unstable)';
    case 'plan':
      return `${u.count} ${m.mode}${u.count === 1 ? '' : 's'} (${formatHours(u.gpuHours)} of the card)${disk}`;
    case 'hourlyKept':
      return `${formatHours(u.gpuHours)} GPU + ${formatHours(u.noGpuHours)} no-GPU mode${disk}`;
    case 'hourlyRuns':
      return `${u.count} run${u.count === 1 ? '' : 's'} of ${formatHours(u.gpuHours / Math.max(1, u.count))} (${formatHours(u.gpuHours)} GPU)${disk}, released between runs`;
  }
}

function moneyText(m: Month, lang: CliLang = 'en'): string {
  const zh = lang === 'zh-cn';
  const part = (k: 'gpu' | 'storage' | 'idle' | 'download', label: string) => ((m.unpriced as string[]).includes(k) ? `${label} ?` : m.breakdown[k].max > 0 ? `${label} ${formatFenRange(m.breakdown[k])}` : '');
  const parts = [part('gpu', 'GPU'), part('storage', zh ? '数据盘' : 'disk'), part('idle', zh ? '无卡' : 'no-GPU'), part('download', zh ? '下载' : 'download')].filter(Boolean);
  return zh ? `${formatFenRange(m.total)}${m.unpriced.length ? ' +?' : ''}（${parts.join(' + ') || '免费'}）` : `${formatFenRange(m.total)}${m.unpriced.length ? ' +?' : ''} (${parts.join(' + ') || 'free'})`;
}

function pickJson(p: AdvicePick, catalog: ReturnType<typeof loadCatalog>): Record<string, unknown> {
  return {
    code: p.code,
    text: ADVICE_TEXT[p.code],
    platform: p.platform,
    platformName: p.platform ? (findPlatform(catalog, p.platform)?.name.zh ?? p.platform) : null,
    card: p.card,
    billing: p.mode,
    gpus: p.gpus,
    price: p.price ? yuanOf(p.price) : null,
    reportMonthly: p.reportMonthly ? yuanOf(p.reportMonthly) : null,
    month: p.month ? monthJson(p.month) : null,
    compareMonthlyPlan: p.compare ? monthJson(p.compare) : null,
    withinBudget: p.withinBudget,
    cites: p.cites.map((c) => ({ section: c.section, text: c.text })),
    reasons: p.reasons.map((r) => ({ code: r.code, ref: r.ref, ...ADVICE_TEXT[r.code] })),
  };
}

type Advice = { catalog: Catalog; task: AdviceTask; advice: ReturnType<typeof adviseByBudget> };

export const command: CliCommand = defineCommand({
  name: 'advise',
  summary: "which platform and card for a monthly budget and task (the field report's advice)",
  summaryZh: '按每月预算和任务推荐平台和显卡（实测报告的建议）',
  usage: 'gpu-rent advise --budget YUAN_PER_MONTH [--task lora|full-finetune|inference|aigc] [--catalog FILE] [--json]',
  about:
    [
      'Recommends platforms, cards and billing modes for a monthly budget, following the field',
      "report's §5 and citing its sentences. Each pick is priced as a month of the task's usage",
      '(GPU hours, no-GPU hours, data disk for the days kept) by the same model as gpu-rent quote,',
      'and is "within budget" only when that month\'s highest total fits.',
    ].join('\n'),
  aboutZh:
    [
      '按每月预算推荐平台、显卡和计费方式，依据实测报告的 §5 并引用其原话。每个推荐按该任务一个月的用量',
      '（GPU 小时数、无卡小时数、保留天数的数据盘）用与 gpu-rent quote 相同的模型计价，',
      '只有当月最高总价也在预算内时才算“在预算内”。',
    ].join('\n'),
  flags: specs,
  positionals: { max: 0 },
  run: async (flags): Promise<Advice> => {
    if (flags.budget === undefined) throw new UsageError('--budget is required: a monthly budget in yuan, a number ≥ 0 (e.g. --budget 500)', '必须给出 --budget：每月预算，元，≥ 0 的数字（例如 --budget 500）');
    const task = (flags.task ?? 'lora') as AdviceTask;
    const catalog = loadCatalog(flags.catalog);
    return { catalog, task, advice: adviseByBudget(catalog, { budgetYuanPerMonth: flags.budget, task }) };
  },
  json: ({ catalog, task, advice }) => ({ currency: 'CNY', budget: fenToYuan(advice.budget), task: advice.task, tier: advice.tier, dataDiskGb: TASK_PROFILES[task].dataDiskGb, picks: advice.picks.map((p) => pickJson(p, catalog)) }),
  text: ({ catalog, task, advice }, lang) => {
    const zh = lang === 'zh-cn';
    const words = (code: keyof typeof ADVICE_TEXT) => (zh ? ADVICE_TEXT[code].zh : ADVICE_TEXT[code].en);
    let out = zh
      ? `预算每月 ${formatCny(advice.budget)}，任务 ${task}（数据盘 ${TASK_PROFILES[task].dataDiskGb} GB）：${TIER_ZH[advice.tier]}。\n\n`
      : `Budget ${formatCny(advice.budget)}/month, task ${task} (data disk ${TASK_PROFILES[task].dataDiskGb} GB): ${TIER_TEXT[advice.tier]}.\n\n`;
    advice.picks.forEach((p, i) => {
      const where = p.platform ? ` [${findPlatform(catalog, p.platform)?.name.zh ?? p.platform}${p.card ? ` ${p.gpus > 1 ? `${p.gpus}×` : ''}${cardById(p.card)?.name ?? p.card}` : ''}]` : '';
      out += `${i + 1}. ${words(p.code)}${where}\n`;
      if (p.month) {
        const verdict = p.withinBudget ? t(lang, 'within budget', '在预算内') : p.month.unpriced.length ? t(lang, 'within budget unknown (a cost has no figure)', '是否在预算内未知（有一项花费没有数字）') : t(lang, 'over this budget', '超出这个预算');
        out += zh ? `   每月：${usageText(p.month, lang)}：${moneyText(p.month, lang)}，${verdict}\n` : `   month: ${usageText(p.month)}: ${moneyText(p.month)}, ${verdict}\n`;
      } else out += t(lang, '   month: no price for this in the catalog\n', '   每月：价格目录中没有这一项的价格\n');
      if (p.compare) out += zh ? `   对比包月：${moneyText(p.compare, lang)}${p.compare.withinBudget ? '' : '，超出这个预算'}\n` : `   vs the monthly plan: ${moneyText(p.compare)}${p.compare.withinBudget ? '' : ', over this budget'}\n`;
      if (p.reportMonthly) out += zh ? `   报告自己的数字：每月约 ${formatFenRange(p.reportMonthly)}\n` : `   the report's own figure: ~${formatFenRange(p.reportMonthly)}/month\n`;
      for (const c of p.cites) out += zh ? `   报告 ${c.section}：「${c.text}」\n` : `   report ${c.section}: 「${c.text}」\n`;
      for (const r of p.reasons) out += zh ? `   - ${words(r.code)}（${r.ref.startsWith('§') ? `报告 ${r.ref}` : r.ref === 'derived' ? '推算' : r.ref}）\n` : `   - ${ADVICE_TEXT[r.code].en} (${r.ref.startsWith('§') ? `report ${r.ref}` : r.ref})\n`;
    });
    return out;
  },
});
