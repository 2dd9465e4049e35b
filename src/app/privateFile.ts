// The CLI's private JSON files beside each other in its config home (accounts.json, stores.json,
// notify.json): mode 0600 and refused when others can read them, at most 1 MiB, checked by a zod
// schema, written atomically. One reader and one writer for all of them.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { writeFileAtomic } from './atomicWrite';

export const MAX_PRIVATE_FILE_BYTES = 1024 * 1024;

/**
 * The file's content as `schema` reads it; undefined when there is no file. A file others can
 * read, one over 1 MiB, one that is not JSON or not of the schema is an error made by `fail`;
 * with `quietIssues` the schema's complaint names only the field (a value there may be a secret).
 */
export async function readPrivateJson<T>(path: string, schema: z.ZodType<T>, fail: (message: string) => Error, o: { quietIssues?: boolean; onlyRefuseWritable?: boolean } = {}): Promise<T | undefined> {
  let text: string;
  try {
    const st = await stat(path);
    // A file of secrets is refused when others can read it; one that only decides actions (the schedules), when others can write it.
    if (process.platform !== 'win32' && (st.mode & (o.onlyRefuseWritable ? 0o022 : 0o077)) !== 0) throw fail(`${path} can be ${o.onlyRefuseWritable ? 'written' : 'read'} by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it first`);
    if (st.size > MAX_PRIVATE_FILE_BYTES) throw fail(`${path} is over 1 MiB`);
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw fail(`${path} is not JSON`);
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw fail(`${path}: ${issue?.path.join('.')}: ${o.quietIssues ? 'not a valid entry' : issue?.message}`);
  }
  return r.data;
}

/** Writes `value` as `home/name` (0600, atomically), making `home` (0700) first. */
export async function writePrivateJson(home: string, name: string, value: unknown): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileAtomic(join(home, name), JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
}
