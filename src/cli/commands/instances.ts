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
import { forTerminal, jsonForTerminal } from '../../core/text';
import { formatHelp, parseArgs, type FlagSpecs } from '../args';
import type { CliCommand } from '../command';
import { connectorFor, failureLine, HOW_TO_ADD, loadAccounts, platformMatches } from './accounts';

const specs = {
  platform: { type: 'string', valueName: 'P', description: 'only this platform: autodl, aliyun, tencent, or a connector kind (autodl-pro, …)' },
  json: { type: 'boolean', description: 'print JSON (prices in fen per hour and yuan)' },
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

export const command: CliCommand = {
  name: 'instances',
  summary: 'list the instances of your platform accounts with their real state and price',
  help: () => formatHelp('gpu-rent instances [--platform P] [--json]', 'Asks each configured platform account (gpu-rent accounts) for its instances.', specs),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    const accounts = (await loadAccounts(io)).filter((a) => platformMatches(a.account.kind, flags.platform));
    if (!accounts.length) {
      io.stdout(HOW_TO_ADD);
      return 0;
    }
    const results = await Promise.all(
      accounts.map(async (a) => {
        try {
          const c = connectorFor(a, io);
          return { a, list: await withPrices(c, await c.list()) };
        } catch (e) {
          return { a, error: failureLine(e) };
        }
      }),
    );
    let failed = 0;
    for (const r of results) {
      if (!('error' in r)) continue;
      failed++;
      io.stderr(`gpu-rent instances: ${r.a.account.id}: ${r.error}\n`);
    }
    const ok = results.filter((r): r is { a: (typeof accounts)[number]; list: PlatformInstance[] } => 'list' in r);
    for (const r of ok) if (r.list.length >= MAX_INSTANCES_PER_ACCOUNT) io.stderr(`gpu-rent instances: ${r.a.account.id}: showing the first ${MAX_INSTANCES_PER_ACCOUNT} instances, the most read from one account\n`);
    if (flags.json) {
      const rows = ok.flatMap((r) =>
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
        })),
      );
      io.stdout(jsonForTerminal(rows, 2) + '\n');
    } else {
      const now = Math.floor(Date.now() / 1000);
      const rows = ok.flatMap((r) =>
        r.list.map((i) =>
          [
            r.a.account.id,
            i.ref,
            i.name,
            i.rawState || i.state,
            i.card ? `${i.card}${i.gpuCount ? ` ×${i.gpuCount}` : ''}` : '?',
            i.billing === 'prepaid' ? 'prepaid' : i.priceFenPerHour !== undefined ? `${formatCny(i.priceFenPerHour)}/h${i.billing === 'spot' ? ' spot' : ''}` : '?',
            i.region ?? '?',
            i.releaseAt !== undefined ? `${beijingDateTime(i.releaseAt)}${i.releaseAt - now < RELEASE_SOON_DAYS * 86400 ? ' (soon)' : ''}` : '',
            i.ssh ? `${i.ssh.user}@${i.ssh.host}:${i.ssh.port}` : '?',
          ].map((cell) => forTerminal(cell)),
        ),
      );
      if (rows.length) io.stdout(renderTable([['ACCOUNT', 'INSTANCE', 'NAME', 'STATE', 'GPU', 'PRICE', 'REGION', 'RELEASED ON', 'SSH'], ...rows]));
      else if (!failed) io.stdout('no instances\n');
    }
    return failed ? 1 : 0;
  },
};
