// The CLI's message channels: $GPU_RENT_HOME/notify.json (default ~/.config/gpu-rent/), mode
// 0600 and refused when others can read it, as the account file (../platforms/accountFile.ts);
// written atomically. It holds each channel and its secret; the secret is never printed.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ChannelSchema, ChannelSecretSchema, type ChannelSecret, type NotifyChannel } from '../../core/notify/channels';
import { writeFileAtomic } from '../atomicWrite';

export const CHANNEL_FILE = 'notify.json';
/** The laptop's sent journal beside it (rate rule and each event once). */
export const SENT_JOURNAL_FILE = 'notify-sent.jsonl';

const FileSchema = z.strictObject({
  version: z.literal(1),
  channels: z.array(z.strictObject({ channel: ChannelSchema, secret: ChannelSecretSchema })).max(50),
});

export interface StoredChannel {
  channel: NotifyChannel;
  secret: ChannelSecret;
}

export class ChannelFileError extends Error {
  readonly code = 'channel-file';
}

export async function readChannelFile(home: string): Promise<StoredChannel[]> {
  const path = join(home, CHANNEL_FILE);
  let text: string;
  try {
    const st = await stat(path);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) throw new ChannelFileError(`${path} can be read by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it first`);
    if (st.size > 1024 * 1024) throw new ChannelFileError(`${path} is over 1 MiB`);
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ChannelFileError(`${path} is not JSON`);
  }
  const r = FileSchema.safeParse(raw);
  // The path only: a value there may be a secret.
  if (!r.success) throw new ChannelFileError(`${path}: ${r.error.issues[0]?.path.join('.')}: not a valid channel entry`);
  return r.data.channels;
}

export async function writeChannelFile(home: string, channels: readonly StoredChannel[]): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileAtomic(join(home, CHANNEL_FILE), JSON.stringify({ version: 1, channels }, null, 2) + '\n', { mode: 0o600 });
}

/** The channels a task names (`notify: [...]`), in its order; the names no channel has. */
export function channelsNamed(names: readonly string[], stored: readonly StoredChannel[]): { sends: StoredChannel[]; missing: string[] } {
  const sends: StoredChannel[] = [];
  const missing: string[] = [];
  for (const n of names) {
    const c = stored.find((s) => s.channel.name === n);
    if (c) sends.push(c);
    else missing.push(n);
  }
  return { sends, missing };
}
