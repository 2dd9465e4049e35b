// `gpu-rent stock [--account ID] [--card C] [--region R] [--json]`: which cards are free now, per
// account and region, with the price per hour where the platform sends one (`?` where it does
// not). An account is read at most once a minute: a read is kept in $GPU_RENT_HOME/cache/ (0600)
// and reused within the minute by the next call.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configHome } from '../../app/platforms/accountFile';
import { PlatformError } from '../../app/platforms/errors';
import { hasStock } from '../../app/platforms/stock';
import { renderTable } from '../../core/format';
import { formatCny } from '../../core/money';
import { filterStock, freeText, MAX_STOCK_ROWS, sortStock, STOCK_TTL_S, stockJson, type StockRow } from '../../core/platforms/stock';
import { REGION_ID } from '../../core/platforms/regions';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import type { CliCommand, CliIO } from '../command';
import { connectorFor, failureLine, HOW_TO_ADD, loadAccounts, type CliAccount } from './accounts';

const specs = {
  account: { type: 'string', valueName: 'ID', description: 'only this account' },
  card: { type: 'string', valueName: 'C', description: 'only cards whose name contains C (4090 matches "RTX 4090"; on 阿里云/腾讯云 the instance type or family, e.g. gn7i, GN7)' },
  region: { type: 'string', valueName: 'R', description: 'only region R (AutoDL region_sign such as neimeng-C; 阿里云/腾讯云 region id such as cn-hangzhou, ap-guangzhou)' },
  'free-only': { type: 'boolean', description: 'leave out what is sold out' },
  json: { type: 'boolean', description: 'print JSON: {readAt, accounts: [{account, platform, ok, error, rows: [{card, region, zone, instanceType, status, free, total, gpus, priceFenPerHour, source, readAt}]}]}' },
} satisfies FlagSpecs;

const USAGE = 'gpu-rent stock [--account ID] [--card C] [--region R] [--free-only] [--json]';
const SUMMARY = [
  'Which cards are free now, per account and region, with the price per hour.',
  'AutoDL Pro: gpu_stock for the regions of your instances (or --region): free/total GPUs, no price.',
  'AutoDL console token: free GPUs on the hosts of your instances. 阿里云: DescribeAvailableResource',
  '(GPU instance types Available / SoldOut per zone, no count). 腾讯云: DescribeZoneInstanceConfigInfos',
  '(SELL / SOLD_OUT per zone, with the pay-as-you-go price). "?" is what the platform does not say.',
  `Each account is read at most once a minute (${STOCK_TTL_S} s cache in $GPU_RENT_HOME/cache/).`,
].join('\n');

interface AccountStock {
  account: string;
  platform: string;
  ok: boolean;
  error?: string;
  failure?: string;
  rows: StockRow[];
  /** Cards read before --card/--free-only were applied (for the "no such card" message). */
  seen?: string[];
}

interface CacheFile {
  at: number;
  rows: StockRow[];
}

export function cachePath(io: CliIO, a: CliAccount, regions: readonly string[]): string {
  const key = createHash('sha256').update(`${a.account.id}\u0000${a.account.kind}\u0000${regions.join(',')}`).digest('hex').slice(0, 32);
  return join(configHome(io.env), 'cache', `stock-${key}.json`);
}

export async function cached(path: string, now: number): Promise<StockRow[] | undefined> {
  try {
    const text = await readFile(path, 'utf8');
    if (text.length > 4 * 1024 * 1024) return undefined;
    const c = JSON.parse(text) as CacheFile;
    if (typeof c.at !== 'number' || !Array.isArray(c.rows) || now - c.at >= STOCK_TTL_S || c.at > now + 5) return undefined;
    return c.rows.slice(0, MAX_STOCK_ROWS);
  } catch {
    return undefined;
  }
}

export async function remember(path: string, rows: StockRow[], now: number): Promise<void> {
  try {
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    await writeFile(path, JSON.stringify({ at: now, rows } satisfies CacheFile), { mode: 0o600 });
  } catch {
    /* a cache that cannot be written only costs a read */
  }
}

export const command: CliCommand = {
  name: 'stock',
  summary: 'which cards are free now, per account and region, with the price per hour',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    if (flags.region !== undefined && !REGION_ID.test(flags.region.toLowerCase())) throw new UsageError(`--region: "${forTerminal(flags.region.slice(0, 60))}" is not a region id`);
    if (flags.card !== undefined && (flags.card.trim() === '' || flags.card.length > 60)) throw new UsageError('--card: a card name such as 4090, A100 or gn7i');
    const all = await loadAccounts(io);
    const accounts = all.filter((a) => !flags.account || a.account.id === flags.account);
    if (!all.length) {
      io.stdout(HOW_TO_ADD);
      return 0;
    }
    if (!accounts.length) {
      io.stderr(`gpu-rent stock: no account ${forTerminal(flags.account ?? '')} (gpu-rent accounts list)\n`);
      return 1;
    }
    const regions = flags.region ? [flags.region] : [];
    const now = Math.floor(Date.now() / 1000);
    const results: AccountStock[] = await Promise.all(
      accounts.map(async (a): Promise<AccountStock> => {
        const c = connectorFor(a, io);
        if (!hasStock(c)) return { account: a.account.id, platform: a.account.kind, ok: false, error: 'this platform has no stock read', failure: 'notSupported', rows: [] };
        const path = cachePath(io, a, regions);
        try {
          let rows = await cached(path, now);
          if (!rows) {
            rows = await c.stock(regions.length ? { regions } : {});
            await remember(path, rows, now);
          }
          return { account: a.account.id, platform: a.account.kind, ok: true, rows: sortStock(filterStock(rows, { ...(flags.card ? { card: flags.card } : {}), ...(flags.region ? { region: flags.region } : {}), freeOnly: flags['free-only'] === true })), seen: [...new Set(filterStock(rows, flags.region ? { region: flags.region } : {}).map((r) => r.instanceType ?? r.card))] };
        } catch (e) {
          return { account: a.account.id, platform: a.account.kind, ok: false, error: failureLine(e), failure: e instanceof PlatformError ? e.failure.kind : 'other', rows: [] };
        }
      }),
    );
    for (const r of results) if (!r.ok) io.stderr(`gpu-rent stock: ${r.account}: ${r.error ?? 'failed'}\n`);
    if (flags.json) {
      io.stdout(jsonForTerminal({ readAt: now, accounts: results.map((r) => ({ account: r.account, platform: r.platform, ok: r.ok, error: r.error ?? null, failure: r.failure ?? null, rows: r.rows.map(stockJson) })) }, 2) + '\n');
    } else {
      const rows = results.flatMap((r) => r.rows.map((s) => [r.account, s.region, s.zone ?? '', s.card, s.status === 'free' ? 'yes' : s.status === 'soldOut' ? 'sold out' : '?', freeText(s), s.priceFenPerHour !== undefined ? `${formatCny(s.priceFenPerHour)}/h` : '?', new Date(s.readAt * 1000).toISOString().slice(11, 19)].map((x) => forTerminal(x))));
      if (rows.length) io.stdout(renderTable([['ACCOUNT', 'REGION', 'ZONE/HOST', 'CARD', 'FREE NOW', 'FREE', 'PRICE', 'READ AT (UTC)'], ...rows], ['l', 'l', 'l', 'l', 'l', 'r', 'r', 'l']));
      else if (results.some((r) => r.ok)) {
        const seen = [...new Set(results.flatMap((r) => r.seen ?? []))];
        // An unknown card: say which cards there are, so the next try can name one.
        const known = flags.card && seen.length ? `; cards there: ${seen.slice(0, 12).map((c) => forTerminal(c)).join(', ')}${seen.length > 12 ? ', …' : ''}` : '';
        io.stdout(`no ${flags['free-only'] ? 'free ' : ''}cards${flags.card ? ` matching ${forTerminal(flags.card)}` : ''}${flags.region ? ` in ${forTerminal(flags.region)}` : ''}${known}${results.some((r) => r.platform === 'autodl-pro') && !flags.region ? ' (AutoDL Pro: the regions of your instances are read; add --region REGION_SIGN for another)' : ''}\n`);
      }
    }
    return results.some((r) => r.ok) ? 0 : 1;
  },
};
