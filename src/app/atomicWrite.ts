// One way to replace a local file so a crash never leaves half of it: a temporary file in the
// same folder (created exclusively, with the final mode), written and synced, renamed over the
// old one, then the folder synced. A failure at any step leaves the old file and no temp file.
import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The steps tests replace to fail a write midway. */
export interface WriteSteps {
  write: (fh: FileHandle, text: string) => Promise<void>;
  rename: (from: string, to: string) => Promise<void>;
}

const defaultSteps: WriteSteps = {
  write: async (fh, text) => {
    await fh.writeFile(text, 'utf8');
  },
  rename: (from, to) => rename(from, to),
};

export async function writeFileAtomic(path: string, text: string, opts: { mode: number; steps?: Partial<WriteSteps> }): Promise<void> {
  const steps = { ...defaultSteps, ...opts.steps };
  const tmp = join(dirname(path), `.${basename(path)}.gpu-rent-${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', opts.mode);
  let renamed = false;
  try {
    try {
      await fh.chmod(opts.mode);
      await steps.write(fh, text);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await steps.rename(tmp, path);
    renamed = true;
  } finally {
    if (!renamed) await rm(tmp, { force: true });
  }
  // The rename is durable once the folder is synced (not possible on every platform).
  const dh = await open(dirname(path), 'r').catch(() => undefined);
  await dh?.sync().catch(() => undefined);
  await dh?.close();
}
