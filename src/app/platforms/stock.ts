// Free cards per account and region: each connector's `stock()` read (the calls are the
// connector's own; the JSON → rows mapping is core/platforms/stock.ts), region by region at most
// REGION_PARALLEL at once. The once-a-minute cache over these reads is stockCache.ts.
import { REGION_PARALLEL } from '../../core/platforms/regions';
import { aliyunStock, AUTODL_DATA_CENTERS, autodlStock, isAutodlDataCenter, MAX_STOCK_ROWS, tencentStock, type StockRow } from '../../core/platforms/stock';
import type { Connector, PlatformKind } from '../../core/platforms/types';
import { PlatformError } from './errors';
import { inRegion } from './regions';
import { mapLimited } from '../../remote/util/limit';

export interface StockQuery {
  /** Regions to read (AutoDL Pro: data-center codes such as "westDC2"; cloud region ids); every data center (AutoDL) or the account's own regions (clouds) when absent. */
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

/**
 * AutoDL: `POST /api/v1/dev/machine/region/gpu_stock {region_sign}` per data center. The call
 * belongs to the elastic-deployment API and takes the data-center codes of that page's appendix
 * (every one when none is asked: no instance is needed). It answers any other code with an empty
 * success, which would read as "sold out": a code that is not one is refused before anything is sent.
 */
export async function readAutodlStock(platform: PlatformKind, regions: readonly string[] | undefined, post: (body: Record<string, unknown>) => Promise<unknown>, now: () => number): Promise<StockRow[]> {
  const list = regions?.length ? regions : Object.keys(AUTODL_DATA_CENTERS);
  const bad = list.find((r) => !isAutodlDataCenter(r));
  if (bad !== undefined) throw new PlatformError({ platform, kind: 'other', code: 'NotADataCenter', message: `"${bad.slice(0, 40)}" is not a data-center code: AutoDL stock (gpu_stock) takes ${Object.keys(AUTODL_DATA_CENTERS).join(', ')} (an instance's region such as neimeng-C is another namespace)` });
  return perRegion(list, async (code) => autodlStock(await post({ region_sign: code }), code, now()));
}

/** 阿里云: DescribeAvailableResource (InstanceType, PostPaid) per region. */
export function readAliyunStock(regions: readonly string[], describe: (region: string) => Promise<unknown>, now: () => number): Promise<StockRow[]> {
  return perRegion(regions, async (r) => aliyunStock(await describe(r), r, now()));
}

/** 腾讯云: DescribeZoneInstanceConfigInfos (POSTPAID_BY_HOUR) per region. */
export function readTencentStock(regions: readonly string[], describe: (region: string) => Promise<unknown>, now: () => number): Promise<StockRow[]> {
  return perRegion(regions, async (r) => tencentStock(await describe(r), r, now()));
}
