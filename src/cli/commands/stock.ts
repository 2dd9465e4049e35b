// `gpu-rent stock [--account ID] [--card C] [--region R] [--json]`: which cards are free now, per
// account and region, with the price per hour where the platform sends one (`?` where it does
// not). An account is read at most once a minute: app/platforms/stockCache.ts' rule, its reads kept
// in $GPU_RENT_HOME/cache/ (0600) and reused within the minute by the next call.
import { join } from 'node:path';
import { configHome } from '../../app/platforms/accountFile';
import { PlatformError } from '../../app/platforms/errors';
import { hasStock } from '../../app/platforms/stock';
import { FileStockStore, StockCache } from '../../app/platforms/stockCache';
import { renderTable } from '../../core/format';
import { formatCny } from '../../core/money';
import { filterStock, freeText, sortStock, STOCK_TTL_S, stockJson, type StockRow } from '../../core/platforms/stock';
import { descriptorOf, type PlatformKind } from '../../core/platforms/descriptors';
import { REGION_ID } from '../../core/platforms/regions';
import { forTerminal } from '../../core/text';
import { UsageError, type FlagSpecs } from '../args';
import type { CliCommand, CliIO } from '../command';
import { connectorFor, failureLine, howToAdd, loadAccounts } from './accounts';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { heads, t } from '../words';
import { errorCode } from '../json-error';
import { allFailedCode } from './platform-fail';

const specs = {
  account: { type: 'string', valueName: 'ID', description: 'only this account', zh: '只看这个账号' },
  card: { type: 'string', valueName: 'C', description: 'only cards whose name contains C (4090 matches "RTX 4090"; on 阿里云/腾讯云 the instance type or family, e.g. gn7i, GN7)', zh: '只看名称包含 C 的显卡（4090 匹配 "RTX 4090"；阿里云/腾讯云 上为实例规格或规格族，如 gn7i、GN7）' },
  region: { type: 'string', valueName: 'R', description: 'only region R (AutoDL Pro: a data-center code such as westDC2, as the elastic-deployment page lists them; 阿里云/腾讯云 region id such as cn-hangzhou, ap-guangzhou)', zh: '只看地区 R（AutoDL Pro：数据中心代码，如 westDC2，即弹性部署文档所列；阿里云/腾讯云 的地域 ID，如 cn-hangzhou、ap-guangzhou）' },
  'free-only': { type: 'boolean', description: 'leave out what is sold out', zh: '不显示已售罄的' },
  json: { type: 'boolean', description: 'print JSON: {readAt, accounts: [{account, platform, ok, error, rows: [{card, proSpec, region, zone, instanceType, status, free, total, gpus, priceFenPerHour, source, readAt}]}]}; no account, or none read, prints {"error": {code, message}} and exits 1', zh: '以 JSON 输出：{readAt, accounts: [{account, platform, ok, error, rows: [{card, proSpec, region, zone, instanceType, status, free, total, gpus, priceFenPerHour, source, readAt}]}]}；没有账号或一个都读不到时输出 {"error": {code, message}} 并以 1 退出' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent stock [--account ID] [--card C] [--region R] [--free-only] [--json]';
const SUMMARY = [
  'Which cards are free now, per account and region, with the price per hour.',
  'AutoDL Pro: gpu_stock of the elastic pool for every data center (westDC2 … yangzhouDC1, or --region),',
  'no instance needed: free/total GPUs as the pool names the card, its Pro spec where a source maps it, no price.',
  'AutoDL console token: free GPUs on the hosts of your instances. 阿里云: DescribeAvailableResource',
  '(GPU instance types Available / SoldOut per zone, no count). 腾讯云: DescribeZoneInstanceConfigInfos',
  '(SELL / SOLD_OUT per zone, with the pay-as-you-go price). "?" is what the platform does not say.',
  `Each account is read at most once a minute (${STOCK_TTL_S} s cache in $GPU_RENT_HOME/cache/).`,
].join('\n');

const SUMMARY_ZH = [
  '现在哪些显卡空闲：按账号和地区列出，附每小时价格。',
  'AutoDL Pro：弹性部署资源池的 gpu_stock，读每个数据中心（westDC2 … yangzhouDC1，或 --region），',
  '无需已有实例：空闲/总 GPU 数，显卡名按资源池的叫法，有来源对应时附 Pro 规格，无价格。',
  'AutoDL 控制台令牌：你的实例所在主机上的空闲 GPU。阿里云：DescribeAvailableResource',
  '（各可用区 GPU 实例规格 Available / SoldOut，无数量）。腾讯云：DescribeZoneInstanceConfigInfos',
  '（各可用区 SELL / SOLD_OUT，附按量计费价格）。"?" 表示平台没有给出。',
  `每个账号每分钟最多读一次（缓存 ${STOCK_TTL_S} 秒，位于 $GPU_RENT_HOME/cache/）。`,
].join('\n');

interface AccountStock {
  account: string;
  platform: PlatformKind;
  ok: boolean;
  error?: string;
  /** `error` in the output language (JSON keeps `error` in English). */
  errorText?: string;
  failure?: string;
  /** The failure's stable code (platform-fail.ts). */
  code?: string;
  rows: StockRow[];
  /** Cards read before --card/--free-only were applied (for the "no such card" message). */
  seen?: string[];
}

/**
 * The CLI's stock cache: the shared once-a-minute rule over files in $GPU_RENT_HOME/cache/ (each
 * command is its own process), with the command's one clock reading as its time.
 */
export function cliStockCache(io: CliIO, now: number): StockCache {
  return new StockCache(new FileStockStore(join(configHome(io.env), 'cache')), () => now);
}

interface StockResult {
  now: number;
  results: AccountStock[];
  flags: { card?: string; region?: string; 'free-only'?: boolean };
}

function stockText({ results, flags }: StockResult, lang: CliLang): string {
  const rows = results.flatMap((r) => r.rows.map((s) => [r.account, s.region, s.zone ?? '', s.proSpec ? `${s.card} (Pro ${s.proSpec})` : s.card, s.status === 'free' ? t(lang, 'yes', '有') : s.status === 'soldOut' ? t(lang, 'sold out', '售罄') : '?', freeText(s), s.priceFenPerHour !== undefined ? t(lang, '{0}/h', '{0}/小时', formatCny(s.priceFenPerHour)) : '?', new Date(s.readAt * 1000).toISOString().slice(11, 19)].map((x) => forTerminal(x))));
  const head = heads(lang, [['ACCOUNT', '账号'], ['REGION', '地区'], ['ZONE/HOST', '可用区/主机'], ['CARD', '显卡'], ['FREE NOW', '现在有卡'], ['FREE', '空闲'], ['PRICE', '价格'], ['READ AT (UTC)', '读取时间 (UTC)']]);
  if (rows.length) return renderTable([head, ...rows], ['l', 'l', 'l', 'l', 'l', 'r', 'r', 'l']);
  if (!results.some((r) => r.ok)) return '';
  const seen = [...new Set(results.flatMap((r) => r.seen ?? []))];
  // An unknown card: say which cards there are, so the next try can name one.
  const list = `${seen.slice(0, 12).map((c) => forTerminal(c)).join(', ')}${seen.length > 12 ? ', …' : ''}`;
  const known = flags.card && seen.length ? t(lang, '; cards there: {0}', '；那里有的显卡：{0}', list) : '';
  const pro = results.some((r) => descriptorOf(r.platform).stockRegionsFromInstances) && !flags.region ? t(lang, ' (AutoDL Pro: the regions of your instances are read; add --region REGION_SIGN for another)', '（AutoDL Pro：只读你的实例所在地区；其他地区请加 --region REGION_SIGN）') : '';
  if (lang === 'zh-cn') return `${flags.region ? `${forTerminal(flags.region)} ` : ''}没有${flags.card ? `匹配 ${forTerminal(flags.card)} 的` : ''}${flags['free-only'] ? '空闲' : ''}显卡${known}${pro}\n`;
  return `no ${flags['free-only'] ? 'free ' : ''}cards${flags.card ? ` matching ${forTerminal(flags.card)}` : ''}${flags.region ? ` in ${forTerminal(flags.region)}` : ''}${known}${pro}\n`;
}

export const command: CliCommand = defineCommand({
  name: 'stock',
  summary: 'which cards are free now, per account and region, with the price per hour',
  summaryZh: '现在哪些显卡空闲：按账号和地区列出，附每小时价格',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 0 },
  run: async (flags, { io, lang, json, warn }): Promise<StockResult> => {
    if (flags.region !== undefined && !REGION_ID.test(flags.region.toLowerCase())) throw new UsageError(`--region: "${forTerminal(flags.region.slice(0, 60))}" is not a region id`, `--region："${forTerminal(flags.region.slice(0, 60))}" 不是地区 ID`);
    if (flags.card !== undefined && (flags.card.trim() === '' || flags.card.length > 60)) throw new UsageError('--card: a card name such as 4090, A100 or gn7i', '--card：显卡名称，如 4090、A100 或 gn7i');
    const all = await loadAccounts(io);
    const accounts = all.filter((a) => !flags.account || a.account.id === flags.account);
    // No account is a failure in every output format (a script must not read the hint as stock):
    // exit 1, the hint on stderr, and under --json the error document on stdout.
    if (!all.length) throw new CliFailure('no-account', howToAdd('en').trimEnd(), { say: howToAdd(lang).trimEnd() });
    if (!accounts.length) throw new CliFailure('no-account', `no account ${flags.account ?? ''} (gpu-rent accounts list)`, { say: t(lang, 'no account {0} (gpu-rent accounts list)', '没有账号 {0}（gpu-rent accounts list 可查看）', forTerminal(flags.account ?? '')) });
    const regions = flags.region ? [flags.region] : [];
    const now = Math.floor(Date.now() / 1000);
    const cache = cliStockCache(io, now);
    const results: AccountStock[] = await Promise.all(
      accounts.map(async (a): Promise<AccountStock> => {
        const c = connectorFor(a, io);
        if (!hasStock(c)) return { account: a.account.id, platform: a.account.kind, ok: false, error: 'this platform has no stock read', failure: 'notSupported', code: 'not-supported', rows: [] };
        try {
          const rows = await cache.read(a.account, c, regions.length ? { regions } : {});
          return { account: a.account.id, platform: a.account.kind, ok: true, rows: sortStock(filterStock(rows, { ...(flags.card ? { card: flags.card } : {}), ...(flags.region ? { region: flags.region } : {}), freeOnly: flags['free-only'] === true })), seen: [...new Set(filterStock(rows, flags.region ? { region: flags.region } : {}).map((r) => r.instanceType ?? r.card))] };
        } catch (e) {
          return { account: a.account.id, platform: a.account.kind, ok: false, error: failureLine(e), errorText: failureLine(e, lang), failure: e instanceof PlatformError ? e.failure.kind : 'other', code: errorCode(e), rows: [] };
        }
      }),
    );
    for (const r of results) if (!r.ok) warn(`${r.account}: ${r.errorText ?? (r.error === 'this platform has no stock read' ? t(lang, r.error, '这个平台不提供库存查询') : (r.error ?? t(lang, 'failed', '失败')))}`);
    // No account read: under --json the error object, each account's failure in `accounts` (their lines are on stderr above).
    if (json && !results.some((r) => r.ok)) {
      throw new CliFailure(allFailedCode(results.map((r) => r.code ?? 'failed')), results.map((r) => `${r.account}: ${r.error ?? 'failed'}`).join('; '), { extra: { accounts: results.map((r) => ({ account: r.account, platform: r.platform, code: r.code ?? 'failed', message: r.error ?? 'failed', failure: r.failure ?? null })) }, say: null });
    }
    return { now, results, flags: { ...(flags.card !== undefined ? { card: flags.card } : {}), ...(flags.region !== undefined ? { region: flags.region } : {}), ...(flags['free-only'] ? { 'free-only': true } : {}) } };
  },
  json: ({ now, results }) => ({ readAt: now, accounts: results.map((r) => ({ account: r.account, platform: r.platform, ok: r.ok, error: r.error ?? null, failure: r.failure ?? null, rows: r.rows.map(stockJson) })) }),
  text: stockText,
  exit: ({ results }) => (results.some((r) => r.ok) ? 0 : 1),
});
