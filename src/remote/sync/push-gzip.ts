// A big compressible file pushed through the box's own zstd or gzip (segment-codec.ts picks:
// zstd -3 where both ends have it, else gzip -6): the file is cut into segments (512 KiB, 1 MiB,
// 2, 4, then 8 MiB of the original), each compressed here and sent on a channel of its own while the
// one before it still crosses, two at once, the next one already compressed while they cross;
// the box inflates each beside NAME.part and appends it in order (APPEND), then prints the
// .part's size. A segment counts (and its bytes go into the SHA-256 that push verifies against
// the box's) only when the .part has grown by exactly the segment, so what is on the box after
// a cut is a true prefix, which the next push resumes as it resumes an SFTP upload. Where
// compressing is the bottleneck (a free slot waits for the next segment) the level steps down
// (zstd 6, 3, 1; gzip 6, 1); where even the lowest is slower than the link carries plain bytes
// (a fast link), or a segment fails, the rest goes over SFTP from the last confirmed byte.
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

/** Segments on their way at once (each its own channel): the link stays busy between them. */
export const IN_FLIGHT = 2;

/**
 * The segment at offset "$2" of "$1": inflated (by "$3") into "$1.seg$2" as it arrives, then,
 * once the .part holds exactly the bytes before it (the segment before landed), appended, and
 * the .part's size after its own bytes printed: the offset and what it inflated to, measured
 * before the append (the .part's own size, read after it, may already hold the next segment,
 * which starts the moment this one's bytes are in). A segment whose turn does not come within a minute gives up, and
 * so does one whose connection is gone (its parent, the login's sshd, has exited).
 */
const APPEND =
  's="$1.seg$2"; $3 > "$s" || { rm -f -- "$s"; exit 4; }; i=0; ' +
  'while c=$(wc -c < "$1" 2>/dev/null) || c=0; [ "$c" -lt "$2" ]; do i=$((i+1)); { [ $i -gt 1200 ] || ! kill -0 "$PPID" 2>/dev/null; } && { rm -f -- "$s"; exit 6; }; sleep 0.05 2>/dev/null || sleep 1; done; ' +
  '[ "$c" -eq "$2" ] || { rm -f -- "$s"; exit 5; }; n=$(wc -c < "$s") && cat -- "$s" >> "$1" && rm -f -- "$s" && echo $(($2 + n))';
/** The first segment of a fresh .part replaces whatever was there. */
const CREATE = 's="$1.seg0"; $3 > "$s" && n=$(wc -c < "$s") && mv -f -- "$s" "$1" && echo $((n)) || { rm -f -- "$s"; exit 4; }';
/** After the last segment the .part's SHA-256 too (an `h` line, or `none`): push needs no hash command of its own. */
const THEN_HASH = ` || exit 7; set -- "$1"; ${HASH_ARGS}`;

/**
 * The box's command for the segment at `off` of `part`, inflated by `inflate` (a fixed word
 * list: split by the box's shell on purpose); `last`: the .part's hash follows its size.
 */
export const segmentCommand = (part: string, off: number, inflate: string, last = false) =>
  `/bin/sh -c ${shQuote((off === 0 ? CREATE : APPEND) + (last ? THEN_HASH : ''))} sh ${shQuote(part)} ${off} ${shQuote(inflate)}`;

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
  fresh?: boolean;
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

type Sent = Promise<{ ok: boolean; box: HashAnswer | undefined; sendMs: number }>;

/** One compressed push under way: the segments read ahead, those on their way, and what the box confirmed. */
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
  private readonly inFlight: Array<{ seg: Seg; sent: Sent }> = [];
  private queued: number;
  /** Where the next segment sent must start (a short read, the file shrinking, breaks it). */
  private sentEnd: number;
  private fastLink = false;
  private box: HashAnswer | undefined;
  // One segment read and compressed ahead: a freed slot sends at once.
  private ahead: Promise<Seg> | undefined;
  private aheadReady = false;
  /** The last confirmed segment and how long it took to cross. */
  private last: { seg: Seg; sendMs: number } | undefined;

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
      if (!(await this.launch())) return await this.giveUp('failed');
      while (this.inFlight.length) {
        const { seg, sent } = this.inFlight[0]!;
        const r = await sent;
        if (o.signal?.aborted) return await this.giveUp('aborted');
        if (!r.ok || seg.off !== this.at) return await this.giveUp('failed');
        this.inFlight.shift();
        this.box = r.box;
        o.hash.update(seg.raw);
        o.onBytes?.(seg.raw.length);
        this.at += seg.raw.length;
        this.wire += seg.z.length;
        this.last = { seg, sendMs: r.sendMs };
        if (!(await this.launch())) return await this.giveUp('failed');
      }
      const { at, wire, box } = this;
      return at < o.size ? { raw: at - o.from, wire, stopped: 'fast-link' } : { raw: at - o.from, wire, ...(box ? { box } : {}) };
    } finally {
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

  /** One segment on its way: sent as soon as a slot is free, while the one before it is still crossing. */
  private send(seg: Seg, stop: AbortSignal): Sent {
    const { o, part } = this;
    const t0 = performance.now();
    const out: Buffer[] = [];
    let outBytes = 0;
    const last = seg.off + seg.raw.length === o.size;
    return this.stream(segmentCommand(part, seg.off, this.codec.inflate, last), {
      stdin: seg.z,
      signal: stop,
      timeoutMs: 120_000 + Math.ceil(seg.z.length / 10_000),
      onStdout: (c) => {
        outBytes += c.length;
        if (outBytes <= ANSWER_BYTES) out.push(c);
      },
    }).then(
      (r) => {
        const answer = r.code === 0 && outBytes <= ANSWER_BYTES ? readSegmentAnswer(Buffer.concat(out).toString('latin1'), seg.off + seg.raw.length, last, part) : undefined;
        return { ok: answer !== undefined, box: answer?.box, sendMs: performance.now() - t0 };
      },
      () => ({ ok: false, box: undefined, sendMs: performance.now() - t0 }),
    );
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
  private async launch(): Promise<boolean> {
    try {
      // A .part that may be stale: its first segment goes alone (CREATE replaces what was there).
      const slots = this.at === 0 && !this.o.fresh ? 1 : this.width;
      while (!this.fastLink && this.inFlight.length < slots) {
        this.next();
        if (!this.ahead) return true;
        if (!this.aheadReady && this.inFlight.length === 0) this.stalled();
        const seg = await this.ahead;
        this.ahead = undefined;
        if (seg.raw.length === 0 || seg.off !== this.sentEnd) return false;
        this.inFlight.push({ seg, sent: this.send(seg, this.stop.signal) });
        this.sentEnd += seg.raw.length;
        this.next();
      }
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Stops the segments still on their way and removes what they leave on the box: a segment
   * stopped while it inflates or waits for its turn is killed with its NAME.part.seg<off> still
   * there (a straggler that outlives the kill then finds no .seg to append). After a failure the
   * SFTP upload of the rest waits for that; after an interrupt it is left to run on its own.
   */
  private async giveUp(stopped: 'failed' | 'aborted'): Promise<GzipPushResult> {
    const part = this.part;
    this.stop.abort();
    const left = this.inFlight.splice(0);
    const cleaned = Promise.all(left.map((x) => x.sent))
      .then(() => (left.length ? this.remote.exec(`rm -f -- ${left.map((x) => shQuote(`${part}.seg${x.seg.off}`)).join(' ')}`, { timeoutMs: 15_000, login: false }) : undefined))
      .catch(() => undefined);
    if (stopped === 'failed') await cleaned;
    return { raw: this.at - this.o.from, wire: this.wire, stopped };
  }
}

/**
 * Sends local bytes [from, size) of `path` into `part` on the box, compressed. `hash` is fed
 * each segment once the box confirmed it. `fresh`: the caller made sure no .part is on the box
 * (none was there, or it removed a stale one), so the first segment need not go alone (its
 * CREATE would replace a stale .part that a second segment had already grown).
 */
export async function pushGzipped(remote: SyncRemote, path: string, part: string, o: GzipPushOptions): Promise<GzipPushResult> {
  const codec = o.codec ?? segmentCodec(await boxCompression(remote));
  if (!codec) return { raw: 0, wire: 0, stopped: 'failed' };
  const stream = remote.stream!.bind(remote);
  const fh = await fsp.open(path, 'r');
  return new SegmentPush(remote, stream, fh, part, codec, o).run();
}
