// `gpu-rent spend FILE`: spend from the extension's exported instance list (no secrets in it):
// today, this month, burn rate, projected month end against a budget, per platform, and the
// release rules a stopped instance is running into (AutoDL's 15 days, 矩池云's 24 h snapshot).
import { readFileSync } from 'node:fs';
import { factsFor } from '../../../core/guards/facts';
import { needsWarning, watchRelease, type ReleaseWatch } from '../../../core/guards/release';
import { parseImport } from '../../../core/instances';
import { formatCny, yuanToFen } from '../../../core/money';
import { summarizeSpend } from '../../../core/spend';
import { bounded, UsageError } from '../../args';
import { defineCommand } from '../../define';
import { BOUNDS } from '../../../core/bounds';
import { stateWord, t } from '../../words';
import { LANG_FLAG_SPEC, type CliLang } from '../../lang';
import { loadCatalog } from '../../catalog-file';
import type { CliCommand } from '../../command';
import { AT_FLAG, nowFromFlag } from './clock';
import { beijingText, durationText, factsOf, perHour } from './pricing';
import { findPlatform } from '../../../core/catalog';

const specs = {
  budget: { type: 'number', valueName: 'YUAN', ...bounded(BOUNDS.budgetYuanPerMonth), exclusiveMin: true, description: 'monthly budget: warns at 80% and 100%, and when the month-end projection passes it', zh: '每月预算：达到 80% 和 100% 时以及月底预计超出时提醒' },
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides (release rules)', zh: '价格覆盖的 JSON 文件（释放规则）' },
  json: { type: 'boolean', description: 'print the summary as JSON (fen; over the budget, exit 1 adds error {code: "over-budget", message} beside it)', zh: '以 JSON 输出汇总（单位：分；超出预算时退出码为 1，旁边多一个 error {code: "over-budget", message}）' },
  lang: LANG_FLAG_SPEC,
  ...AT_FLAG,
} as const;

const USAGE = 'gpu-rent spend FILE [--budget YUAN] [--json]';
const SUMMARY = 'Spend across your instances from the list the VS Code extension exports (GPU Rentals: Export Instances; it holds no passwords): today, this month (Beijing time), burn rate, projected month end, per platform, budget warnings, and release deadlines for stopped instances.';

function releaseTextZh(name: string, w: ReleaseWatch): string | null {
  const lang: CliLang = 'zh-cn';
  switch (w.kind) {
    case 'releaseSoon':
      return `${name}：已关机 ${w.dayNumber - 1}+ 天；平台将于${beijingText(w.releaseAt, lang)} 释放它及其全部数据（还剩 ${durationText(w.secondsLeft, lang)}）。请开机（无卡模式即可）或把数据同步出来。`;
    case 'probablyReleased':
      return `${name}：自${beijingText(w.releaseAt, lang)} 起关机已超过平台期限：很可能已连同数据被释放。`;
    case 'snapshotExpires':
      return `${name}：关机后的免费快照保留到${beijingText(w.expiresAt, lang)}（还剩 ${durationText(w.secondsLeft, lang)}）。`;
    case 'snapshotExpired':
      return `${name}：免费快照已于${beijingText(w.expiresAt, lang)} 到期。`;
    default:
      return null;
  }
}

export function releaseText(name: string, w: ReleaseWatch, lang: CliLang = 'en'): string | null {
  if (lang === 'zh-cn') return releaseTextZh(name, w);
  switch (w.kind) {
    case 'releaseSoon':
      return `${name}: shut down for ${w.dayNumber - 1}+ days; the platform releases it, data and all, on ${beijingText(w.releaseAt)} (${durationText(w.secondsLeft)} left). Start it (no-GPU mode is enough) or sync the data off.`;
    case 'probablyReleased':
      return `${name}: shut down past the platform's limit since ${beijingText(w.releaseAt)}: it has probably been released with its data.`;
    case 'snapshotExpires':
      return `${name}: the free snapshot after the stop lasts until ${beijingText(w.expiresAt)} (${durationText(w.secondsLeft)} left).`;
    case 'snapshotExpired':
      return `${name}: the free snapshot expired ${beijingText(w.expiresAt)}.`;
    default:
      return null;
  }
}

const SUMMARY_ZH = '根据 VS Code 扩展导出的实例列表（GPU Rentals: Export Instances；不含密码）计算各实例的花费：今天、本月（北京时间）、每小时消耗、月底预测、按平台汇总、预算提醒，以及已关机实例的释放期限。';

export const command: CliCommand = defineCommand({
  name: 'spend',
  summary: 'Spend, burn rate, month-end projection and budget from the extension’s exported instances.',
  summaryZh: '根据扩展导出的实例计算花费、每小时消耗、月底预测和预算。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 1, names: 'FILE' },
  run: async (flags, { io, positionals }) => {
    const file = positionals[0];
    if (!file) throw new UsageError('expects FILE: the instance list exported by the extension', '需要 FILE：扩展导出的实例列表');
    let text: string;
    try {
      text = file === '-' ? await io.readStdin() : readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new UsageError(`cannot read "${file}" (${code})`, `读不了 "${file}"（${code}）`);
    }
    const parsed = parseImport(text.replace(/^\uFEFF/, ''));
    if (!parsed.ok) {
      const p = parsed.problem;
      const why = p.kind === 'notJson' ? 'not JSON' : p.kind === 'wrongShape' ? 'not an exported instance list' : p.kind === 'duplicateId' ? `instance id ${p.id} appears twice` : `instance ${p.index}: ${p.path}: ${p.message}`;
      const whyZh = p.kind === 'notJson' ? '不是 JSON' : p.kind === 'wrongShape' ? '不是导出的实例列表' : p.kind === 'duplicateId' ? `实例 ID ${p.id} 出现了两次` : `第 ${p.index} 个实例：${p.path}：${p.message}`;
      throw new UsageError(`${file}: ${why}`, `${file}：${whyZh}`);
    }
    const now = nowFromFlag(flags.at);
    const catalog = loadCatalog(flags.catalog);
    const budgetFen = flags.budget === undefined ? undefined : yuanToFen(flags.budget);
    const s = summarizeSpend(
      parsed.instances.map((i) => ({ id: i.id, platform: i.platform, intervals: i.intervals })),
      now,
      budgetFen,
    );
    const releases = parsed.instances
      .map((i) => {
        const p = findPlatform(catalog, i.platform) ?? findPlatform(catalog, factsFor(i.platform).platform);
        return { id: i.id, name: i.name, watch: watchRelease(i.intervals, p ? factsOf(p) : factsFor(i.platform), now) };
      })
      .filter((r) => r.watch.kind !== 'ok');
    return { s, releases, parsed };
  },
  // Over the budget (exit 1): `error` beside the report, as every failed --json run has.
  json: ({ s, releases }) =>
    s.budget.level === 'exceeded'
      ? { ...s, releases, error: { code: 'over-budget', message: `over budget: ${formatCny(s.monthFen)} spent this month (Beijing time) of a ${formatCny(s.budget.budgetFen)} monthly budget (${Math.round(s.budget.ratio * 100)}%)` } }
      : { ...s, releases },
  text: ({ s, releases, parsed }, lang) => {
    const zh = lang === 'zh-cn';
    const lines = zh
      ? [`今天 ${formatCny(s.todayFen)}，本月 ${formatCny(s.monthFen)}（北京时间），现在每小时消耗 ${perHour(s.burnRate, lang)}`, `月底预计：${formatCny(s.projectedMonthEndFen)}`]
      : [`today ${formatCny(s.todayFen)}, this month ${formatCny(s.monthFen)} (Beijing time), burning ${perHour(s.burnRate)} now`, `projected month end: ${formatCny(s.projectedMonthEndFen)}`];
    if (s.budget.level !== 'none') {
      const pct = Math.round(s.budget.ratio * 100);
      const state = s.budget.level === 'exceeded' ? t(lang, 'OVER BUDGET', '超出预算') : s.budget.level === 'warning' ? t(lang, 'past 80% of the budget', '已超过预算的 80%') : t(lang, 'within budget', '在预算内');
      const passes = s.budget.projectedOver && s.budget.level !== 'exceeded' ? t(lang, '; the projection passes it before the month ends', '；按预测，月底前会超出') : '';
      lines.push(zh ? `预算 ${formatCny(s.budget.budgetFen)}：已用 ${pct}%，${state}${passes}` : `budget ${formatCny(s.budget.budgetFen)}: ${pct}% used, ${state}${passes}`);
    }
    if (s.perPlatform.length) {
      lines.push(t(lang, 'per platform:', '按平台：'));
      for (const p of s.perPlatform) lines.push(zh ? `  ${p.platform}：本月 ${formatCny(p.monthFen)}，现在 ${perHour(p.burnRate, lang)}` : `  ${p.platform}: ${formatCny(p.monthFen)} this month, ${perHour(p.burnRate)} now`);
    }
    if (s.perInstance.length) lines.push(t(lang, 'instances:', '实例：'));
    for (const inst of s.perInstance) {
      const name = parsed.instances.find((i) => i.id === inst.id)?.name ?? inst.id;
      lines.push(zh ? `  ${name}：${inst.state === 'spot' ? '抢占式运行中' : inst.state ? stateWord(lang, inst.state) : '?'} 已 ${durationText(inst.secondsInState, lang)}，本月 ${formatCny(inst.monthFen)}` : `  ${name}: ${inst.state ?? '?'} for ${durationText(inst.secondsInState)}, ${formatCny(inst.monthFen)} this month`);
    }
    for (const r of releases) {
      const text = releaseText(r.name, r.watch, lang);
      if (text && needsWarning(r.watch)) lines.push(`${t(lang, 'WARNING', '警告')} ${text}`);
    }
    return lines.join('\n') + '\n';
  },
  // Over the budget: exit 1 in both formats (the spend is the report).
  exit: ({ s }) => (s.budget.level === 'exceeded' ? 1 : 0),
});
