// `gpu-rent peak`: is it the evening queue (19:00–23:00 Beijing) on platforms that have one,
// the report's advice, and keeping the box overnight in no-GPU mode versus releasing it.
import { formatCny } from '../../../core/money';
import { peakCheck, type PeakAdviceCode, type PeakCheck } from '../../../core/guards/peak';
import { defineCommand } from '../../define';
import { LANG_FLAG_SPEC, type CliLang } from '../../lang';
import type { Catalog } from '../../../core/catalog';
import { loadCatalog } from '../../catalog-file';
import type { CliCommand } from '../../command';
import { AT_FLAG, nowFromFlag } from './clock';
import { beijingText, durationText, factsOf, platformFromFlag, pricingFromFlags, PRICING_FLAGS } from './pricing';

const specs = { ...PRICING_FLAGS, ...AT_FLAG, json: { type: 'boolean', description: 'print the check as JSON', zh: '以 JSON 输出检查结果' }, lang: LANG_FLAG_SPEC } as const;

const USAGE = 'gpu-rent peak [--platform ID [--card CARD | --rate YUAN] [--disk-gb GB]] [--at ISO-TIME]';
const SUMMARY =
  'Evening peak hours (19:00–23:00 Beijing time, whatever your computer’s time zone) on platforms with evening queues, the field report’s advice (start the card during the day, keep the box overnight without a card), and what keeping it overnight costs compared with releasing it.';

const ADVICE: Record<PeakAdviceCode, string> = {
  startInDaytime: 'Start cards during the day and run batches then; starting one now means queueing.',
  keepOvernightInNoGpuMode: 'At the end of the day keep the instance in no-GPU mode with its data disk, and continue tomorrow on the card without queueing again.',
  keepOvernightStopped: 'At the end of the day stop the instance (the disk stays) rather than release it.',
  syncBeforeStopping: 'A shutdown clears the disk on this platform: sync checkpoints home before stopping.',
};

const ADVICE_ZH: Record<PeakAdviceCode, string> = {
  startInDaytime: '白天开卡，在白天跑批量任务；现在开卡要排队。',
  keepOvernightInNoGpuMode: '一天结束时把实例保持在无卡模式并保留数据盘，明天不用再排队就能继续用卡。',
  keepOvernightStopped: '一天结束时关机（磁盘保留），不要释放。',
  syncBeforeStopping: '在这个平台上关机会清空磁盘：关机前先把检查点同步回本地。',
};

function describeZh(c: PeakCheck, name: string): string[] {
  const lang: CliLang = 'zh-cn';
  if (c.kind === 'noEveningQueue') return [`${name}：没有晚间排队的报告`];
  const hours = `北京时间 ${String(c.queue.fromHour).padStart(2, '0')}:00–${String(c.queue.toHour).padStart(2, '0')}:00`;
  if (c.kind === 'offPeak') return [`${name}：非高峰；晚间排队（${hours}）从${beijingText(c.nextPeakStart, lang)} 开始`];
  const lines = [`${name}：高峰时段（${hours}），到${beijingText(c.peakEnds, lang)} 为止；抢到卡预计要等 ${durationText(c.waitSeconds[0], lang)}–${durationText(c.waitSeconds[1], lang)}`];
  for (const a of c.advice) lines.push(`  ${ADVICE_ZH[a]}`);
  if (c.overnight) {
    const o = c.overnight;
    lines.push(`  过夜到${beijingText(o.until, lang)}（${durationText(o.seconds, lang)}）：`);
    if (o.noGpuModeFen !== null) lines.push(`    保持无卡模式：${formatCny(o.noGpuModeFen)}（数据保留，明天不用排队）`);
    lines.push(`    关机：${formatCny(o.stopFen)}${c.advice.includes('syncBeforeStopping') ? '（磁盘会被清空！）' : '（数据保留）'}`);
    lines.push(`    释放：${formatCny(o.releaseFen)}，但数据盘会被删除，明天要从一台新机器开始`);
  }
  return lines;
}

function describe(c: PeakCheck, name: string, lang: CliLang = 'en'): string[] {
  if (lang === 'zh-cn') return describeZh(c, name);
  if (c.kind === 'noEveningQueue') return [`${name}: no evening queue reported`];
  const hours = `${String(c.queue.fromHour).padStart(2, '0')}:00–${String(c.queue.toHour).padStart(2, '0')}:00 Beijing`;
  if (c.kind === 'offPeak') return [`${name}: off peak; the evening queue (${hours}) starts ${beijingText(c.nextPeakStart)}`];
  const lines = [`${name}: PEAK HOURS (${hours}) until ${beijingText(c.peakEnds)}; expect to wait ${durationText(c.waitSeconds[0])}–${durationText(c.waitSeconds[1])} for a card`];
  for (const a of c.advice) lines.push(`  ${ADVICE[a]}`);
  if (c.overnight) {
    const o = c.overnight;
    lines.push(`  Overnight until ${beijingText(o.until)} (${durationText(o.seconds)}):`);
    if (o.noGpuModeFen !== null) lines.push(`    keep in no-GPU mode: ${formatCny(o.noGpuModeFen)} (data kept, no queue tomorrow)`);
    lines.push(`    stop: ${formatCny(o.stopFen)}${c.advice.includes('syncBeforeStopping') ? ' (disk cleared!)' : ' (data kept)'}`);
    lines.push(`    release: ${formatCny(o.releaseFen)}, but the data disk is deleted and tomorrow starts from a new box`);
  }
  return lines;
}

const SUMMARY_ZH = '有晚间排队的平台的晚高峰时段（北京时间 19:00–23:00，与你电脑的时区无关）、实测报告的建议（白天开卡，夜里不带卡保留机器），以及过夜保留与释放的花费比较。';

type Peak = { now: number; one: boolean; checks: { platform: Catalog['platforms'][number]; check: PeakCheck }[] };

export const command: CliCommand = defineCommand({
  name: 'peak',
  summary: 'Evening peak hours (Beijing time) and the overnight no-GPU-mode vs release comparison.',
  summaryZh: '晚高峰时段（北京时间），以及过夜用无卡模式还是释放的比较。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 0 },
  run: async (flags): Promise<Peak> => {
    const now = nowFromFlag(flags.at);
    const catalog = loadCatalog(flags.catalog);
    const platform = platformFromFlag(catalog, flags.platform);
    const list = platform ? [platform] : catalog.platforms;
    return { now, one: platform !== null, checks: list.map((p) => ({ platform: p, check: peakCheck(factsOf(p), now, platform ? (pricingFromFlags(flags, platform, catalog) ?? undefined) : undefined) })) };
  },
  json: ({ now, checks }) => ({ now, checks: checks.map((c) => ({ ...c.check, platform: c.platform.id })) }),
  text: ({ now, one, checks }, lang) => {
    const shown = one ? checks : checks.filter((c) => c.check.kind !== 'noEveningQueue');
    const lines = [lang === 'zh-cn' ? `现在是${beijingText(now, lang)}` : `Beijing time now: ${beijingText(now)}`];
    for (const c of shown) lines.push(...describe(c.check, lang === 'zh-cn' ? `${c.platform.name.zh}（${c.platform.id}）` : `${c.platform.name.zh} (${c.platform.id})`, lang));
    return lines.join('\n') + '\n';
  },
});
