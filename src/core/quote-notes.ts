// A quote row's notes (core/cost RowNote, less the catalog's warning codes) in English and
// Simplified Chinese: the words `gpu-rent quote` and the calculator both print for a code.
import type { RowNote } from './cost';
import type { WarningCode } from './catalog';
import { formatCny } from './money';
import type { FreePlace, StartNow } from './startNow';

export type QuoteNoteCode = Exclude<RowNote, WarningCode>;
export type QuoteLang = 'en' | 'zh-cn';

export const QUOTE_NOTE_TEXT: Readonly<Record<QuoteNoteCode, { en: string; zh: string }>> = {
  hoursEstimated: {
    en: 'hours estimated from the card’s speed relative to the reference card',
    zh: '时长按此卡相对参考卡的算力估算',
  },
  vramShort: {
    en: 'has less VRAM than the job needs',
    zh: '显存少于任务所需',
  },
  noCuda: {
    en: 'cannot run CUDA code: PyTorch needs an Ascend-adapted container and custom CUDA ops fail (report §3)',
    zh: '无法运行 CUDA 代码：PyTorch 需要适配昇腾的容器，自定义 CUDA 算子会失败（报告 §3）',
  },
  exceedsFreeQuota: {
    en: 'the job runs longer than the free quota',
    zh: '任务时长超出免费额度',
  },
  spotLongJob: {
    en: 'runs over 1 h on spot, never starred: the report only uses spot for jobs of 1 h or less ("正式训练绝不用"); its one 8 h spot run was reclaimed at hour 2 and lost everything. A gpu-rent launch with checkpoints and resume moves a reclaimed run to another box from its last checkpoint (a reclaim then costs one sync interval)',
    zh: '竞价实例上运行超过 1 小时，不标星：报告只在 1 小时以内的任务上用竞价实例（“正式训练绝不用”）；它唯一一次 8 小时的竞价任务在第 2 小时被回收，全部白跑。用 gpu-rent launch（设置 checkpoints 和 resume）时，被回收的任务会从最后一个检查点换一台机器接着跑（一次回收只损失一个同步间隔）',
  },
  storageBundled: {
    en: 'storage is part of the instance price',
    zh: '存储费已含在实例价格中',
  },
  idleKeptRunning: {
    en: 'idle hours billed at the full rate: stopping wipes the data disk here, so the instance stays running',
    zh: '空闲时间按全价计费：该平台关机会清空数据盘，所以实例一直开着',
  },
  storageBundledUnpriced: {
    en: 'data disk bundled with the instance (the report: CPU, RAM, system disk, data disk and bandwidth are paid with the GPU) and the catalog has no figure: ?, never starred',
    zh: '数据盘与实例绑定（报告：CPU、内存、系统盘、数据盘和带宽随 GPU 一起付费），价格表没有数字：?，不标星',
  },
  bandwidthBundledUnpriced: {
    en: 'bandwidth is bought separately by the month (the report: even 1 Mbps costs tens of yuan) and the catalog has no figure: ?, never starred',
    zh: '带宽按月另购（报告：1 Mbps 也要几十元），价格表没有数字：?，不标星',
  },
  multiGpuPcie: {
    en: 'multi-GPU over PCIe: the report measured 2×4090 at 1.6× one card',
    zh: '多卡走 PCIe：报告实测 2×4090 为单卡的 1.6 倍',
  },
  multiGpuEstimate: {
    en: "more cards than the report measured: the speed-up is an estimate beyond the report's measurement (each doubling ×1.6; its 4-card PCIe instances lose badly)",
    zh: '卡数超出报告实测：加速比是超出实测范围的估算（每翻一倍 ×1.6；报告中 4 卡 PCIe 实例损失严重）',
  },
  priceDerived: {
    en: 'spot price derived as hourly minus the ~20% spot discount',
    zh: '竞价价格按小时价减去约 20% 的竞价折扣推算',
  },
};

export function isQuoteNoteCode(code: string): code is QuoteNoteCode {
  return Object.prototype.hasOwnProperty.call(QUOTE_NOTE_TEXT, code);
}

/** The words for a note code, or undefined for a code that is not a row note (a catalog warning). */
export function quoteNoteText(code: string, lang: QuoteLang): string | undefined {
  if (!isQuoteNoteCode(code)) return undefined;
  const t = QUOTE_NOTE_TEXT[code];
  return lang === 'zh-cn' ? t.zh : t.en;
}

/** Every note in one language, keyed by code (the calculator's string table). */
export function quoteNotes(lang: QuoteLang): Record<string, string> {
  return Object.fromEntries(Object.entries(QUOTE_NOTE_TEXT).map(([k, t]) => [k, lang === 'zh-cn' ? t.zh : t.en]));
}

/** A quote row's start-now mark (core/startNow.ts), in both languages: `gpu-rent quote --stock` and the calculator. */
export type StartNowCode = 'startNowFree' | 'startNowNone' | 'startNowReadFailed' | 'startNowNotListed';

export const START_NOW_TEXT: Readonly<Record<StartNowCode, { en: string; zh: string }>> = {
  startNowFree: { en: 'can start now ({0})', zh: '可立即开机（{0}）' },
  startNowNone: { en: 'none free now', zh: '暂无空闲卡' },
  startNowReadFailed: { en: 'not checked: the stock read failed', zh: '未检查：读取空闲卡失败' },
  startNowNotListed: { en: 'not in the stock read (other regions are not checked)', zh: '空闲卡列表中没有（其他地域未检查）' },
};

/** The mark's code, or undefined where nothing is said (no account for that platform). */
export function startNowCode(s: StartNow): StartNowCode | undefined {
  if (s.state === 'free') return 'startNowFree';
  if (s.state === 'none') return 'startNowNone';
  return s.reason === 'readFailed' ? 'startNowReadFailed' : s.reason === 'notListed' ? 'startNowNotListed' : undefined;
}

/** "3 free in 内蒙C区" / "内蒙C区 空闲 3 张"; "available in ap-guangzhou-3, ¥8.68/h" where the platform gives no count. */
export function freePlaceText(p: FreePlace, lang: QuoteLang): string {
  const where = p.zone && p.zone !== p.region ? `${p.region} ${p.zone}` : p.region;
  const price = p.priceFenPerHour !== undefined ? formatCny(p.priceFenPerHour) : undefined;
  if (lang === 'zh-cn') return `${where} ${p.free !== undefined ? `空闲 ${p.free} 张` : '有货'}${price ? `，${price}/小时` : ''}`;
  return `${p.free !== undefined ? `${p.free} free` : 'available'} in ${where}${price ? `, ${price}/h` : ''}`;
}

/** The mark's words (the first `maxPlaces` places, then how many more), or undefined where nothing is said. */
export function startNowText(s: StartNow, lang: QuoteLang, maxPlaces = 2): string | undefined {
  const code = startNowCode(s);
  if (!code) return undefined;
  const t = lang === 'zh-cn' ? START_NOW_TEXT[code].zh : START_NOW_TEXT[code].en;
  if (s.state !== 'free') return t;
  const shown = s.places.slice(0, Math.max(1, maxPlaces)).map((p) => freePlaceText(p, lang));
  const more = s.places.length - shown.length;
  if (more > 0) shown.push(lang === 'zh-cn' ? `另有 ${more} 处` : `${more} more`);
  // A function, so a `$&` in a platform's region name stays text.
  return t.replace('{0}', () => shown.join(lang === 'zh-cn' ? '；' : '; '));
}
