// `gpu-rent balance [--json]`: each platform account's balance, read from the platform.
import { formatCny } from '../../core/money';
import { renderTable } from '../../core/format';
import { accountIdentity } from '../../core/platforms/billing';
import { can } from '../../core/platforms/types';
import { formatHelp, parseArgs, type FlagSpecs } from '../args';
import type { CliCommand } from '../command';
import { connectorFor, failureLine, HOW_TO_ADD, loadAccounts } from './accounts';
import { PlatformError } from '../../app/platforms/errors';
import { jsonForTerminal } from '../../core/text';

const specs = { json: { type: 'boolean', description: 'print JSON: every account, balance {fen, yuan} with the time read, or balance null with the reason it could not be read' } } satisfies FlagSpecs;

export const command: CliCommand = {
  name: 'balance',
  summary: 'the balance of each platform account',
  summaryZh: '每个平台账号的余额',
  help: () => formatHelp('gpu-rent balance [--json]', 'Reads the balance of each configured platform account.', specs),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    // Every billing account once: one key added for two regions (or one token twice) is read once.
    const seen = new Map<string, string>();
    const all = (await loadAccounts(io)).filter((a) => can(a.account.kind, 'balance'));
    const accounts = all.filter((a) => {
      const id = accountIdentity(a.account.kind, a.secret);
      const first = seen.get(id);
      if (first === undefined) seen.set(id, a.account.id);
      else io.stderr(`gpu-rent balance: ${a.account.id} is the same account as ${first}: counted once\n`);
      return first === undefined;
    });
    if (!accounts.length) {
      io.stdout(HOW_TO_ADD);
      return 0;
    }
    const rows = await Promise.all(
      accounts.map(async (a) => {
        try {
          const b = await connectorFor(a, io).balance();
          return { account: a.account.id, platform: a.account.kind, fen: b.fen, yuan: b.fen / 100, readAt: new Date(b.readAt * 1000).toISOString() };
        } catch (e) {
          return { account: a.account.id, platform: a.account.kind, error: failureLine(e), kind: e instanceof PlatformError ? e.failure.kind : 'other' };
        }
      }),
    );
    for (const r of rows) if ('error' in r) io.stderr(`gpu-rent balance: ${r.account}: ${r.error}\n`);
    const ok = rows.filter((r): r is Extract<(typeof rows)[number], { fen: number }> => 'fen' in r);
    // Every account, an unreadable one too: balance null with the reason, never left out or taken as zero.
    if (flags.json)
      io.stdout(
        jsonForTerminal(
          rows.map((r) => ('fen' in r ? { ...r, balance: { fen: r.fen, yuan: r.yuan } } : { account: r.account, platform: r.platform, balance: null, fen: null, yuan: null, readAt: null, reason: r.error, failure: r.kind })),
          2,
        ) + '\n',
      );
    // A balance that could not be read is "?", never left out or taken as zero.
    else io.stdout(renderTable([['ACCOUNT', 'PLATFORM', 'BALANCE', 'READ AT'], ...rows.map((r) => (r.fen !== undefined && r.readAt !== undefined ? [r.account, r.platform, formatCny(r.fen), r.readAt] : [r.account, r.platform, '?', '-']))], ['l', 'l', 'r', 'l']));
    return ok.length === rows.length ? 0 : 1;
  },
};
