// Shared by the guard commands: which platform, what the instance costs (from the catalog,
// overridable by flags), and the guard facts for that platform.
import { findCard } from '../../../core/cards';
import { findPlatform, type Catalog, type Platform } from '../../../core/catalog';
import { midpoint, unitPrice } from '../../../core/cost';
import { factsFor, factsFromCatalog, type GuardPlatformFacts } from '../../../core/guards/facts';
import { yuanToFen } from '../../../core/money';
import { beijingDateTime, type Pricing } from '../../../core/spend';
import { bounded, UsageError, type FlagSpecs } from '../../args';
import { BOUNDS } from '../../../core/bounds';
import type { CliLang } from '../../lang';
import { shared } from '../../words';

export const PRICING_FLAGS = {
  platform: { type: 'string', valueName: 'ID', description: 'platform id or name (autodl, mita, matpool, aliyun, 秘塔智算 …)', zh: '平台 id 或名称（autodl、mita、matpool、aliyun、秘塔智算 …）' },
  card: { type: 'string', valueName: 'CARD', description: 'card, to take its hourly price from the catalog (e.g. rtx3090, 4090)', zh: '显卡，用于从价格表取每小时价格（例如 rtx3090、4090）' },
  gpus: { type: 'number', valueName: 'N', ...bounded(BOUNDS.gpus), description: 'cards in the instance (default 1)', zh: '实例的卡数（默认 1）' },
  rate: { type: 'number', valueName: 'YUAN', ...bounded(BOUNDS.instanceYuanPerHour), description: 'what the instance costs per hour while running, yuan (overrides the catalog)', zh: '实例运行时每小时的价格，元（覆盖价格表）' },
  'no-gpu-rate': { type: 'number', valueName: 'YUAN', ...bounded(BOUNDS.noGpuYuanPerHour), description: 'no-GPU mode per hour, yuan (default: the catalog)', zh: '无卡模式每小时的价格，元（默认：价格表）' },
  'disk-gb': { type: 'number', valueName: 'GB', ...bounded(BOUNDS.gb), description: 'billed data disk size (default 0)', zh: '计费数据盘大小（默认 0）' },
  'storage-rate': { type: 'number', valueName: 'YUAN', ...bounded(BOUNDS.yuanPerGbDay), description: 'data disk yuan per GB per day (default: the catalog)', zh: '数据盘每 GB 每天的价格，元（默认：价格表）' },
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides merged over the built-in catalog', zh: '价格覆盖的 JSON 文件，合并到内置价格表之上' },
} as const satisfies FlagSpecs;

export interface PricingFlags {
  platform?: string;
  card?: string;
  gpus?: number;
  rate?: number;
  'no-gpu-rate'?: number;
  'disk-gb'?: number;
  'storage-rate'?: number;
}

export function platformFromFlag(catalog: Catalog, name: string | undefined): Platform | null {
  if (name === undefined) return null;
  const p = findPlatform(catalog, name) ?? findPlatform(catalog, factsFor(name).platform);
  if (!p) throw new UsageError(`--platform: unknown platform "${name}" (known: ${catalog.platforms.map((x) => x.id).join(', ')})`, `--platform：未知平台 "${name}"（已知：${catalog.platforms.map((x) => x.id).join(', ')}）`);
  return p;
}

export function factsOf(platform: Platform | null, name?: string): GuardPlatformFacts {
  return platform ? factsFromCatalog(platform) : factsFor(name ?? 'unknown');
}

/** The instance's prices: flags first, then the catalog; null when no hourly rate can be found. */
export function pricingFromFlags(flags: PricingFlags, platform: Platform | null, catalog: Catalog): Pricing | null {
  const gpus = flags.gpus ?? 1;
  let hourlyRate: number | null = flags.rate !== undefined ? yuanToFen(flags.rate) : null;
  if (hourlyRate === null && platform && flags.card) {
    const card = findCard(flags.card, catalog.cards);
    if (!card) throw new UsageError(`--card: unknown card "${flags.card}"`, `--card：未知显卡 "${flags.card}"`);
    const price = unitPrice(platform, card.id, 'hour');
    if (!price) throw new UsageError(`--card: the catalog has no hourly price for ${card.id} on ${platform.id}; give --rate`, `--card：价格目录里没有 ${platform.id} 上 ${card.id} 的小时价格；请给出 --rate`);
    hourlyRate = Math.round(midpoint(price.perPeriod) * gpus);
  }
  if (hourlyRate === null) return null;
  const ng = platform?.noGpuMode;
  const noGpuModeRate = flags['no-gpu-rate'] !== undefined ? yuanToFen(flags['no-gpu-rate']) : ng && (ng.support === 'yes' || ng.support === 'partial') && ng.hourlyRate ? Math.round(midpoint(ng.hourlyRate)) : 0;
  const disk = platform?.dataDisk.fenPerGbDay;
  const storageGbDay = flags['storage-rate'] !== undefined ? yuanToFen(flags['storage-rate']) : disk && !platform?.dataDisk.bundled ? Math.round(midpoint(disk)) : 0;
  return { billingMode: 'hour', hourlyRate, noGpuModeRate, storageGbDay, dataDiskGb: flags['disk-gb'] ?? 0 };
}

/** "¥1.88/h" from fen per hour (fractional fen rounded). */
export function perHour(fenPerHour: number, lang: CliLang = 'en'): string {
  const fen = Math.round(fenPerHour);
  return `¥${(fen / 100).toFixed(2)}${lang === 'zh-cn' ? '/小时' : '/h'}`;
}

/** "2026-12-01 21:05 (Beijing)" for epoch seconds; "北京时间 2026-12-01 21:05" in Chinese. */
export function beijingText(t: number, lang: CliLang = 'en'): string {
  return lang === 'zh-cn' ? `北京时间 ${beijingDateTime(t)}` : `${beijingDateTime(t)} (Beijing)`;
}

export function durationText(seconds: number, lang: CliLang = 'en'): string {
  const s = Math.max(0, Math.round(seconds));
  const zh = lang === 'zh-cn';
  // The extension's words for "{0} s", "{0} min", "{0} h".
  const unit = (en: string, cn: string, v: string | number) => (zh ? shared(en, cn) : en).replace('{0}', String(v));
  if (s < 90) return unit('{0} s', '{0} 秒', s);
  if (s < 90 * 60) return unit('{0} min', '{0} 分钟', Math.round(s / 60));
  if (s < 48 * 3600) return unit('{0} h', '{0} 小时', (s / 3600).toFixed(1));
  return zh ? `${(s / 86400).toFixed(1)} 天` : `${(s / 86400).toFixed(1)} days`;
}
