// `gpu-rent platforms`: the catalog, one platform per row, with what each figure is and when.
import { cardById } from '../../core/cards';
import { dating, formatDating, WARNING_TEXT, type Catalog, type FenRange, type NumRange, type Platform } from '../../core/catalog';
import { formatFenRange, formatNumRange, renderTable } from '../../core/format';
import { fenToYuan } from '../../core/money';
import { type FlagSpecs } from '../args';
import { loadCatalog } from '../catalog-file';
import type { CliCommand } from '../command';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { defineCommand } from '../define';
import { heads, t } from '../words';
import { quoteWords } from './quote-words';

const specs = {
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides and extra platforms, merged over the built-in catalog', zh: '覆盖内置价格目录的 JSON 文件（价格覆盖和额外平台）' },
  json: { type: 'boolean', description: 'print the catalog as JSON (yuan as numbers, ranges as [min, max])', zh: '以 JSON 输出价格目录（元为数字，范围为 [min, max]）' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const PERIOD = { hour: '/h', spot: '/h', day: '/day', week: '/week', month: '/month' } as const;

function yuanOf(r: FenRange | null): number | [number, number] | null {
  if (!r) return null;
  const a = fenToYuan(Math.round(r.min));
  const b = fenToYuan(Math.round(r.max));
  return a === b ? a : [a, b];
}

function numOf(r: NumRange | null): number | [number, number] | null {
  if (!r) return null;
  return r.min === r.max ? r.min : [r.min, r.max];
}

const PERIOD_ZH = { hour: '/小时', spot: '/小时', day: '/天', week: '/周', month: '/月' } as const;
const QUEUE_ZH: Record<Platform['queue']['level'], string> = { none: '不排队', low: '少', moderate: '中等', severe: '严重', unstable: '不稳定', unknown: '?' };

function noGpu(p: Platform, lang: CliLang = 'en'): string {
  const ng = p.noGpuMode;
  if (ng.support === 'notApplicable') return t(lang, 'n/a (bills while stopped)', '不适用（停机也计费）');
  if (ng.support === 'no') return t(lang, 'no', '无');
  if (ng.support === 'unknown') return '?';
  const rate = ng.hourlyRate ? t(lang, '{0}/h', '{0}/小时', formatFenRange(ng.hourlyRate)) : t(lang, 'rate ?', '价格 ?');
  return ng.support === 'partial' ? t(lang, 'partial, {0}', '部分支持，{0}', rate) : rate;
}

function disk(p: Platform, lang: CliLang = 'en'): string {
  const rate = p.dataDisk.fenPerGbDay ? t(lang, '{0}/GB/day', '{0}/GB/天', formatFenRange(p.dataDisk.fenPerGbDay)) : '?';
  if (p.dataDisk.bundled) return t(lang, 'bundled, {0}', '含在套餐内，{0}', rate);
  return rate;
}

function queue(p: Platform, lang: CliLang = 'en'): string {
  const q = p.queue;
  if (q.level === 'unknown') return '?';
  const zh = lang === 'zh-cn';
  const wait = q.waitMinutes ? (zh ? ` ${formatNumRange(q.waitMinutes, 0)} 分钟` : ` ${formatNumRange(q.waitMinutes, 0)} min`) : '';
  const peak = q.peakHours ? (zh ? `（${q.peakHours}）` : ` at ${q.peakHours}`) : '';
  return `${zh ? QUEUE_ZH[q.level] : q.level}${wait}${peak}`;
}

function prices(p: Platform, lang: CliLang = 'en'): string {
  const priced = p.prices.filter((x) => x.price);
  if (!priced.length) return t(lang, 'no price in the report', '报告中没有价格');
  const period = lang === 'zh-cn' ? PERIOD_ZH : PERIOD;
  return priced.map((x) => `${(cardById(x.card)?.name ?? x.card).replace(/ \d+GB$/, '')} ${formatFenRange(x.price!)}${period[x.mode]}`).join(lang === 'zh-cn' ? '，' : ', ');
}

function toJson(catalog: Catalog): unknown {
  return {
    currency: 'CNY',
    asOf: catalog.asOf,
    platforms: catalog.platforms.map((p) => ({
      id: p.id,
      name: p.name,
      kind: p.kind,
      billingModes: p.billingModes,
      prices: p.prices.map((x) => ({ card: x.card, mode: x.mode, yuan: yuanOf(x.price), source: x.source, asOf: x.asOf, ...(x.readAt ? { readAt: x.readAt } : {}), dated: formatDating(dating(x)), ...(x.note ? { note: x.note } : {}) })),
      dataDisk: { yuanPerGbDay: yuanOf(p.dataDisk.fenPerGbDay), bundled: p.dataDisk.bundled, source: p.dataDisk.source, asOf: p.dataDisk.asOf, ...(p.dataDisk.note ? { note: p.dataDisk.note } : {}) },
      systemDisk: p.systemDisk,
      noGpuMode: { support: p.noGpuMode.support, yuanPerHour: yuanOf(p.noGpuMode.hourlyRate), source: p.noGpuMode.source, asOf: p.noGpuMode.asOf },
      stoppedBills: p.stoppedBills,
      bandwidthMbps: { value: numOf(p.bandwidthMbps.value), yuanPerMonth: yuanOf(p.bandwidthMbps.fenPerMonth), source: p.bandwidthMbps.source, asOf: p.bandwidthMbps.asOf, ...(p.bandwidthMbps.note ? { note: p.bandwidthMbps.note } : {}) },
      rootAccess: p.rootAccess,
      queue: { ...p.queue, waitMinutes: p.queue.waitMinutes ? numOf(p.queue.waitMinutes) : undefined },
      access: p.access,
      image: p.image,
      releaseAfterStoppedDays: p.releaseAfterStoppedDays ? { ...p.releaseAfterStoppedDays, value: numOf(p.releaseAfterStoppedDays.value) } : null,
      spot: p.spot,
      freeQuotaHours: p.freeQuotaHours ? { ...p.freeQuotaHours, value: numOf(p.freeQuotaHours.value) } : null,
      warnings: p.warnings.map((w) => ({ code: w, ...WARNING_TEXT[w] })),
      source: p.source,
      asOf: p.asOf,
      ...(p.readAt ? { readAt: p.readAt } : {}),
      dated: formatDating(dating(p)),
      ...(p.note ? { note: p.note } : {}),
    })),
  };
}

export const command: CliCommand = defineCommand({
  name: 'platforms',
  summary: 'list the platforms in the price catalog, with prices, disk, no-GPU mode, bandwidth, queues',
  summaryZh: '列出价格目录中的平台：价格、磁盘、无卡模式、带宽、排队',
  usage: 'gpu-rent platforms [--catalog FILE] [--json]',
  about: 'Lists every platform the field report names, with its figures and their dates. "?" means the\nreport names the thing but gives no figure.',
  aboutZh: '列出实测报告提到的每个平台，附数据及其日期。"?" 表示报告提到了这一项但没有给出数字。',
  flags: specs,
  positionals: { max: 0 },
  run: async (flags) => loadCatalog(flags.catalog),
  json: toJson,
  text: (catalog, lang) => {
    const zh = lang === 'zh-cn';
    const w = quoteWords(lang);
    // Heads as before in English (mixed case); in Chinese the extension's word where it has one.
    const head = zh ? heads(lang, [['ID', 'ID'], ['PLATFORM', '平台'], ['MODES', '计费方式'], ['DATA DISK', '数据盘'], ['NO-GPU MODE', '无卡模式'], ['MBPS', '带宽 Mbps'], ['ROOT', 'root'], ['QUEUE', '排队'], ['DATED', '日期']]) : ['Id', 'Platform', 'Modes', 'Data disk', 'No-GPU mode', 'Mbps', 'Root', 'Queue', 'Dated'];
    const rows = catalog.platforms.map((p) => [
      p.id,
      p.name.zh,
      (zh ? p.billingModes.map((m) => w.mode(m)) : p.billingModes).join('/') || '?',
      disk(p, lang),
      noGpu(p, lang),
      p.bandwidthMbps.value ? formatNumRange(p.bandwidthMbps.value) : '?',
      p.rootAccess === null ? '?' : p.rootAccess ? t(lang, 'yes', '有') : t(lang, 'no', '无'),
      queue(p, lang),
      w.dating(dating(p), formatDating(dating(p))),
    ]);
    let out = renderTable([head, ...rows]);
    out += t(lang, '\nPrices per GPU:\n', '\n每张 GPU 的价格：\n');
    for (const p of catalog.platforms) {
      const extra: string[] = [];
      if (p.access.enterpriseVerification) extra.push(t(lang, 'enterprise verification required', '需要企业认证'));
      if (p.access.minRentalDays) extra.push(t(lang, 'minimum rental {0} days', '最短租期 {0} 天', p.access.minRentalDays));
      if (p.spot) extra.push(t(lang, 'spot ~{0}% cheaper, reclaimable', '抢占式便宜约 {0}%，可能被回收', Math.round(p.spot.discount * 100)));
      if (p.freeQuotaHours) extra.push(p.freeQuotaHours.value ? t(lang, 'free quota ~{0} h', '免费额度约 {0} 小时', formatNumRange(p.freeQuotaHours.value)) : t(lang, 'free quota unstable', '免费额度不稳定'));
      if (p.stoppedBills === 'everything') extra.push(t(lang, 'bills while stopped', '停机也计费'));
      if (p.stoppedBills === 'dataLost') extra.push(t(lang, 'stopping wiped the data disk', '关机清空了数据盘'));
      out += zh ? `  ${p.name.zh}（${p.id}）：${prices(p, lang)}${extra.length ? `；${extra.join('；')}` : ''}\n` : `  ${p.name.zh} (${p.id}): ${prices(p)}${extra.length ? `; ${extra.join('; ')}` : ''}\n`;
    }
    out += zh
      ? '\n? = 报告提到了但没有给出数字。实测报告的数字没有注明日期：它只说价格是在测试那一周采集的（价格采集时间是我实测那一周），所以没有一个显示得比那更新。--json 给出每个数字的来源和日期。\n'
      : `\n? = named in the report without a figure. The field report's figures are undated: it says only that prices were collected in the week of its tests (价格采集时间是我实测那一周), so none is shown as fresher than that. --json gives each figure's source and date.\n`;
    return out;
  },
});
