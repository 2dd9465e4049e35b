// The one caching rule for stock reads, for both front ends: an account (and the regions asked)
// is read at most once a minute (STOCK_TTL_S); a second ask within the minute gets the kept rows,
// or shares the read still in flight; a failed read is not kept. What is kept is one shape,
// `{at, rows}`, checked when it is read back (a row that is not a stock row, a time from the
// future, too many rows or too many bytes is no entry, so the account is read again).
//
// Where it is kept differs: the extension keeps entries in memory (MemoryStockStore, one
// StockCache for the window's life); each CLI command is its own process, so the CLI keeps them
// in files (FileStockStore: $GPU_RENT_HOME/cache/stock-<hash>.json, 0600) that the next command
// within the minute reads.
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { MAX_STOCK_ROWS, STOCK_TTL_S, type StockRow, type StockSource, type StockStatus } from '../../core/platforms/stock';
import type { Connector } from '../../core/platforms/types';
import type { StockQuery, StockReader } from './stock';

/** One kept read: when it was asked (epoch seconds) and what it answered. */
export interface StockEntry {
  at: number;
  rows: StockRow[];
}

/** Where entries are kept. A store that reads entries from outside the process checks them with `parseStockEntry`. */
export interface StockStore {
  get(key: string): Promise<StockEntry | undefined>;
  put(key: string, entry: StockEntry): Promise<void>;
}

/** An account as the cache keys it: its id and platform kind (an id reused for another platform is another read). */
export interface StockAccountRef {
  id: string;
  kind: string;
}

/** A kept entry whose time is this far ahead of the clock is not trusted. */
const FUTURE_SLACK_S = 5;
/** The most bytes one kept entry may be (2000 rows of bounded text fit well inside). */
export const MAX_STOCK_ENTRY_BYTES = 4 * 1024 * 1024;

export function stockCacheKey(account: StockAccountRef, regions: readonly string[]): string {
  return `${account.id}\u0000${account.kind}\u0000${regions.join(',')}`;
}

/** Whether an entry asked at `at` still answers at `now`. */
export function isFresh(at: number, now: number, ttlS = STOCK_TTL_S): boolean {
  return now - at < ttlS && at <= now + FUTURE_SLACK_S;
}

// Above what the mappers write (boundText: 300 characters a part, a card naming type and family).
const text = z.string().max(2048);
const count = z.number().int().min(0).max(1_000_000);
// Records over the unions, so a new source or status cannot be left out of the check (it would
// make every kept read of it fail the check, and each ask read the platform again).
const SOURCES: Record<StockSource, true> = { 'autodl-gpu_stock': true, 'autodl-console-list': true, 'aliyun-DescribeAvailableResource': true, 'tencent-DescribeZoneInstanceConfigInfos': true };
const STATUSES: Record<StockStatus, true> = { free: true, soldOut: true, unknown: true };
const oneOf = <T extends string>(r: Record<T, true>) => z.enum(Object.keys(r) as [T, ...T[]]);
const rowSchema = z.object({
  card: text,
  proSpec: text.optional(),
  region: text,
  zone: text.optional(),
  instanceType: text.optional(),
  free: count.optional(),
  total: count.optional(),
  gpus: z.number().min(0).max(1024).optional(),
  status: oneOf(STATUSES),
  priceFenPerHour: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  source: oneOf(SOURCES),
  readAt: z.number().min(0),
}) satisfies z.ZodType<StockRow>;
const entrySchema = z.object({ at: z.number().min(0), rows: z.array(rowSchema).max(MAX_STOCK_ROWS) });

/** A kept entry read back (JSON already parsed), or undefined when it is not one. */
export function parseStockEntry(value: unknown): StockEntry | undefined {
  const r = entrySchema.safeParse(value);
  return r.success ? r.data : undefined;
}

/** The extension's store: entries in memory, the oldest dropped past `max`. */
export class MemoryStockStore implements StockStore {
  private readonly entries = new Map<string, StockEntry>();
  constructor(private readonly max = 200) {}

  get(key: string): Promise<StockEntry | undefined> {
    return Promise.resolve(this.entries.get(key));
  }

  put(key: string, entry: StockEntry): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return Promise.resolve();
  }
}

/** The CLI's store: one 0600 JSON file per key under `dir` (made 0700), shared by every CLI process. */
export class FileStockStore implements StockStore {
  constructor(private readonly dir: string) {}

  /** The file a key is kept in (a hash: account ids and regions never become path parts). */
  pathOf(key: string): string {
    return join(this.dir, `stock-${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
  }

  async get(key: string): Promise<StockEntry | undefined> {
    try {
      const path = this.pathOf(key);
      if ((await stat(path)).size > MAX_STOCK_ENTRY_BYTES) return undefined;
      const text = await readFile(path, 'utf8');
      return parseStockEntry(JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  async put(key: string, entry: StockEntry): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFile(this.pathOf(key), JSON.stringify(entry), { mode: 0o600 });
    } catch {
      /* a cache that cannot be written only costs a read */
    }
  }
}

/** At most one stock read per account and regions a minute, over either store. */
export class StockCache {
  private readonly inFlight = new Map<string, Promise<StockRow[]>>();
  constructor(
    private readonly store: StockStore,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
    private readonly ttlS = STOCK_TTL_S,
  ) {}

  read(account: StockAccountRef, c: Connector & StockReader, q: StockQuery = {}): Promise<StockRow[]> {
    const key = stockCacheKey(account, q.regions ?? []);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const p = this.readThrough(key, c, q).finally(() => {
      if (this.inFlight.get(key) === p) this.inFlight.delete(key);
    });
    this.inFlight.set(key, p);
    return p;
  }

  /** When the account's last read (of its own regions) was asked, if it still answers. */
  async readAt(account: StockAccountRef): Promise<number | undefined> {
    const hit = await this.store.get(stockCacheKey(account, []));
    return hit && isFresh(hit.at, this.now(), this.ttlS) ? hit.at : undefined;
  }

  private async readThrough(key: string, c: Connector & StockReader, q: StockQuery): Promise<StockRow[]> {
    const t = this.now();
    const hit = await this.store.get(key);
    if (hit && isFresh(hit.at, t, this.ttlS)) return hit.rows;
    const rows = (await c.stock({ ...(q.regions ? { regions: q.regions } : {}), ...(q.signal ? { signal: q.signal } : {}) })).slice(0, MAX_STOCK_ROWS);
    await this.store.put(key, { at: t, rows });
    return rows;
  }
}
