// `gpu-rent platforms`: the catalog, one platform per row, with what each figure is and when.
import { cardById } from '../../core/cards';
import { dating, formatDating, WARNING_TEXT, type Catalog, type FenRange, type NumRange, type Platform } from '../../core/catalog';
import { formatFenRange, formatNumRange, renderTable } from '../../core/format';
import { fenToYuan } from '../../core/money';
import { formatHelp, parseArgs, type FlagSpecs } from '../args';
import { loadCatalog } from '../catalog-file';
import type { CliCommand } from '../command';
import { LANG_FLAG_SPEC } from '../lang';
import { helpLang } from '../words';

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

function noGpu(p: Platform): string {
  const ng = p.noGpuMode;
  if (ng.support === 'notApplicable') return 'n/a (bills while stopped)';
  if (ng.support === 'no') return 'no';
  if (ng.support === 'unknown') return '?';
  const rate = ng.hourlyRate ? `${formatFenRange(ng.hourlyRate)}/h` : 'rate ?';
  return ng.support === 'partial' ? `partial, ${rate}` : rate;
}

function disk(p: Platform): string {
  if (p.dataDisk.bundled) return p.dataDisk.fenPerGbDay ? `bundled, ${formatFenRange(p.dataDisk.fenPerGbDay)}/GB/day` : 'bundled, ?';
  return p.dataDisk.fenPerGbDay ? `${formatFenRange(p.dataDisk.fenPerGbDay)}/GB/day` : '?';
}

function queue(p: Platform): string {
  const q = p.queue;
  if (q.level === 'unknown') return '?';
  const wait = q.waitMinutes ? ` ${formatNumRange(q.waitMinutes, 0)} min` : '';
  const peak = q.peakHours ? ` at ${q.peakHours}` : '';
  return `${q.level}${wait}${peak}`;
}

function prices(p: Platform): string {
  const priced = p.prices.filter((x) => x.price);
  if (!priced.length) return 'no price in the report';
  return priced.map((x) => `${(cardById(x.card)?.name ?? x.card).replace(/ \d+GB$/, '')} ${formatFenRange(x.price!)}${PERIOD[x.mode]}`).join(', ');
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

export const command: CliCommand = {
  name: 'platforms',
  summary: 'list the platforms in the price catalog, with prices, disk, no-GPU mode, bandwidth, queues',
  summaryZh: '列出价格目录中的平台：价格、磁盘、无卡模式、带宽、排队',
  help: (ctx) =>
    formatHelp(
      'gpu-rent platforms [--catalog FILE] [--json]',
      'Lists every platform the field report names, with its figures and their dates. "?" means the\nreport names the thing but gives no figure.',
      specs,
      helpLang(ctx),
      '列出实测报告提到的每个平台，附数据及其日期。"?" 表示报告提到了这一项但没有给出数字。',
    ),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    const catalog = loadCatalog(flags.catalog);
    if (flags.json) {
      io.stdout(JSON.stringify(toJson(catalog), null, 2) + '\n');
      return 0;
    }
    const head = ['Id', 'Platform', 'Modes', 'Data disk', 'No-GPU mode', 'Mbps', 'Root', 'Queue', 'Dated'];
    const rows = catalog.platforms.map((p) => [
      p.id,
      p.name.zh,
      p.billingModes.join('/') || '?',
      disk(p),
      noGpu(p),
      p.bandwidthMbps.value ? formatNumRange(p.bandwidthMbps.value) : '?',
      p.rootAccess === null ? '?' : p.rootAccess ? 'yes' : 'no',
      queue(p),
      formatDating(dating(p)),
    ]);
    let out = renderTable([head, ...rows]);
    out += '\nPrices per GPU:\n';
    for (const p of catalog.platforms) {
      const extra: string[] = [];
      if (p.access.enterpriseVerification) extra.push('enterprise verification required');
      if (p.access.minRentalDays) extra.push(`minimum rental ${p.access.minRentalDays} days`);
      if (p.spot) extra.push(`spot ~${Math.round(p.spot.discount * 100)}% cheaper, reclaimable`);
      if (p.freeQuotaHours) extra.push(`free quota ${p.freeQuotaHours.value ? `~${formatNumRange(p.freeQuotaHours.value)} h` : 'unstable'}`);
      if (p.stoppedBills === 'everything') extra.push('bills while stopped');
      if (p.stoppedBills === 'dataLost') extra.push('stopping wiped the data disk');
      out += `  ${p.name.zh} (${p.id}): ${prices(p)}${extra.length ? `; ${extra.join('; ')}` : ''}\n`;
    }
    out += `\n? = named in the report without a figure. The field report's figures are undated: it says only that prices were collected in the week of its tests (价格采集时间是我实测那一周), so none is shown as fresher than that. --json gives each figure's source and date.\n`;
    io.stdout(out);
    return 0;
  },
};
