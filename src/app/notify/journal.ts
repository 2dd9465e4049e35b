// The sent-message journal on a local disk (the laptop's, or the box's read back): its format is
// core/notify/journal.ts's, which the box's sender writes too. recordSent is what a sender calls
// after a message went, or what the launch calls to tell the box an event is already out.
import { open, stat } from 'node:fs/promises';
import { journalLine, MAX_JOURNAL_BYTES, parseJournal, type SentBy, type SentEntry } from '../../core/notify/journal';

/** The journal's entries (its last MiB); none when it does not exist yet. */
export async function readSent(path: string): Promise<SentEntry[]> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  try {
    const size = (await fh.stat()).size;
    const from = Math.max(0, size - MAX_JOURNAL_BYTES);
    const buf = Buffer.alloc(size - from);
    await fh.read(buf, 0, buf.length, from);
    return parseJournal(buf.toString('utf8'));
  } finally {
    await fh.close();
  }
}

/** Appends one line (O_APPEND, created 0600): concurrent senders never tear each other's lines. */
export async function appendSent(path: string, e: SentEntry): Promise<void> {
  const fh = await open(path, 'a', 0o600);
  try {
    await fh.write(journalLine(e));
  } finally {
    await fh.close();
  }
}

/** Records that `eventId` went to `channel`, so a later sender (here or on the box) skips it. */
export async function recordSent(path: string, eventId: string, channel: string, by: SentBy, atSeconds = Math.floor(Date.now() / 1000)): Promise<void> {
  await appendSent(path, { id: eventId, channel, at: atSeconds, by });
}

/** Whether the journal file exists and how large it is (for status displays). */
export async function journalSize(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}
