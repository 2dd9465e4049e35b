// `gpu-rent balance [--json]`: each platform account's balance, read from the platform.
import { formatCny } from '../../core/money';
import { renderTable } from '../../core/format';
import { accountIdentity } from '../../core/platforms/billing';
import { can } from '../../core/platforms/types';
import { type FlagSpecs } from '../args';
import type { CliCommand } from '../command';
import { connectorFor, failureLine, howToAdd, loadAccounts } from './accounts';
import { LANG_FLAG_SPEC } from '../lang';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { heads, t } from '../words';
import { PlatformError } from '../../app/platforms/errors';
import { errorCode } from '../json-error';
import { allFailedCode } from './platform-fail';

const specs = {
  json: { type: 'boolean', description: 'print JSON: every account, balance {fen, yuan} with the time read, or balance null with the reason it could not be read; no account, or none read, prints {"error": {code, message}} and exits 1', zh: '以 JSON 输出：每个账号的余额 {fen, yuan} 及读取时间，读不到时 balance 为 null 并附原因；没有账号或一个都读不到时输出 {"error": {code, message}} 并以 1 退出' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

type Row = { account: string; platform: string; fen?: number; yuan?: number; readAt?: string; error?: string; errorText?: string; kind?: string; code?: string };

export const command: CliCommand = defineCommand({
  name: 'balance',
  summary: 'the balance of each platform account',
  summaryZh: '每个平台账号的余额',
  usage: 'gpu-rent balance [--json]',
  about: 'Reads the balance of each configured platform account.',
  aboutZh: '读取每个已配置平台账号的余额。',
  flags: specs,
  positionals: { max: 0 },
  run: async (_flags, { io, lang, json, warn }): Promise<Row[]> => {
    // Every billing account once: one key added for two regions (or one token twice) is read once.
    const seen = new Map<string, string>();
    const all = (await loadAccounts(io)).filter((a) => can(a.account.kind, 'balance'));
    const accounts = all.filter((a) => {
      const id = accountIdentity(a.account.kind, a.secret);
      const first = seen.get(id);
      if (first === undefined) seen.set(id, a.account.id);
      else warn(t(lang, '{0} is the same account as {1}: counted once', '{0} 与 {1} 是同一个账号：只算一次', a.account.id, first));
      return first === undefined;
    });
    // No account is a failure in every output format (a script must not read the hint as balances):
    // exit 1, the hint on stderr, and under --json the error document on stdout.
    if (!accounts.length) throw new CliFailure('no-account', howToAdd('en').trimEnd(), { say: howToAdd(lang).trimEnd() });
    const rows: Row[] = await Promise.all(
      accounts.map(async (a): Promise<Row> => {
        try {
          const b = await connectorFor(a, io).balance();
          return { account: a.account.id, platform: a.account.kind, fen: b.fen, yuan: b.fen / 100, readAt: new Date(b.readAt * 1000).toISOString() };
        } catch (e) {
          return { account: a.account.id, platform: a.account.kind, error: failureLine(e), errorText: failureLine(e, lang), kind: e instanceof PlatformError ? e.failure.kind : 'other', code: errorCode(e) };
        }
      }),
    );
    for (const r of rows) if ('error' in r) warn(`${r.account}: ${r.errorText}`);
    // No balance read at all: under --json the error object, each account's failure in `accounts` (their lines are on stderr above).
    if (json && !rows.some((r) => 'fen' in r)) {
      const failures = rows.flatMap((r) => ('error' in r ? [{ account: r.account, platform: r.platform, code: r.code ?? 'failed', message: r.error ?? '', failure: r.kind ?? 'other' }] : []));
      throw new CliFailure(allFailedCode(failures.map((f) => f.code)), failures.map((f) => `${f.account}: ${f.message}`).join('; '), { extra: { accounts: failures }, say: null });
    }
    return rows;
  },
  // Every account, an unreadable one too: balance null with the reason, never left out or taken as zero.
  json: (rows) => rows.map((r) => ('fen' in r ? { ...r, balance: { fen: r.fen, yuan: r.yuan } } : { account: r.account, platform: r.platform, balance: null, fen: null, yuan: null, readAt: null, reason: r.error, failure: r.kind })),
  // A balance that could not be read is "?", never left out or taken as zero.
  text: (rows, lang) => renderTable([heads(lang, [['ACCOUNT', '账号'], ['PLATFORM', '平台'], ['BALANCE', '余额'], ['READ AT', '读取时间']]), ...rows.map((r) => (r.fen !== undefined && r.readAt !== undefined ? [r.account, r.platform, formatCny(r.fen), r.readAt] : [r.account, r.platform, '?', '-']))], ['l', 'l', 'r', 'l']),
  exit: (rows) => (rows.every((r) => 'fen' in r) ? 0 : 1),
});
