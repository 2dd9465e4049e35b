// The sent-message journal: one JSON line per message a channel took, written by whoever sent it
// (the laptop or the box's sender, box.ts, in the same format). Before sending an event to a
// channel a sender looks here: an (event id, channel) pair already in it is not sent again, so
// each event goes out once whichever side is awake. The same lines give the rate rule its
// sends of the last minute.

export type SentBy = 'laptop' | 'box';

export interface SentEntry {
  /** The event's key: one per event of one launch (`<launch>:<kind>:<n>`). */
  id: string;
  channel: string;
  /** Seconds since the epoch. */
  at: number;
  by: SentBy;
}

/** A journal larger than this is read from its end only (a run sends tens of messages, not thousands). */
export const MAX_JOURNAL_BYTES = 1024 * 1024;
export const EVENT_ID_RE = /^[A-Za-z0-9:._-]{1,200}$/;

export function journalLine(e: SentEntry): string {
  return JSON.stringify({ id: e.id, channel: e.channel, at: Math.floor(e.at), by: e.by }) + '\n';
}

/** Every readable line of a journal; a torn or foreign line is skipped, never fatal. */
export function parseJournal(text: string): SentEntry[] {
  const out: SentEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.length < 2 || line.length > 1000) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    const o = v as Partial<SentEntry>;
    if (typeof o !== 'object' || o === null) continue;
    if (typeof o.id !== 'string' || !EVENT_ID_RE.test(o.id) || typeof o.channel !== 'string' || typeof o.at !== 'number' || !Number.isFinite(o.at)) continue;
    out.push({ id: o.id, channel: o.channel, at: o.at, by: o.by === 'box' ? 'box' : 'laptop' });
  }
  return out;
}

export function wasSent(entries: readonly SentEntry[], id: string, channel: string): SentEntry | undefined {
  return entries.find((e) => e.id === id && e.channel === channel);
}

/**
 * Seconds to wait before one more message may go to `channel` under a rule of `max` messages per
 * `windowSeconds` (企业微信 and 钉钉: 20 a minute); 0 when it may go now.
 */
export function rateWait(entries: readonly SentEntry[], channel: string, nowSeconds: number, rule: { max: number; windowSeconds: number } | undefined): number {
  if (!rule) return 0;
  const recent = entries
    .filter((e) => e.channel === channel && e.at > nowSeconds - rule.windowSeconds && e.at <= nowSeconds + 5)
    .map((e) => e.at)
    .sort((a, b) => a - b);
  if (recent.length < rule.max) return 0;
  // The oldest send that must leave the window before one more fits.
  const oldest = recent[recent.length - rule.max]!;
  return Math.max(1, Math.ceil(oldest + rule.windowSeconds - nowSeconds));
}
