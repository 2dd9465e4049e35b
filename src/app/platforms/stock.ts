// Free cards per account and region: each connector's `stock()` read (the calls are the
// connector's own; the JSON → rows mapping is core/platforms/stock.ts), region by region at most
// REGION_PARALLEL at once, and a cache that reads an account at most once a minute.
import { REGION_PARALLEL } from '../../core/platforms/regions';
import { aliyunStock, autodlStock, MAX_STOCK_ROWS, STOCK_TTL_S, tencentStock, type StockRow } from '../../core/platforms/stock';
import type { Connector } from '../../core/platforms/types';
import { PlatformError } from './errors';
import { inRegion } from './regions';
import { mapLimited } from '../../remote/util/limit';

export interface StockQuery {
  /** Regions to read (AutoDL region_sign such as "neimeng-C"; cloud region ids); the account's own when absent. */
  regions?: string[];
  signal?: AbortSignal;
}

/** What a connector with a stock read offers. */
export interface StockReader {
  stock(q?: StockQuery): Promise<StockRow[]>;
}

export function hasStock(c: Connector): c is Connector & StockReader {
  return typeof (c as Partial<StockReader>).stock === 'function';
}

/** The most regions one stock read asks. */
export const MAX_STOCK_REGIONS = 30;

/**
 * One region read after another (at most REGION_PARALLEL at once). A region that fails is left
 * out and named in `failed`; when every region fails the first failure is thrown (a refused key
 * is not an empty stock).
 */
export async function perRegion(regions: readonly string[], read: (region: string) => Promise<StockRow[]>): Promise<StockRow[]> {
  const list = [...new Set(regions)].slice(0, MAX_STOCK_REGIONS);
  const errors: unknown[] = [];
  const rows = await mapLimited(list, REGION_PARALLEL, (r) =>
    read(r).catch((e: unknown) => {
      // A refused credential is the account's, not the region's: it fails the whole read.
      if (e instanceof PlatformError && (e.failure.kind === 'auth' || e.failure.kind === 'tokenExpired')) throw e;
      errors.push(list.length > 1 ? inRegion(r, e) : e);
      return [] as StockRow[];
    }),
  );
  if (list.length && errors.length === list.length) throw errors[0];
  return rows.flat().slice(0, MAX_STOCK_ROWS);
}

/** AutoDL Pro: `POST /api/v1/dev/machine/region/gpu_stock {region_sign}` per region. */
export function readAutodlStock(regions: readonly string[], post: (body: Record<string, unknown>) => Promise<unknown>, names: ReadonlyMap<string, string>, now: () => number): Promise<StockRow[]> {
  return perRegion(regions, async (sign) => autodlStock(await post({ region_sign: sign }), names.get(sign) ?? sign, now()));
}

/** 阿里云: DescribeAvailableResource (InstanceType, PostPaid) per region. */
export function readAliyunStock(regions: readonly string[], describe: (region: string) => Promise<unknown>, now: () => number): Promise<StockRow[]> {
  return perRegion(regions, async (r) => aliyunStock(await describe(r), r, now()));
}

/** 腾讯云: DescribeZoneInstanceConfigInfos (POSTPAID_BY_HOUR) per region. */
export function readTencentStock(regions: readonly string[], describe: (region: string) => Promise<unknown>, now: () => number): Promise<StockRow[]> {
  return perRegion(regions, async (r) => tencentStock(await describe(r), r, now()));
}

interface Entry {
  at: number;
  rows: Promise<StockRow[]>;
}

/**
 * At most one stock read per account (and query) a minute: a second ask within the minute gets
 * the same answer (or the same read still in flight); a failed read is not kept.
 */
export class StockCache {
  private readonly entries = new Map<string, Entry>();
  constructor(
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
    private readonly ttlS = STOCK_TTL_S,
  ) {}

  read(accountId: string, c: Connector & StockReader, q: StockQuery = {}): Promise<StockRow[]> {
    const key = `${accountId}\u0000${(q.regions ?? []).join(',')}`;
    const hit = this.entries.get(key);
    const t = this.now();
    if (hit && t - hit.at < this.ttlS) return hit.rows;
    const rows = c.stock({ ...(q.regions ? { regions: q.regions } : {}), ...(q.signal ? { signal: q.signal } : {}) });
    const entry: Entry = { at: t, rows };
    this.entries.set(key, entry);
    if (this.entries.size > 200) this.entries.delete(this.entries.keys().next().value!);
    rows.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return rows;
  }

  /** When the account's last read was made (epoch seconds), if it is still cached. */
  readAt(accountId: string): number | undefined {
    const hit = this.entries.get(`${accountId}\u0000`);
    return hit && this.now() - hit.at < this.ttlS ? hit.at : undefined;
  }

  forget(accountId: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(`${accountId}\u0000`)) this.entries.delete(k);
  }
}
