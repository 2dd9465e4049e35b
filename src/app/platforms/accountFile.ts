// The CLI's account file: $GPU_RENT_HOME/accounts.json (default ~/.config/gpu-rent/), mode
// 0600, refused when others can read it (as ssh refuses a readable key). Written atomically.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../atomicWrite';
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
  let text: string;
  try {
    const st = await stat(path);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) throw new AccountFileError(`${path} can be read by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it first`);
    if (st.size > 1024 * 1024) throw new AccountFileError(`${path} is over 1 MiB`);
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AccountFileError(`${path} is not JSON`);
  }
  const r = FileSchema.safeParse(raw);
  if (!r.success) throw new AccountFileError(`${path}: ${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`);
  return r.data.accounts.map((a) => {
    const s = parseSecret(a.account.kind, a.secret);
    if (!s.ok) throw new AccountFileError(`${path}: account ${a.account.id}: ${s.message}`);
    return { account: a.account, secret: s.secret };
  });
}

export async function writeAccountFile(home: string, accounts: readonly { account: Account; secret: Secret }[]): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const path = join(home, 'accounts.json');
  await writeFileAtomic(path, JSON.stringify({ version: 1, accounts }, null, 2) + '\n', { mode: 0o600 });
}
