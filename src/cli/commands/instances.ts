// `gpu-rent instances [--platform P] [--json]`: every instance of every configured account, as
// the platform reports it: state, card, price per hour (? where the platform gives none), billing
// mode, region, the platform's own release day for a shut-down AutoDL instance, SSH endpoint. What the
// platform sends is box text: every cell through forTerminal, the JSON through jsonForTerminal.
import { formatCny } from '../../core/money';
import { renderTable } from '../../core/format';
import { can, MAX_INSTANCES_PER_ACCOUNT, type Connector, type PlatformInstance } from '../../core/platforms/types';
import { mapLimited } from '../../remote/util/limit';
import { RELEASE_SOON_DAYS } from '../../core/platforms/clock';
import { beijingDateTime } from '../../core/spend';
import { forTerminal } from '../../core/text';
import { type FlagSpecs } from '../args';
import type { CliCommand } from '../command';
import { connectorFor, failureLine, howToAdd, loadAccounts, platformMatches, type CliAccount } from './accounts';
import { LANG_FLAG_SPEC } from '../lang';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { heads, stateWord, t } from '../words';
import { errorCode } from '../json-error';
import { allFailedCode } from './platform-fail';
import { RegionsFailed } from '../../app/platforms/regions';

const specs = {
  platform: { type: 'string', valueName: 'P', description: 'only this platform: autodl, aliyun, tencent, or a connector kind (autodl-pro, …)', zh: '只看这个平台：autodl、aliyun、tencent，或连接器类型（autodl-pro 等）' },
  json: { type: 'boolean', description: 'print JSON (prices in fen per hour and yuan); no account, or every account failing, prints {"error": {code, message}} and exits 1', zh: '以 JSON 输出（价格为每小时的分和元）；没有账号或所有账号都失败时输出 {"error": {code, message}} 并以 1 退出' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;


/** Cloud rows carry no price: each running one not prepaid is asked (spot: the spot price), 4 at a time, at most PRICED_PER_ACCOUNT; a price that cannot be read stays '?'. */
const PRICED_PER_ACCOUNT = 100;
async function withPrices(c: Connector, list: PlatformInstance[]): Promise<PlatformInstance[]> {
  if (!can(c.kind, 'price')) return list;
  const ask = list.filter((i) => i.priceFenPerHour === undefined && i.state === 'running' && i.billing !== undefined && i.billing !== 'prepaid').slice(0, PRICED_PER_ACCOUNT);
  if (!ask.length) return list;
  const prices = new Map<string, { fenPerHour: number; readAt: number }>();
  await mapLimited(ask, 4, async (i) => {
    const p = await c.price(i.ref).catch(() => undefined);
    if (p) prices.set(i.ref, p);
  });
  return list.map((i) => {
    const p = prices.get(i.ref);
    return p ? { ...i, priceFenPerHour: p.fenPerHour, priceReadAt: p.readAt } : i;
  });
}

type Listed = { a: CliAccount; list: PlatformInstance[] };

interface InstancesResult {
  ok: Listed[];
  /** How many accounts failed, wholly or in some regions (their lines are on stderr). */
  failed: number;
}

export const command: CliCommand = defineCommand({
  name: 'instances',
  summary: 'list the instances of your platform accounts with their real state and price',
  summaryZh: '列出平台账号下的实例及其真实状态和价格',
  usage: 'gpu-rent instances [--platform P] [--json]',
  about: 'Asks each configured platform account (gpu-rent accounts) for its instances.',
  aboutZh: '向每个已配置的平台账号（gpu-rent accounts）查询其实例。',
  flags: specs,
  positionals: { max: 0 },
  run: async (flags, { io, lang, json, warn }): Promise<InstancesResult> => {
    const accounts = (await loadAccounts(io)).filter((a) => platformMatches(a.account.kind, flags.platform));
    // No account is a failure in every output format (a script must not read the hint as instances):
    // exit 1, the hint on stderr, and under --json the error document on stdout.
    if (!accounts.length) {
      throw new CliFailure('no-account', flags.platform ? `no platform account for ${flags.platform} (gpu-rent accounts list)` : howToAdd('en').trimEnd(), {
        say: flags.platform ? t(lang, 'no platform account for {0} (gpu-rent accounts list)', '没有 {0} 的平台账号（gpu-rent accounts list 可查看）', forTerminal(flags.platform)) : howToAdd(lang).trimEnd(),
      });
    }
    const results = await Promise.all(
      accounts.map(async (a) => {
        let c: Connector | undefined;
        try {
          c = connectorFor(a, io);
          return { a, list: await withPrices(c, await c.list()) };
        } catch (e) {
          // Some regions of a cloud account failed: they are named, the others' instances still listed.
          if (e instanceof RegionsFailed && e.instances.length && c) return { a, list: await withPrices(c, e.instances).catch(() => e.instances), partial: failureLine(e, lang) };
          return { a, error: failureLine(e, lang), en: failureLine(e), code: errorCode(e) };
        }
      }),
    );
    let failed = 0;
    for (const r of results) {
      if ('partial' in r && r.partial) {
        failed++;
        warn(`${r.a.account.id}: ${r.partial}`);
      }
      if (!('error' in r)) continue;
      failed++;
      warn(`${r.a.account.id}: ${r.error}`);
    }
    const ok = results.filter((r): r is Listed => 'list' in r);
    // Every account failed: under --json the error object (each account's code and message in `accounts`), not an empty list.
    if (json && !ok.length) {
      const failures = results.flatMap((r) => ('en' in r ? [{ account: r.a.account.id, platform: r.a.account.kind, code: r.code ?? 'failed', message: r.en ?? '' }] : []));
      throw new CliFailure(allFailedCode(failures.map((f) => f.code)), failures.map((f) => `${f.account}: ${f.message}`).join('; '), { extra: { accounts: failures }, say: null });
    }
    for (const r of ok) if (r.list.length >= MAX_INSTANCES_PER_ACCOUNT) warn(`${r.a.account.id}: ${t(lang, 'showing the first {0} instances, the most read from one account', '只显示前 {0} 个实例（每个账号最多读这么多）', MAX_INSTANCES_PER_ACCOUNT)}`);
    return { ok, failed };
  },
  json: ({ ok }) =>
    ok.flatMap((r) =>
      r.list.map((i) => ({
        account: r.a.account.id,
        platform: r.a.account.kind,
        ...i,
        // A figure the platform does not send is null, never a guess.
        priceFenPerHour: i.priceFenPerHour ?? null,
        ...(i.priceFenPerHour !== undefined ? { yuanPerHour: i.priceFenPerHour / 100 } : {}),
        billing: i.billing ?? null,
        region: i.region ?? null,
        releaseAt: i.releaseAt ?? null,
        releaseDay: i.releaseAt !== undefined ? beijingDateTime(i.releaseAt) : null,
        platformTimer: i.platformTimer ? { ...i.platformTimer, atBeijing: beijingDateTime(i.platformTimer.at) } : null,
      })),
    ),
  text: ({ ok, failed }, lang) => {
    const now = Math.floor(Date.now() / 1000);
    const rows = ok.flatMap((r) =>
      r.list.map((i) =>
        [
          r.a.account.id,
          i.ref,
          i.name,
          lang === 'zh-cn' ? `${stateWord(lang, i.state)}${i.rawState && i.rawState !== i.state ? `（${i.rawState}）` : ''}` : i.rawState || i.state,
          i.card ? `${i.card}${i.gpuCount ? ` ×${i.gpuCount}` : ''}` : '?',
          i.billing === 'prepaid' ? t(lang, 'prepaid', '包月/包年') : i.priceFenPerHour !== undefined ? `${t(lang, '{0}/h', '{0}/小时', formatCny(i.priceFenPerHour))}${i.billing === 'spot' ? t(lang, ' spot', ' 抢占式') : ''}` : '?',
          i.region ?? '?',
          i.releaseAt !== undefined ? `${beijingDateTime(i.releaseAt)}${i.releaseAt - now < RELEASE_SOON_DAYS * 86400 ? t(lang, ' (soon)', '（即将）') : ''}` : '',
          // A timer the platform keeps itself (armed in its console), Beijing time.
          i.platformTimer && i.platformTimer.at > now ? `${i.platformTimer.action === 'shutdown' ? t(lang, 'shutdown', '关机') : t(lang, 'RELEASE', '释放')} ${beijingDateTime(i.platformTimer.at)}` : '',
          i.ssh ? `${i.ssh.user}@${i.ssh.host}:${i.ssh.port}` : '?',
        ].map((cell) => forTerminal(cell)),
      ),
    );
    const head = heads(lang, [['ACCOUNT', '账号'], ['INSTANCE', '实例'], ['NAME', '名称'], ['STATE', '状态'], ['GPU', 'GPU'], ['PRICE', '价格'], ['REGION', '地区'], ['RELEASED ON', '释放日期'], ['PLATFORM TIMER', '平台定时'], ['SSH', 'SSH']]);
    if (rows.length) return renderTable([head, ...rows]);
    return failed ? '' : t(lang, 'no instances\n', '没有实例\n');
  },
  exit: ({ failed }) => (failed ? 1 : 0),
});
