// Can a quote row start now? A catalog row (platform, card, cards per instance) against the
// stock the connected accounts read (core/platforms/stock.ts rows): free now (where, how many,
// the price where the platform sends one), none free now, or unknown (no account for that
// platform, a read that failed, or the card not in what was read). Pure: readings in, an answer out.
//
// Card names differ: AutoDL writes "RTX 4090" (findCard through the catalog's ids, aliases and
// patterns: "RTX 4090" → rtx4090, but "RTX 3080 Ti" is not the 3080 and a 48 GB 4090 is not the
// 24 GB one); the clouds write instance types, whose family fixes the card and whose size the count.
import { cardSpecs, findCard, type CardSpec } from './cards';
import type { Fen } from './money';
import type { StockRow } from './platforms/stock';
import { CATALOG_PLATFORM, type PlatformKind } from './platforms/types';

/** One account's stock read: its rows, or that it failed. */
export type StockReading = { account: string; kind: PlatformKind; ok: true; rows: readonly StockRow[] } | { account: string; kind: PlatformKind; ok: false };

export interface FreePlace {
  account: string;
  region: string;
  zone?: string;
  instanceType?: string;
  /** Free GPUs there; undefined where the platform gives no count (the clouds). */
  free?: number;
  priceFenPerHour?: Fen;
}

export type StartNow =
  | { state: 'free'; places: FreePlace[] }
  | { state: 'none' }
  | { state: 'unknown'; reason: 'noAccount' | 'readFailed' | 'notListed' };

export interface StartNowRow {
  /** Catalog platform id (autodl, aliyun, tencent, …). */
  platform: string;
  /** Catalog card id (rtx4090, t4, …). */
  card: string;
  gpus: number;
}

/** The most places one answer names (free first by count). */
export const MAX_PLACES = 20;

/**
 * 阿里云 families whose card is fixed; vGPU and shared families (vgn6i, sgn7i-vws) are slices of
 * a card, never a whole one. Each row as 阿里云's own ECS user guide says it (test/fixtures/platforms/SOURCES.md):
 * - gn6i → T4, gn6v → V100 16 GB, gn7i → A10 24 GB: 「实例规格分类与命名」
 *   (help.aliyun.com/zh/ecs/user-guide/instance-specification-naming-and-classification: "6v … V100 且 GPU
 *   显存为 16 GB", "6i … GPU 类型为 T4", "7i … GPU 类型为 A10 且显存为 24 GB"), and the GPU 计算型实例规格族
 *   page's gn6i / gn6v / gn7i tables (NVIDIA T4 × n, NVIDIA V100 × n with 16GB, NVIDIA A10 × n).
 * - gn7e is left out: those pages give its 80 GB of GPU memory but name no card, so its rows read `?`.
 */
const ALIYUN_FAMILY_CARD: Readonly<Record<string, string>> = { gn6i: 't4', gn6v: 'v100-16g', gn7i: 'a10' };
/**
 * 腾讯云 families (InstanceFamily, the type's prefix), as Tencent Cloud's GPU documentation's "GPU
 * Computing Instance" overview table gives them: GN7 "NVIDIA Tesla T4", GN10Xp "NVIDIA Tesla V100
 * NVLink 32 GB" (its Chinese overview table: GN10X/GN10Xp "Tesla V100 NVLink 32G").
 */
const TENCENT_FAMILY_CARD: Readonly<Record<string, string>> = { GN7: 't4', GN10XP: 'v100-32g' };

// ecs.<family>-c<vCPUs per GPU>g1.<N>xlarge: N × 4 vCPUs, so N × 4 / ratio GPUs (gn6i-c4g1.xlarge: 1 T4).
// The naming page: "c8g1 表示 vCPU:GPU=8:1", xlarge 4 vCPU, <n>xlarge n × 4; the family tables agree
// (ecs.gn6i-c24g1.24xlarge 96 vCPU, T4 × 4; ecs.gn7i-c32g1.16xlarge 64 vCPU, A10 × 2).
const ALIYUN_TYPE = /^ecs\.([a-z0-9]{1,20})-c(\d{1,3})g1\.(\d{0,3})xlarge$/;

function aliyunCard(type: string): { card: string; gpus?: number } | undefined {
  const m = ALIYUN_TYPE.exec(type);
  if (!m) return undefined;
  const card = Object.hasOwn(ALIYUN_FAMILY_CARD, m[1]!) ? ALIYUN_FAMILY_CARD[m[1]!] : undefined;
  if (!card) return undefined;
  const vcpus = (m[3] === '' ? 1 : Number(m[3])) * 4;
  const ratio = Number(m[2]);
  const gpus = ratio > 0 && vcpus % ratio === 0 ? vcpus / ratio : undefined;
  return { card, ...(gpus !== undefined ? { gpus } : {}) };
}

function tencentCard(row: StockRow): { card: string; gpus?: number } | undefined {
  const type = row.instanceType ?? '';
  const dot = type.indexOf('.');
  const family = (dot > 0 ? type.slice(0, dot) : type).toUpperCase();
  const card = Object.hasOwn(TENCENT_FAMILY_CARD, family) ? TENCENT_FAMILY_CARD[family] : undefined;
  if (!card) return undefined;
  // A fractional GpuCount (a vGPU slice) is not a card.
  return { card, ...(row.gpus !== undefined && Number.isInteger(row.gpus) ? { gpus: row.gpus } : {}) };
}

/**
 * The catalog card a stock row is, and how many GPUs one instance of it has where the row fixes
 * that (the clouds' types); undefined for a card the catalog does not know.
 */
export function stockCard(row: StockRow, cards: readonly CardSpec[] = cardSpecs): { card: string; gpus?: number } | undefined {
  switch (row.source) {
    case 'autodl-gpu_stock':
    case 'autodl-console-list': {
      const c = findCard(row.card, cards);
      return c ? { card: c.id } : undefined;
    }
    case 'aliyun-DescribeAvailableResource':
      return aliyunCard(row.instanceType ?? row.card);
    case 'tencent-DescribeZoneInstanceConfigInfos':
      return tencentCard(row);
  }
}

/** What a reading says about one row: free places, rows seen but not free, or nothing about it. */
function look(row: StartNowRow, rows: readonly StockRow[], account: string, cards: readonly CardSpec[]): { places: FreePlace[]; seen: boolean } {
  const places: FreePlace[] = [];
  let seen = false;
  for (const s of rows) {
    if (s.status === 'unknown') continue;
    const c = stockCard(s, cards);
    if (!c || c.card !== row.card) continue;
    // A cloud type holds a fixed number of cards; AutoDL's count is chosen at create.
    if (c.gpus !== undefined ? c.gpus !== row.gpus : s.source.startsWith('aliyun') || s.source.startsWith('tencent')) continue;
    seen = true;
    const enough = s.status === 'free' && (s.free === undefined || c.gpus !== undefined || s.free >= row.gpus);
    if (!enough) continue;
    places.push({ account, region: s.region, ...(s.zone ? { zone: s.zone } : {}), ...(s.instanceType ? { instanceType: s.instanceType } : {}), ...(s.free !== undefined ? { free: s.free } : {}), ...(s.priceFenPerHour !== undefined ? { priceFenPerHour: s.priceFenPerHour } : {}) });
  }
  return { places, seen };
}

/**
 * The answer for one quote row. Free when any account has it free now (enough cards for the
 * row's count); none only when every account of that platform was read and none has it free;
 * unknown when no account of that platform is connected, when a read failed and no other says
 * free, or when the card is in no reading.
 */
export function startNow(row: StartNowRow, readings: readonly StockReading[], cards: readonly CardSpec[] = cardSpecs): StartNow {
  const mine = readings.filter((r) => CATALOG_PLATFORM[r.kind] === row.platform);
  if (!mine.length) return { state: 'unknown', reason: 'noAccount' };
  const places: FreePlace[] = [];
  let seen = false;
  let failed = false;
  for (const r of mine) {
    if (!r.ok) {
      failed = true;
      continue;
    }
    const l = look(row, r.rows, r.account, cards);
    places.push(...l.places);
    seen ||= l.seen;
  }
  if (places.length) {
    places.sort((a, b) => (b.free ?? 0) - (a.free ?? 0) || a.region.localeCompare(b.region) || (a.zone ?? '').localeCompare(b.zone ?? ''));
    return { state: 'free', places: places.slice(0, MAX_PLACES) };
  }
  if (failed) return { state: 'unknown', reason: 'readFailed' };
  return seen ? { state: 'none' } : { state: 'unknown', reason: 'notListed' };
}

/** The answer for each row asked (the calculator's question), in the order asked. */
export function startNowFor<K extends StartNowRow>(keys: readonly K[], readings: readonly StockReading[], cards: readonly CardSpec[] = cardSpecs): { key: K; mark: StartNow }[] {
  return keys.map((key) => ({ key, mark: startNow(key, readings, cards) }));
}
