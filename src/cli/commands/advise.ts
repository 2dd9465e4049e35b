// `gpu-rent advise`: the field report's §5 advice for a monthly budget and a task.
import { ADVICE_TASKS, ADVICE_TEXT, adviseByBudget, type AdviceTask, type BudgetTier } from '../../core/advice';
import { cardById } from '../../core/cards';
import { findPlatform } from '../../core/catalog';
import { formatCny, formatFenRange } from '../../core/format';
import { fenToYuan } from '../../core/money';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import { loadCatalog } from '../catalog-file';
import type { CliCommand } from '../command';

const specs = {
  budget: { type: 'number', valueName: 'YUAN', min: 0, max: 10_000_000, description: 'monthly budget in yuan (required)' },
  task: { type: 'string', valueName: 'TASK', choices: ADVICE_TASKS, description: `what you run: ${ADVICE_TASKS.join('|')} (default lora)` },
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides, merged over the built-in catalog' },
  json: { type: 'boolean', description: 'print JSON (yuan as numbers)' },
} satisfies FlagSpecs;

const TIER_TEXT: Record<BudgetTier, string> = {
  under100: 'under ¥100/month: free quotas and off-peak hours (report §5)',
  '100to300': '¥100–300/month: between the report\'s tiers; hourly rental (derived from its prices)',
  '300to1000': '¥300–1000/month: daily LoRA and demos (report §5)',
  '1000to3000': '¥1000–3000/month: a 4090 monthly or the author\'s mix (report §5)',
  '3000up': '¥3000+/month: bigger models on big clouds (report §5)',
};

export const command: CliCommand = {
  name: 'advise',
  summary: 'which platform and card for a monthly budget and task (the field report\'s advice)',
  help: () => formatHelp('gpu-rent advise --budget YUAN_PER_MONTH [--task lora|full-finetune|inference|aigc] [--catalog FILE] [--json]', 'Recommends platforms, cards and billing modes for a monthly budget, each with its reasons from\nthe field report (§5).', specs),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    if (flags.budget === undefined) throw new UsageError('--budget is required: a monthly budget in yuan, a number ≥ 0 (e.g. --budget 500)');
    const task = (flags.task ?? 'lora') as AdviceTask;
    const catalog = loadCatalog(flags.catalog);
    const advice = adviseByBudget(catalog, { budgetYuanPerMonth: flags.budget, task });
    if (flags.json) {
      io.stdout(
        JSON.stringify(
          {
            currency: 'CNY',
            budget: fenToYuan(advice.budget),
            task: advice.task,
            tier: advice.tier,
            picks: advice.picks.map((p) => ({
              code: p.code,
              text: ADVICE_TEXT[p.code],
              platform: p.platform,
              platformName: p.platform ? (findPlatform(catalog, p.platform)?.name.zh ?? p.platform) : null,
              card: p.card,
              billing: p.mode,
              price: p.price ? (p.price.min === p.price.max ? fenToYuan(p.price.min) : [fenToYuan(p.price.min), fenToYuan(p.price.max)]) : null,
              monthly: p.monthly ? (p.monthly.min === p.monthly.max ? fenToYuan(p.monthly.min) : [fenToYuan(p.monthly.min), fenToYuan(p.monthly.max)]) : null,
              gpus: p.gpus,
              periodsForBudget: p.periodsForBudget ? [Math.floor(p.periodsForBudget.min), Math.floor(p.periodsForBudget.max)] : null,
              withinBudget: p.withinBudget,
              reasons: p.reasons.map((r) => ({ code: r.code, ref: r.ref, ...ADVICE_TEXT[r.code] })),
            })),
          },
          null,
          2,
        ) + '\n',
      );
      return 0;
    }
    let out = `Budget ${formatCny(advice.budget)}/month, task ${task}: ${TIER_TEXT[advice.tier]}.\n\n`;
    advice.picks.forEach((p, i) => {
      const facts: string[] = [];
      if (p.price && p.mode) facts.push(p.price.max === 0 ? 'free' : `${formatFenRange(p.price)}${p.mode === 'hour' ? '/h' : `/${p.mode}`}`);
      if (p.monthly && p.mode !== 'month' && p.monthly.max > 0) facts.push(`~${formatFenRange(p.monthly)}/month`);
      if (p.periodsForBudget && p.mode) {
        const a = Math.floor(p.periodsForBudget.min);
        const b = Math.floor(p.periodsForBudget.max);
        const unit = p.mode === 'hour' ? 'h' : `${p.mode}${b === 1 ? '' : 's'}`;
        facts.push(`the budget buys ${a === b ? a : `${a}–${b}`} ${unit}/month`);
      }
      if (!p.withinBudget) facts.push('over this budget');
      const where = p.platform ? ` [${findPlatform(catalog, p.platform)?.name.zh ?? p.platform}${p.card ? ` ${p.gpus > 1 ? `${p.gpus}×` : ''}${cardById(p.card)?.name ?? p.card}` : ''}]` : '';
      out += `${i + 1}. ${ADVICE_TEXT[p.code].en}${where}${facts.length ? `: ${facts.join(', ')}` : ''}\n`;
      for (const r of p.reasons) out += `   - ${ADVICE_TEXT[r.code].en} (${r.ref.startsWith('§') ? `report ${r.ref}` : r.ref})\n`;
    });
    io.stdout(out);
    return 0;
  },
};
