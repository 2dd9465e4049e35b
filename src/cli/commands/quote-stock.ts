// `gpu-rent quote --stock`: the free cards of every configured account whose platform is in the
// quote, each account read once (and at most once a minute: the same cache as `gpu-rent stock`),
// a failing account kept as a failed reading so the rest still show. Loaded only with --stock:
// the quote itself stays offline.
import { PlatformError } from '../../app/platforms/errors';
import { hasStock } from '../../app/platforms/stock';
import { CATALOG_PLATFORM } from '../../core/platforms/types';
import type { CardSpec } from '../../core/cards';
import type { QuoteRow } from '../../core/cost';
import { startNow, type StartNow, type StockReading } from '../../core/startNow';
import type { CliIO } from '../command';
import { connectorFor, failureLine, loadAccounts } from './accounts';
import { cliStockCache } from './stock';

export interface QuoteStockAccount {
  account: string;
  platform: string;
  ok: boolean;
  /** One line naming the platform and the cause (box text already made safe for a terminal). */
  error?: string;
  failure?: string;
}

export interface QuoteStock {
  readAt: number;
  accounts: QuoteStockAccount[];
  readings: StockReading[];
}

/** Reads the accounts of the quoted platforms (all when `platforms` is absent). */
export async function readQuoteStock(io: CliIO, platforms: readonly string[] | undefined, now = Math.floor(Date.now() / 1000)): Promise<QuoteStock> {
  const accounts = (await loadAccounts(io)).filter((a) => !platforms || platforms.includes(CATALOG_PLATFORM[a.account.kind]));
  const cache = cliStockCache(io, now);
  const results = await Promise.all(
    accounts.map(async (a): Promise<{ account: QuoteStockAccount; reading: StockReading }> => {
      const base = { account: a.account.id, platform: a.account.kind };
      const failed = (error: string, failure: string) => ({ account: { ...base, ok: false, error, failure }, reading: { account: a.account.id, kind: a.account.kind, ok: false as const } });
      const c = connectorFor(a, io);
      if (!hasStock(c)) return failed('this platform has no stock read', 'notSupported');
      try {
        const rows = await cache.read(a.account, c);
        return { account: { ...base, ok: true }, reading: { account: a.account.id, kind: a.account.kind, ok: true, rows } };
      } catch (e) {
        return failed(failureLine(e), e instanceof PlatformError ? e.failure.kind : 'other');
      }
    }),
  );
  return { readAt: now, accounts: results.map((r) => r.account), readings: results.map((r) => r.reading) };
}

/** The stock read and each quote row's answer. */
export interface QuoteStockMarks {
  stock: QuoteStock;
  marks: Map<QuoteRow, StartNow>;
}

export function marksFor(stock: QuoteStock, rows: readonly QuoteRow[], cards: readonly CardSpec[]): QuoteStockMarks {
  return { stock, marks: new Map(rows.map((r) => [r, startNow(r, stock.readings, cards)])) };
}
