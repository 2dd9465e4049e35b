// Reading a cloud account region by region: at most REGION_PARALLEL at once, each read through
// the connector's own bounded SDK wrapper. A region that fails fails the read, named: a
// region dropped silently would hide its instances (and their bills).
import { REGION_PARALLEL } from '../../core/platforms/regions';
import { PlatformError } from './errors';

/** `fn` over `items`, at most `limit` at a time, results in order. The first failure is thrown once all started ones have ended. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { e: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const k = next++;
      try {
        out[k] = await fn(items[k]!);
      } catch (e) {
        failure ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.e;
  return out;
}

/** A region's failure names the region. */
export function inRegion(region: string, e: unknown): unknown {
  if (e instanceof PlatformError) return new PlatformError({ ...e.failure, message: `${region}: ${e.failure.message}`.slice(0, 500) });
  return e;
}

export { REGION_PARALLEL };
