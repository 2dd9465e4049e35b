// The CLI's message channels: $GPU_RENT_HOME/notify.json (default ~/.config/gpu-rent/), mode
// 0600 and refused when others can read it, as the account file (../platforms/accountFile.ts);
// written atomically. It holds each channel and its secret; the secret is never printed.
import { readPrivateJson, writePrivateJson } from '../privateFile';
import { join } from 'node:path';
import { z } from 'zod';
import { ChannelSchema, ChannelSecretSchema, type ChannelSecret, type NotifyChannel } from '../../core/notify/channels';

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
  // quietIssues: the schema's complaint names the field only (a value there may be a secret).
  return (await readPrivateJson(join(home, CHANNEL_FILE), FileSchema, (m) => new ChannelFileError(m), { quietIssues: true }))?.channels ?? [];
}

export async function writeChannelFile(home: string, channels: readonly StoredChannel[]): Promise<void> {
  await writePrivateJson(home, CHANNEL_FILE, { version: 1, channels });
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
