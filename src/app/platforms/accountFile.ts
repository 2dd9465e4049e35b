// The CLI's account file: $GPU_RENT_HOME/accounts.json (default ~/.config/gpu-rent/), mode
// 0600, refused when others can read it (as ssh refuses a readable key). Written atomically.
import { readPrivateJson, writePrivateJson } from '../privateFile';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AccountSchema, parseSecret, type Account, type Secret } from './accounts';

export function configHome(env: Record<string, string | undefined>): string {
  return env.GPU_RENT_HOME || join(env.HOME || homedir(), '.config', 'gpu-rent');
}

const FileSchema = z.strictObject({
  version: z.literal(1),
  accounts: z.array(z.strictObject({ account: AccountSchema, secret: z.record(z.string(), z.string().max(8192)) })).max(100),
});

export class AccountFileError extends Error {}

export async function readAccountFile(home: string): Promise<{ account: Account; secret: Secret }[]> {
  const path = join(home, 'accounts.json');
  const data = await readPrivateJson(path, FileSchema, (m) => new AccountFileError(m));
  if (!data) return [];
  const r = { data };
  return r.data.accounts.map((a) => {
    const s = parseSecret(a.account.kind, a.secret);
    if (!s.ok) throw new AccountFileError(`${path}: account ${a.account.id}: ${s.message}`);
    return { account: a.account, secret: s.secret };
  });
}

export async function writeAccountFile(home: string, accounts: readonly { account: Account; secret: Secret }[]): Promise<void> {
  await writePrivateJson(home, 'accounts.json', { version: 1, accounts });
}
