// A big compressible file pushed through the box's own zstd or gzip (segment-codec.ts picks:
// zstd where both ends have it, else gzip -6): the file is cut into segments (512 KiB, 1 MiB,
// 2, 4, then 8 MiB of the original), each compressed here (the next one already while the one
// before crosses) and written, a header line before it, into ONE channel per file whose command
// on the box reads them in turn: it takes exactly the segment's bytes (`head -c`), inflates them
// beside NAME.part, appends them once the .part holds exactly the bytes before them, and prints
// the .part's size; after the last, the .part's SHA-256. A segment counts (and its bytes go into
// the SHA-256 that push verifies against the box's) only when its answer says the .part grew by
// exactly the segment, so what is on the box after a cut is a true prefix, which the next push
// resumes as it resumes an SFTP upload. Up to IN_FLIGHT segments are written and not yet
// answered, so the link never waits for an answer. (A channel per segment, as before, put a
// channel open and its request behind every byte already queued on the connection: through a
// 10 Mbit/s link the next segment's channel was ready only after the one before had crossed,
// and the link idled ~100 ms at each segment's end.) Where compressing is the bottleneck (a free
// slot waits for the next segment) the level steps down (zstd 6, 3, 1; gzip 6, 1); where even
// the lowest is slower than the link carries plain bytes (a fast link), or a segment fails, the
// rest goes over SFTP from the last confirmed byte.
import { promises as fsp } from 'node:fs';
import { shQuote } from '../shell';
import { boxCompression } from './compress';
import { HASH_ARGS, parseHashOutput, type HashAnswer } from './remote-hash';
import { segmentCodec, type SegmentCodec } from './segment-codec';
import type { SyncRemote } from './types';

export const SEGMENT_BYTES = 8 * 1024 * 1024;
/** The first segment is small, so the first compressed bytes leave within ~0.1 s; each next one doubles up to SEGMENT_BYTES. */
const FIRST_SEGMENT = 512 * 1024;
export { GZIP_MIN_FILE } from './push-plan';

export interface GzipPushResult {
  /** Bytes of the original confirmed on the box (from `from` on). */
  raw: number;
  /** Compressed bytes sent for them. */
  wire: number;
  /** Why the rest (if any) is left to SFTP: 'fast-link', 'failed' or 'aborted'. */
  stopped?: 'fast-link' | 'failed' | 'aborted';
  /** The box's SHA-256 of the whole .part, said by the last segment's command (all of the file went this way). */
  box?: HashAnswer;
}

/** A segment's answer is its .part's size (and, the last, a hash line): anything longer is refused. */
const ANSWER_BYTES = 256;

/** Segments written and not yet answered: the next one is on the wire while the box answers one. */
export const IN_FLIGHT = 2;

/**
 * The box's side of one file's segments, "$1" the .part, "$2" the inflating command (a fixed
 * word list: split by the box's shell on purpose). Each segment is a header line "OFFSET BYTES
 * LAST" (digits; LAST 1 for the file's last) and exactly BYTES compressed bytes, taken with
 * `head -c` (which reads no further; the probe checks the box's does not) and inflated into
 * "$1.seg<OFFSET>". The one at offset 0 replaces whatever .part was there; any other is
 * appended only where the .part holds exactly OFFSET bytes. Each prints OFFSET plus what it
 * inflated to; after the last, the .part's SHA-256 (an `h` line, or `none`), then it exits.
 * stdin's end before a last segment (push went on over SFTP) ends it quietly; anything else
 * unexpected stops it with its .seg removed, and push goes on over SFTP from the last answer.
 */
const SEGMENTS =
  'p=$1; z=$2; l=0; while read -r o n l; do ' +
  'case "$o$n" in ""|*[!0-9]*) exit 8;; esac; case "$l" in 0|1) ;; *) exit 8;; esac; ' +
  's="$p.seg$o"; head -c "$n" | $z > "$s" || { rm -f -- "$s"; exit 4; }; m=$(wc -c < "$s") || { rm -f -- "$s"; exit 4; }; ' +
  'if [ "$o" -eq 0 ]; then mv -f -- "$s" "$p" || { rm -f -- "$s"; exit 4; }; ' +
  'else c=$(wc -c < "$p" 2>/dev/null) || c=0; [ "$c" -eq "$o" ] || { rm -f -- "$s"; exit 5; }; cat -- "$s" >> "$p" || { rm -f -- "$s"; exit 4; }; rm -f -- "$s"; fi; ' +
  'echo $((o + m)); [ "$l" = 1 ] && break; done; [ "$l" = 1 ] || exit 0; ' +
  `set -- "$p"; ${HASH_ARGS}`;

/** The box's command for `part`'s segments, inflated by `inflate`. */
export const segmentsCommand = (part: string, inflate: string) => `/bin/sh -c ${shQuote(SEGMENTS)} sh ${shQuote(part)} ${shQuote(inflate)}`;

/** One segment as it goes into the channel: its header line, then its compressed bytes. */
export const segmentHeader = (off: number, bytes: number, last: boolean) => Buffer.from(`${off} ${bytes} ${last ? 1 : 0}\n`, 'latin1');

/** A segment's answer: the .part's size, then (the last one) its hash; undefined where it is not that. */
export function readSegmentAnswer(out: string, want: number, last: boolean, part: string): { box?: HashAnswer } | undefined {
  const nl = out.indexOf('\n');
  const size = (nl < 0 ? out : out.slice(0, nl)).trim();
  if (!/^\d{1,16}$/.test(size) || Number(size) !== want) return undefined;
  if (!last) return {};
  const box = parseHashOutput(nl < 0 ? '' : out.slice(nl + 1), { path: part });
  return box.full === undefined ? {} : { box };
}

export interface GzipPushOptions {
  from: number;
  size: number;
  hash: { update(d: Buffer): void };
  signal?: AbortSignal;
  onBytes?: (n: number) => void;
  level?: number;
  codec?: SegmentCodec;
  inFlight?: number;
}

/** A segment read and compressed: its original bytes, what goes on the wire, and how long compressing took. */
interface Seg {
  raw: Buffer;
  z: Buffer;
  off: number;
  level: number;
  compressMs: number;
}

type Answer = { ok: boolean; box: HashAnswer | undefined; sendMs: number };

/** A segment written into the channel and not yet answered. */
interface Waiting {
  seg: Seg;
  last: boolean;
  writtenAt: number;
  answer: Promise<Answer>;
  settle: (a: Answer) => void;
}

/** The channel's stdin: what push writes, handed over as the channel takes it. */
class Feed implements AsyncIterable<Buffer> {
  private readonly items: Buffer[] = [];
  private ended = false;
  private wake: (() => void) | undefined;
  push(...b: Buffer[]): void {
    if (this.ended) return;
    this.items.push(...b);
    this.wake?.();
  }
  end(): void {
    this.ended = true;
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      while (this.items.length) yield this.items.shift()!;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/** How long a segment may go unanswered once it is the oldest written: a minute and a half, and 1 ms per 10 kB of it. */
const answerDeadlineMs = (z: number) => 90_000 + Math.ceil(z / 10_000);

/** One compressed push under way: the segments read ahead, those written and not yet answered, and what the box confirmed. */
class SegmentPush {
  private at: number;
  private wire = 0;
  private segment = FIRST_SEGMENT;
  /** The levels to step down through, from the one this push starts at. */
  private readonly levels: readonly number[];
  private level: number;
  private readonly stop = new AbortController();
  private readonly onAbort = () => this.stop.abort();
  private readonly width: number;
  /** Written, oldest first; `unheard` the same ones whose answer line has not come. */
  private readonly waiting: Waiting[] = [];
  private readonly unheard: Waiting[] = [];
  private readonly feed = new Feed();
  private out = '';
  private channel: Promise<number | null> | undefined;
  private queued: number;
  /** Where the next segment written must start (a short read, the file shrinking, breaks it). */
  private sentEnd: number;
  private fastLink = false;
  private box: HashAnswer | undefined;
  // One segment read and compressed ahead: a freed slot sends at once.
  private ahead: Promise<Seg> | undefined;
  private aheadReady = false;
  /** The last confirmed segment and how long it took to cross; when the one before was answered. */
  private last: { seg: Seg; sendMs: number } | undefined;
  private lastAnswerAt = 0;
  private deadline: NodeJS.Timeout | undefined;

  constructor(
    private readonly remote: SyncRemote,
    private readonly stream: NonNullable<SyncRemote['stream']>,
    private readonly fh: fsp.FileHandle,
    private readonly part: string,
    private readonly codec: SegmentCodec,
    private readonly o: GzipPushOptions,
  ) {
    this.at = o.from;
    this.levels = o.level !== undefined ? [o.level, ...codec.levels.filter((l) => l < o.level!)] : codec.levels;
    this.level = this.levels[0]!;
    o.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.width = Math.max(1, o.inFlight ?? IN_FLIGHT);
    this.queued = this.at;
    this.sentEnd = this.at;
  }

  async run(): Promise<GzipPushResult> {
    const o = this.o;
    try {
      if (!(await this.fill())) return await this.giveUp('failed');
      while (this.waiting.length) {
        const { seg } = this.waiting[0]!;
        const r = await this.waiting[0]!.answer;
        if (o.signal?.aborted) return await this.giveUp('aborted');
        if (!r.ok) return await this.giveUp('failed');
        this.waiting.shift();
        this.watch();
        this.box = r.box;
        o.hash.update(seg.raw);
        o.onBytes?.(seg.raw.length);
        this.at += seg.raw.length;
        this.wire += seg.z.length;
        this.last = { seg, sendMs: r.sendMs };
        if (!(await this.fill())) return await this.giveUp('failed');
      }
      // Nothing left unanswered, but stopped meanwhile: a Ctrl-C is an interrupt, a box that
      // printed more than answers a failure (the rest is SFTP's), not a fast link.
      if (o.signal?.aborted) return await this.giveUp('aborted');
      if (this.stop.signal.aborted) return await this.giveUp('failed');
      // All answered: the box's loop ends with stdin (after a last segment it has ended already).
      this.feed.end();
      await this.channel;
      const { at, wire, box } = this;
      return at < o.size ? { raw: at - o.from, wire, stopped: 'fast-link' } : { raw: at - o.from, wire, ...(box ? { box } : {}) };
    } finally {
      clearTimeout(this.deadline);
      this.feed.end();
      o.signal?.removeEventListener('abort', this.onAbort);
      await this.ahead?.catch(() => undefined);
      await this.fh.close();
    }
  }

  private async readSeg(off: number, len: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const { bytesRead } = await this.fh.read(buf, got, len - got, off + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  }

  private async prepare(off: number, len: number): Promise<Seg> {
    const raw = await this.readSeg(off, len);
    const t0 = performance.now();
    const at = this.level;
    const z = raw.length ? await this.codec.compress(raw, at) : raw;
    return { raw, z, off, level: at, compressMs: performance.now() - t0 };
  }

  /** The box's loop, started with the first segment: its answers read as they come, in order. */
  private open(): void {
    this.channel = this.stream(segmentsCommand(this.part, this.codec.inflate), {
      stdin: this.feed,
      signal: this.stop.signal,
      onStdout: (c) => this.heard(c),
    }).then(
      (r) => r.code,
      () => null,
    );
    // The box's loop ended: the last segment's answer is all it printed after its size line;
    // any other segment still unheard failed.
    void this.channel.then((code) => {
      for (const w of this.unheard.splice(0)) {
        const answer = code === 0 && w.last ? readSegmentAnswer(this.out, w.seg.off + w.seg.raw.length, true, this.part) : undefined;
        this.settle(w, answer);
        this.out = '';
      }
    });
  }

  /** Answer lines, each the oldest unheard segment's; the last segment's is read when the loop ends. */
  private heard(c: Buffer): void {
    this.out += c.toString('latin1');
    for (let nl = this.out.indexOf('\n'); nl >= 0 && this.unheard.length && !this.unheard[0]!.last; nl = this.out.indexOf('\n')) {
      const line = this.out.slice(0, nl);
      this.out = this.out.slice(nl + 1);
      const w = this.unheard.shift()!;
      this.settle(w, readSegmentAnswer(line, w.seg.off + w.seg.raw.length, false, this.part));
    }
    // More than answers: the box is not running the loop it was given.
    if (this.out.length > ANSWER_BYTES * Math.max(1, this.unheard.length)) this.stop.abort();
  }

  private settle(w: Waiting, answer: { box?: HashAnswer } | undefined): void {
    const now = performance.now();
    // What this segment's crossing took: from when it was written or when the one before was answered, whichever came later.
    w.settle({ ok: answer !== undefined, box: answer?.box, sendMs: now - Math.max(w.writtenAt, this.lastAnswerAt) });
    this.lastAnswerAt = now;
  }

  /** The oldest unanswered segment's deadline: a box that takes its bytes and never answers is stopped. */
  private watch(): void {
    clearTimeout(this.deadline);
    const w = this.waiting[0];
    if (w) this.deadline = setTimeout(() => this.stop.abort(), answerDeadlineMs(w.seg.z.length)).unref();
  }

  /** One segment into the channel: its header, then its bytes. */
  private write(seg: Seg): void {
    const last = seg.off + seg.raw.length === this.o.size;
    let settle!: (a: Answer) => void;
    const answer = new Promise<Answer>((resolve) => (settle = resolve));
    const w: Waiting = { seg, last, writtenAt: performance.now(), answer, settle };
    this.waiting.push(w);
    this.unheard.push(w);
    if (!this.channel) this.open();
    if (this.waiting.length === 1) this.watch();
    this.feed.push(segmentHeader(seg.off, seg.z.length, last), seg.z);
  }

  // Nothing on its way and the next segment still being compressed: the link waits for
  // compressing (a slot free while another segment still crosses is not that). The
  // level steps down one notch; at the lowest, where plain bytes would cross faster than that
  // level compresses (as the last segment measured), what is not yet sent goes as it is.
  private stalled(): void {
    const { last, levels, level } = this;
    if (!last) return;
    const i = levels.indexOf(level);
    if (i >= 0 && i < levels.length - 1) this.level = levels[i + 1]!;
    else if (last.seg.level === level && last.seg.raw.length / (last.seg.z.length / Math.max(1, last.sendMs)) < last.seg.compressMs) this.fastLink = true;
  }

  private next(): void {
    const o = this.o;
    if (this.ahead || this.fastLink || this.queued >= o.size) return;
    const len = Math.min(this.segment, o.size - this.queued);
    this.segment = Math.min(SEGMENT_BYTES, this.segment * 2);
    this.aheadReady = false;
    const ahead = (this.ahead = this.prepare(this.queued, len));
    ahead.then(
      () => (this.aheadReady = true),
      () => undefined,
    );
    this.queued += len;
  }

  /** Fills the free slots; false where a segment could not be read or compressed. */
  private async fill(): Promise<boolean> {
    try {
      while (!this.fastLink && this.waiting.length < this.width && !this.stop.signal.aborted) {
        this.next();
        if (!this.ahead) return true;
        if (!this.aheadReady && this.waiting.length === 0) this.stalled();
        const seg = await this.ahead;
        this.ahead = undefined;
        if (seg.raw.length === 0 || seg.off !== this.sentEnd) return false;
        this.write(seg);
        this.sentEnd += seg.raw.length;
        this.next();
      }
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Stops the box's loop and removes what it leaves: a segment stopped while it inflates is
   * killed with its NAME.part.seg<off> still there. After a failure the SFTP upload of the rest
   * waits for that; after an interrupt it is left to run on its own.
   */
  private async giveUp(stopped: 'failed' | 'aborted'): Promise<GzipPushResult> {
    const part = this.part;
    this.stop.abort();
    this.feed.end();
    const left = this.waiting.splice(0);
    const cleaned = (this.channel ?? Promise.resolve(null))
      .then(() => (left.length ? this.remote.exec(`rm -f -- ${left.map((x) => shQuote(`${part}.seg${x.seg.off}`)).join(' ')}`, { timeoutMs: 15_000, login: false }) : undefined))
      .catch(() => undefined);
    if (stopped === 'failed') await cleaned;
    return { raw: this.at - this.o.from, wire: this.wire, stopped };
  }
}

/**
 * Sends local bytes [from, size) of `path` into `part` on the box, compressed. `hash` is fed
 * each segment once the box confirmed it. Where the box's `head -c` may read past its count
 * (the probe says so), nothing goes this way: all of it is SFTP's.
 */
export async function pushGzipped(remote: SyncRemote, path: string, part: string, o: GzipPushOptions): Promise<GzipPushResult> {
  const box = await boxCompression(remote);
  const codec = o.codec ?? segmentCodec(box);
  if (!codec || !box.exactHead) return { raw: 0, wire: 0, stopped: 'failed' };
  const stream = remote.stream!.bind(remote);
  const fh = await fsp.open(path, 'r');
  return new SegmentPush(remote, stream, fh, part, codec, o).run();
}
