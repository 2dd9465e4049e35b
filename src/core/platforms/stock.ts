// Free cards before you start: what each platform says is free now, per region, with the price
// where the platform sends one. Pure: the platforms' JSON in, rows out. Shapes (SOURCES.md in
// test/fixtures/platforms): AutoDL `gpu_stock` `data: [{"RTX 4090": {idle_gpu_num, total_gpu_num}}]`
// (no price); 阿里云 DescribeAvailableResource (per zone and instance type: Status Available /
// SoldOut, StatusCategory WithStock / ClosedWithStock / WithoutStock / ClosedWithoutStock; no
// count, no price); 腾讯云 DescribeZoneInstanceConfigInfos (per zone and type: Status SELL /
// SOLD_OUT, Price.UnitPriceDiscount yuan per hour, Gpu/GpuCount; no count).
import type { Fen } from '../money';
import { yuanTextToFen } from './money';
import { boundText } from './types';

export type StockSource = 'autodl-gpu_stock' | 'autodl-console-list' | 'aliyun-DescribeAvailableResource' | 'tencent-DescribeZoneInstanceConfigInfos';

/** free: the platform says some can start now; soldOut: none; unknown: it does not say. */
export type StockStatus = 'free' | 'soldOut' | 'unknown';

export interface StockRow {
  /** The card as the platform names it (AutoDL "RTX 4090"; clouds: the instance type, with the family / type name). */
  card: string;
  /** AutoDL gpu_stock: the Pro spec (`gpu_spec_uuid`) a source maps this pool card to; absent where none does. */
  proSpec?: string;
  region: string;
  zone?: string;
  /** 阿里云/腾讯云: the instance type to ask for. */
  instanceType?: string;
  /** How many are free now; undefined (`?`) where the platform gives no count. */
  free?: number;
  total?: number;
  /** GPUs per instance of this type (腾讯云 GpuCount/Gpu). */
  gpus?: number;
  status: StockStatus;
  /** Pay-as-you-go price per hour; undefined (`?`) where the platform sends none with the stock. */
  priceFenPerHour?: Fen;
  source: StockSource;
  /** Epoch seconds. */
  readAt: number;
}

/** The most rows one read keeps (a flood of types is cut, not rendered). */
export const MAX_STOCK_ROWS = 2000;
/** A stock read is cached this long per account: at most one read a minute. */
export const STOCK_TTL_S = 60;

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v.slice(0, MAX_STOCK_ROWS) : []);
const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 1_000_000 ? v : undefined);

/**
 * The elastic-deployment page's appendix: the data-center codes `gpu_stock` (`region_sign`),
 * `dc_list` and the Pro create's `data_center_list` take, with the page's names. Instances name
 * their region in another namespace (`neimeng-C`, `bj-B2`): never one of these.
 */
export const AUTODL_DATA_CENTERS: Readonly<Record<string, string>> = {
  westDC2: '西北企业区',
  westDC3: '西北B区',
  beijingDC1: '北京A区',
  beijingDC2: '北京B区',
  beijingDC4: 'L20专区',
  beijingDC3: 'V100专区',
  neimengDC1: '内蒙A区',
  neimengDC3: '内蒙B区',
  foshanDC1: '佛山区',
  chongqingDC1: '重庆A区',
  yangzhouDC1: '3090专区',
};

export const isAutodlDataCenter = (code: string): boolean => Object.hasOwn(AUTODL_DATA_CENTERS, code);

/**
 * The pool's card names that a source maps to a Pro spec (a public client's table, checked by it
 * against live stock: the pool splits `vGPU-48GB` from `vGPU-48GB-350W` as the specs split
 * `v-48g` from `v-48g-350w`). Any other pool name ("RTX 4090", "RTX 3090") is no Pro spec.
 */
export const AUTODL_POOL_SPEC: Readonly<Record<string, string>> = {
  H800: 'h800',
  'vGPU-48GB': 'v-48g',
  'RTX 4090D': '4090D',
  'vGPU-48GB-350W': 'v-48g-350w',
  'RTX PRO 6000': 'pro6000-p',
  'vGPU-32GB': 'v-32g-p',
  'RTX 5090': '5090-p',
};

/** AutoDL `POST /api/v1/dev/machine/region/gpu_stock` data for one data center: a list of one-key objects (or one object of them), the card as the pool names it. */
export function autodlStock(data: unknown, region: string, readAt: number): StockRow[] {
  const entries = Array.isArray(data) ? arr(data) : [data];
  const out: StockRow[] = [];
  for (const item of entries) {
    const o = obj(item);
    for (const name of Object.keys(o).slice(0, MAX_STOCK_ROWS)) {
      const info = o[name];
      if (!info || typeof info !== 'object' || Array.isArray(info)) continue;
      const card = boundText(name, 80);
      if (!card) continue;
      const i = info as Record<string, unknown>;
      const free = count(i.idle_gpu_num);
      const total = count(i.total_gpu_num);
      const proSpec = Object.hasOwn(AUTODL_POOL_SPEC, card) ? AUTODL_POOL_SPEC[card] : undefined;
      out.push({ card, ...(proSpec ? { proSpec } : {}), region, ...(free !== undefined ? { free } : {}), ...(total !== undefined ? { total } : {}), status: free === undefined ? 'unknown' : free > 0 ? 'free' : 'soldOut', source: 'autodl-gpu_stock', readAt });
      if (out.length >= MAX_STOCK_ROWS) return out;
    }
  }
  return out;
}

/**
 * AutoDL console list rows (`POST /api/v1/instance`): each row says how many GPUs its host has
 * free now (`gpu_idle_num` of `gpu_all_num`), the card and the region: free cards for the
 * instances the account already has, one row per host.
 */
export function autodlConsoleStock(rows: unknown, readAt: number): StockRow[] {
  const out: StockRow[] = [];
  for (const r of arr(rows)) {
    const o = obj(r);
    const card = boundText(o.snapshot_gpu_alias_name, 80);
    const region = boundText(o.region_name, 60);
    const free = count(o.gpu_idle_num);
    if (!card || !region || free === undefined) continue;
    const total = count(o.gpu_all_num);
    const host = boundText(o.machine_alias, 60);
    out.push({ card, region, ...(host ? { zone: host } : {}), free, ...(total !== undefined ? { total } : {}), status: free > 0 ? 'free' : 'soldOut', source: 'autodl-console-list', readAt });
  }
  return out;
}

/** 阿里云 GPU instance families (ecs.gn7i-…, ecs.sgn7i-vws-…, ecs.vgn6i-…, ecs.ebmgn7e-…, ecs.gn8v-…). */
const ALIYUN_GPU_TYPE = /^ecs\.(?:ebm|s|v)?gn[0-9a-z-]{1,40}\.[0-9a-z]{1,20}$/;

export function isAliyunGpuType(t: string): boolean {
  return t.length <= 80 && ALIYUN_GPU_TYPE.test(t);
}

/** DescribeAvailableResource (DestinationResource=InstanceType) body → one row per zone and GPU instance type. */
export function aliyunStock(body: unknown, region: string, readAt: number): StockRow[] {
  const out: StockRow[] = [];
  for (const z of arr(obj(obj(body).AvailableZones).AvailableZone)) {
    const zone = obj(z);
    const zoneId = boundText(zone.ZoneId, 60);
    for (const r of arr(obj(zone.AvailableResources).AvailableResource)) {
      const res = obj(r);
      if (res.Type !== undefined && res.Type !== 'InstanceType') continue;
      for (const s of arr(obj(res.SupportedResources).SupportedResource)) {
        const sr = obj(s);
        const type = boundText(sr.Value, 80);
        if (!type || !isAliyunGpuType(type)) continue;
        const cat = typeof sr.StatusCategory === 'string' ? sr.StatusCategory : '';
        const status: StockStatus = sr.Status === 'SoldOut' || cat === 'WithoutStock' || cat === 'ClosedWithoutStock' ? 'soldOut' : sr.Status === 'Available' || cat === 'WithStock' || cat === 'ClosedWithStock' ? 'free' : 'unknown';
        out.push({ card: type, region: boundText(zone.RegionId, 40) || region, ...(zoneId ? { zone: zoneId } : {}), instanceType: type, status, source: 'aliyun-DescribeAvailableResource', readAt });
        if (out.length >= MAX_STOCK_ROWS) return out;
      }
    }
  }
  return out;
}

/** DescribeZoneInstanceConfigInfos Response → one row per zone and GPU instance type (Gpu/GpuCount > 0), with its hourly price. */
export function tencentStock(resp: unknown, region: string, readAt: number): StockRow[] {
  const out: StockRow[] = [];
  for (const it of arr(obj(resp).InstanceTypeQuotaSet)) {
    const q = obj(it);
    const gpus = typeof q.GpuCount === 'number' && q.GpuCount > 0 ? q.GpuCount : typeof q.Gpu === 'number' && q.Gpu > 0 ? q.Gpu : undefined;
    if (gpus === undefined || !Number.isFinite(gpus) || gpus > 64) continue;
    const type = boundText(q.InstanceType, 60);
    if (!type) continue;
    const zone = boundText(q.Zone, 60);
    const status: StockStatus = q.Status === 'SELL' ? 'free' : q.Status === 'SOLD_OUT' ? 'soldOut' : 'unknown';
    const p = obj(q.Price);
    const fen = yuanTextToFen(p.UnitPriceDiscount ?? p.UnitPrice);
    const family = boundText(q.TypeName, 60) || boundText(q.InstanceFamily, 30);
    out.push({ card: family ? `${type} (${family})` : type, region, ...(zone ? { zone } : {}), instanceType: type, gpus, status, ...(fen !== undefined && fen > 0 && (p.ChargeUnit === undefined || p.ChargeUnit === 'HOUR') ? { priceFenPerHour: fen } : {}), source: 'tencent-DescribeZoneInstanceConfigInfos', readAt });
    if (out.length >= MAX_STOCK_ROWS) return out;
  }
  return out;
}

/** "4090" matches "RTX 4090" and "4090-48G"; case and spaces do not matter. */
export function cardMatches(card: string, want: string | undefined): boolean {
  if (!want) return true;
  const norm = (s: string) => s.toLowerCase().replace(/[\s_]+/g, '');
  return norm(card).includes(norm(want));
}

export function filterStock(rows: readonly StockRow[], f: { card?: string; region?: string; freeOnly?: boolean }): StockRow[] {
  return rows.filter((r) => (cardMatches(r.card, f.card) || (r.proSpec !== undefined && cardMatches(r.proSpec, f.card))) && (!f.region || r.region === f.region || r.zone === f.region) && (!f.freeOnly || r.status === 'free'));
}

/** Free first, then by card, region and zone: a stable order for the table, the JSON and the tree. */
export function sortStock(rows: readonly StockRow[]): StockRow[] {
  const rank: Record<StockStatus, number> = { free: 0, unknown: 1, soldOut: 2 };
  return rows.slice().sort((a, b) => rank[a.status] - rank[b.status] || a.card.localeCompare(b.card) || a.region.localeCompare(b.region) || (a.zone ?? '').localeCompare(b.zone ?? ''));
}

/** The free count as shown: a number, or `?` where the platform gives none. */
export function freeText(r: Pick<StockRow, 'free' | 'total' | 'status'>): string {
  if (r.free !== undefined) return r.total !== undefined ? `${r.free}/${r.total}` : String(r.free);
  return r.status === 'soldOut' ? '0' : '?';
}

/** The JSON row (stable keys; null where unknown). */
export function stockJson(r: StockRow): Record<string, unknown> {
  return { card: r.card, proSpec: r.proSpec ?? null, region: r.region, zone: r.zone ?? null, instanceType: r.instanceType ?? null, status: r.status, free: r.free ?? null, total: r.total ?? null, gpus: r.gpus ?? null, priceFenPerHour: r.priceFenPerHour ?? null, source: r.source, readAt: r.readAt };
}
