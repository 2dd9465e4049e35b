// Every word `gpu-rent quote` prints, in English and Simplified Chinese. Where the extension's
// l10n bundle already holds the same English string, its Chinese is used (bundled by esbuild).
import type { BillingMode } from '../../core/catalog';
import type { IdleBasis } from '../../core/cost';
import type { Dating } from '../../core/format';
import type { QuoteLang } from '../../core/quote-notes';
import { fill, shared } from '../words';

export { shared };

export interface QuoteWords {
  /** formatHours' "15 h" / "30 min" / "5 s" / "3.2 d" in this language. */
  hours: (formatted: string) => string;
  dating: (d: Dating, en: string) => string;
  mode: (m: BillingMode) => string;
  period: Record<BillingMode, string>;
  head: { platform: string; card: string; billing: string; hours: string; gpu: string; disk: string; idle: string; download: string; rework: string; total: string; price: string; startNow: string };
  idleTag: Record<IdleBasis, string>;
  inPlan: string;
  diskOnly: string;
  // header
  jobDefault: (hours: string, card: string) => string;
  quotedOn: (card: string) => string;
  jobSteps: (hours: string, card: string) => string;
  jobHours: (hours: string, card: string) => string;
  job: (text: string) => string;
  gpusPerInstance: (n: number) => string;
  gpusEstimate: (speedup: string) => string;
  gpusMeasured: (speedup: number) => string;
  dataDisk: (gb: number, days: number) => string;
  idleHours: (h: number) => string;
  download: (gb: number) => string;
  needsVram: (gb: number) => string;
  spot: (reclaims: number, every: string) => string;
  sep: string;
  end: string;
  prices: (dates: string) => string;
  // footnotes
  cheapest: (what: string, total: string) => string;
  whySpot: (hours: string, limit: number) => string;
  whyUnpriced: (what: string[]) => string;
  unpricedPart: (part: string) => string;
  notStarred: (list: string) => string;
  estimated: (card: string, to4090: string) => string;
  idleText: Partial<Record<IdleBasis, string>>;
  idleFoot: (list: string) => string;
  unpricedFoot: string;
  spotFoot: string;
  rangesFoot: string;
  downloading: (gb: number, list: string, atGpuRate: boolean) => string;
  breakEvenUnit: Record<string, string>;
  breakEvenPart: (longer: string, shorter: string, units: string, unit: string) => string;
  breakEven: (platform: string, card: string, parts: string) => string;
  notQuoted: (list: string) => string;
  skipNoPrices: (name: string) => string;
  skipNoFigure: (name: string, card: string, mode: string) => string;
  skipVramShort: (name: string, card: string, has: string, needs: number) => string;
  skipCardNotPriced: (name: string, card: string) => string;
  skipNoSpeed: (name: string, card: string) => string;
  skipBeyondBounds: (name: string, card: string, mode: string) => string;
  spotWord: string;
  vramFlagHint: string;
  warnings: string;
  ref: (ref: string) => string;
  listSep: string;
  itemSep: string;
  /** "name: text" */
  colon: string;
  /** "text (aside)" */
  aside: (text: string, aside: string) => string;
  noRows: (card: string | undefined) => string;
  // --stock
  stockRead: (time: string, ok: number, all: number) => string;
  stockFailed: (account: string, error: string) => string;
  stockNoAccounts: string;
}

const en: QuoteWords = {
  hours: (s) => s,
  dating: (_d, text) => text,
  mode: (m) => m,
  period: { hour: '/h', spot: '/h spot', day: '/day', week: '/week', month: '/month' },
  head: { platform: 'Platform', card: 'Card', billing: 'Billing', hours: 'Hours', gpu: 'GPU', disk: 'Disk', idle: 'Idle', download: 'Download', rework: 'Rework', total: 'Total', price: 'Price (dated)', startNow: 'Start now' },
  idleTag: { noGpuMode: 'no-GPU', fullRate: 'full rate', keptRunning: 'kept running', storageOnly: 'disk only', inPlan: 'in plan', unpriced: '?', none: '' },
  inPlan: 'in plan',
  diskOnly: '¥0 disk only',
  jobDefault: (h, c) => `${h} on one ${c}, 5 h on one RTX 4090 (the report's ChatGLM3-6B LoRA, 3 epochs, both measured)`,
  quotedOn: (c) => `, quoted on ${c}`,
  jobSteps: (h, c) => `${h} on one ${c} (measured steps × seconds per step)`,
  jobHours: (h, c) => `${h} on one ${c}`,
  job: (t) => `Job: ${t}`,
  gpusPerInstance: (n) => `${n} GPU${n === 1 ? '' : 's'} per instance`,
  gpusEstimate: (x) => ` (~${x}× one card: estimate beyond the report's measurement of 2 cards = 1.6×)`,
  gpusMeasured: (x) => ` (${x}× one card, as the report measured)`,
  dataDisk: (gb, d) => `data disk ${gb} GB${d ? ` kept ${d} day${d === 1 ? '' : 's'}` : ' (kept while the job runs)'}`,
  idleHours: (h) => `${h} idle h`,
  download: (gb) => `${gb} GB download`,
  needsVram: (gb) => `needs ${gb} GB VRAM`,
  spot: (r, every) => `spot: ${r} reclaims/h, checkpoint every ${every}`,
  sep: ', ',
  end: '.',
  prices: (dates) => `Prices: ${dates}. Change any of this with flags; see --help.`,
  cheapest: (what, total) => `* cheapest completed job: ${what}, ${total}.`,
  whySpot: (h, limit) => `spot for a ${h} job (the report: spot only for ≤ ${limit} h)`,
  whyUnpriced: (what) => `a cost without a figure (${what.join(', ')})`,
  unpricedPart: (p) => p,
  notStarred: (list) => `  Not starred although cheaper: ${list}.`,
  estimated: (card, x) =>
    `~ hours estimated: other cards from FP16 TFLOPS relative to the ${card} (4090 vs 3090: ${x}×; the report measured 2.2× per step, 3× wall-clock); 2 cards = 1.6× one (measured), more cards ×1.6 per doubling (estimate). Give --card with --gpu-hours or --sec-per-step for a measured time.`,
  idleText: {
    noGpuMode: 'no-GPU = the no-GPU-mode rate, billed on top of the data disk per day',
    fullRate: 'full rate = the whole instance bills while it exists, stopped or not',
    keptRunning: 'kept running = stopping wipes the data disk there, so the instance runs at the GPU rate',
    storageOnly: 'disk only = a stopped instance bills only its data disk',
    inPlan: 'in plan = the day/week/month plan already holds the card',
    unpriced: '? = the platform has a stopped mode but no figure',
  },
  idleFoot: (list) => `Idle hours: ${list}.`,
  unpricedFoot: '? the report gives no figure for that cost: it is left out of the total (+?), and the row is never starred.',
  spotFoot:
    'Spot rework: each reclaim loses the work since the last checkpoint, never more than the work done so far (on average half an interval, or half the job when the interval is longer); the report lost hour 2 of an 8 h run with no checkpoint.',
  rangesFoot: "Ranges are the report's price ranges; rows sort by the midpoint.",
  downloading: (gb, list, atGpuRate) => `Downloading ${gb} GB takes: ${list}${atGpuRate ? ' (billed at the GPU rate; --download-no-gpu for no-GPU mode)' : ''}.`,
  breakEvenUnit: { hour: 'h', day: 'days', week: 'weeks' },
  breakEvenPart: (longer, shorter, units, unit) => `${longer} beats ${shorter} above ${units} ${unit} per ${longer}`,
  breakEven: (p, c, parts) => `Break-even on ${p} ${c}: ${parts}.`,
  notQuoted: (list) => `Not quoted: ${list}.`,
  skipNoPrices: (n) => `${n}: no price in the report`,
  skipNoFigure: (n, c, m) => `${n}${c} ${m}: offered, but the report gives no figure`,
  skipVramShort: (n, c, has, needs) => `${n}${c}: ${has} GB VRAM < ${needs} GB needed`,
  skipCardNotPriced: (n, c) => `${n}: no${c} price in the catalog`,
  skipNoSpeed: (n, c) => `${n}${c}: no FP16 figure to estimate its speed`,
  skipBeyondBounds: (n, c, m) => `${n}${c} ${m}: the total would pass ¥10,000,000,000 (check the inputs)`,
  spotWord: ' spot',
  vramFlagHint: ' (--vram-gb)',
  warnings: 'Warnings:',
  ref: (ref) => (ref.startsWith('§') ? `report ${ref}` : ref),
  listSep: '; ',
  itemSep: ', ',
  colon: ': ',
  aside: (t, a) => `${t} (${a})`,
  noRows: (card) => `No platform in the catalog has a price for this selection${card ? ` (the field report gives no ${card} price)` : ''}; add one with --catalog FILE.`,
  stockRead: (time, ok, all) => `Start now: free cards read at ${time} UTC from ${ok} of ${all} account${all === 1 ? '' : 's'} (each read at most once a minute); rows of platforms without an account are not marked.`,
  stockFailed: (a, e) => `  ${a}: the free cards could not be read (${e}); its rows say not checked.`,
  stockNoAccounts: 'Start now: no platform account is configured, so nothing was checked (gpu-rent accounts add …; see gpu-rent accounts --help).',
};

const ZH_MODE: Record<BillingMode, string> = { hour: '按小时', spot: '竞价', day: '按天', week: '包周', month: '包月' };
const ZH_PER: Record<string, string> = { 按天: '天', 包周: '周', 包月: '月' };
const ZH_UNIT: Record<string, string> = { h: '小时', min: '分钟', s: '秒', d: '天' };

const zh: QuoteWords = {
  // "15 h" → "15 小时" (the extension's "{0} h"); the number is formatHours' own.
  hours: (s) => {
    const at = s.lastIndexOf(' ');
    if (at < 0) return s;
    const unit = s.slice(at + 1);
    const value = s.slice(0, at);
    return unit === 'h' ? fill(shared('{0} h', '{0} 小时'), value) : ZH_UNIT[unit] ? `${value} ${ZH_UNIT[unit]}` : s;
  },
  dating: (d, text) => {
    switch (d.kind) {
      case 'readAt':
        return `读取于 ${d.at.slice(0, 16).replace('T', ' ')}${d.at.endsWith('Z') ? ' UTC' : ''}`;
      case 'asOf':
        return `截至 ${d.date}`;
      case 'reportTestWeek':
        return '未注明日期，实测报告测试当周';
      case 'unknown':
        return '日期未知';
      default:
        return text;
    }
  },
  mode: (m) => ZH_MODE[m],
  period: { hour: '/小时', spot: '/小时 竞价', day: '/天', week: '/周', month: '/月' },
  head: { platform: shared('Platform', '平台'), card: shared('Card', '显卡'), billing: shared('Billing', '计费'), hours: '时长', gpu: 'GPU', disk: '数据盘', idle: '停机', download: '下载', rework: '返工', total: '合计', price: '价格（日期）', startNow: '立即开机' },
  idleTag: { noGpuMode: '无卡', fullRate: '全价', keptRunning: '保持开机', storageOnly: '仅数据盘', inPlan: '含在套餐', unpriced: '?', none: '' },
  inPlan: '含在套餐',
  diskOnly: '¥0 仅数据盘',
  jobDefault: (h, c) => `一张 ${c} 上 ${h}，一张 RTX 4090 上 5 小时（报告的 ChatGLM3-6B LoRA，3 个 epoch，均为实测）`,
  quotedOn: (c) => `，按 ${c} 报价`,
  jobSteps: (h, c) => `一张 ${c} 上 ${h}（实测步数 × 每步秒数）`,
  jobHours: (h, c) => `一张 ${c} 上 ${h}`,
  job: (t) => `任务：${t}`,
  gpusPerInstance: (n) => `每个实例 ${n} 张卡`,
  gpusEstimate: (x) => `（约为单卡的 ${x} 倍：超出报告实测范围的估算，报告实测 2 卡 = 1.6 倍）`,
  gpusMeasured: (x) => `（单卡的 ${x} 倍，报告实测）`,
  dataDisk: (gb, d) => `数据盘 ${gb} GB${d ? `，保留 ${d} 天` : '（任务运行期间保留）'}`,
  idleHours: (h) => `停机保留 ${h} 小时`,
  download: (gb) => `下载 ${gb} GB`,
  needsVram: (gb) => `需要 ${gb} GB 显存`,
  spot: (r, every) => `竞价：每小时回收 ${r} 次，检查点间隔 ${every}`,
  sep: '，',
  end: '。',
  prices: (dates) => `价格：${dates}。以上任何一项都可用参数修改，见 --help。`,
  cheapest: (what, total) => `* 完成任务最便宜：${what}，${total}。`,
  whySpot: (h, limit) => `${h}的任务用竞价实例，报告只在 ≤ ${limit} 小时的任务上用竞价`,
  whyUnpriced: (what) => `有费用没有数字（${what.join('、')}）`,
  unpricedPart: (p) => ({ storage: '数据盘', idle: '停机', download: '下载' })[p] ?? p,
  notStarred: (list) => `  更便宜但不标星：${list}。`,
  estimated: (card, x) =>
    `~ 时长为估算：其他卡按相对 ${card} 的 FP16 TFLOPS 折算（4090 对 3090：${x} 倍；报告实测每步 2.2 倍，总时长 3 倍）；2 卡 = 单卡 1.6 倍（实测），更多卡每翻一倍 ×1.6（估算）。用 --card 加 --gpu-hours 或 --sec-per-step 给出实测时长。`,
  idleText: {
    noGpuMode: '无卡 = 无卡模式的价格，另加每天的数据盘费',
    fullRate: '全价 = 实例存在期间整机计费，关机也算',
    keptRunning: '保持开机 = 该平台关机会清空数据盘，所以实例按 GPU 价格一直开着',
    storageOnly: '仅数据盘 = 关机的实例只收数据盘费',
    inPlan: '含在套餐 = 按天/包周/包月的套餐已包含这张卡',
    unpriced: '? = 平台有关机模式但没有价格数字',
  },
  idleFoot: (list) => `停机时长：${list}。`,
  unpricedFoot: '? 报告没有给出这项费用的数字：它不计入合计（+?），该行不标星。',
  spotFoot: '竞价返工：每次回收丢失自上次检查点以来的工作，不会超过已完成的工作（平均为半个间隔，间隔更长时为任务的一半）；报告中一次没有检查点的 8 小时任务丢了第 2 小时。',
  rangesFoot: '区间是报告给出的价格区间；各行按中点排序。',
  downloading: (gb, list, atGpuRate) => `下载 ${gb} GB 需要：${list}${atGpuRate ? '（按 GPU 价格计费；用 --download-no-gpu 改为无卡模式）' : ''}。`,
  breakEvenUnit: { hour: '小时', day: '天', week: '周' },
  breakEvenPart: (longer, shorter, units, unit) => `${longer}比${shorter}便宜：每${ZH_PER[longer] ?? longer}超过 ${units} ${unit}`,
  breakEven: (p, c, parts) => `${p} ${c} 的盈亏平衡点：${parts}。`,
  notQuoted: (list) => `未报价：${list}。`,
  skipNoPrices: (n) => `${n}：报告中没有价格`,
  skipNoFigure: (n, c, m) => `${n}${c} ${m}：有此计费方式，但报告没有给出数字`,
  skipVramShort: (n, c, has, needs) => `${n}${c}：显存 ${has} GB < 需要的 ${needs} GB`,
  skipCardNotPriced: (n, c) => `${n}：价格表中没有${c} 的价格`,
  skipNoSpeed: (n, c) => `${n}${c}：没有 FP16 数字，无法估算速度`,
  skipBeyondBounds: (n, c, m) => `${n}${c} ${m}：合计会超过 ¥10,000,000,000（请检查输入）`,
  spotWord: ' 竞价',
  vramFlagHint: '（--vram-gb）',
  warnings: '注意事项：',
  ref: (ref) => (ref.startsWith('§') ? `报告 ${ref}` : ref === 'platform docs' ? '平台文档' : ref),
  listSep: '；',
  itemSep: '，',
  colon: '：',
  aside: (t, a) => `${t}（${a}）`,
  noRows: (card) => `价格表中没有平台给出这一选择的价格${card ? `（实测报告没有 ${card} 的价格）` : ''}；可用 --catalog FILE 添加。`,
  stockRead: (time, ok, all) => `立即开机：空闲卡读取于 ${time} UTC，来自 ${all} 个账号中的 ${ok} 个（每个账号每分钟最多读一次）；没有账号的平台不标注。`,
  stockFailed: (a, e) => `  ${a}：无法读取空闲卡（${e}）；它的各行标为未检查。`,
  stockNoAccounts: '立即开机：没有配置平台账号，所以什么都没有检查（gpu-rent accounts add …；见 gpu-rent accounts --help）。',
};

export function quoteWords(lang: QuoteLang): QuoteWords {
  return lang === 'zh-cn' ? zh : en;
}
