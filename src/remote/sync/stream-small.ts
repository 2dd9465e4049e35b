// Many small files in one stream: the box's own `tar -c`, fed the files' paths on stdin,
// sends them one after another down one exec channel, so a new checkpoint folder of thousands
// of small files costs about one round trip instead of two per file (20,000 × 512 B had
// taken 2.8× rsync's time file by file over SFTP). Each member is checked against the listing
// (its name is the one asked for, next in order; a regular file, its size and mtime as
// listed), hashed, written as .part and published only when the box's SHA-256 agrees.
// Anything else (a link swapped in, a file that changed or vanished, a member not asked for,
// a box without GNU tar, a stream cut short) is left to the file-by-file SFTP pull, which
// says why; the stream is never trusted further than that. The box's SHA-256 of each file
// comes in the same command, ahead of the stream (on stderr), so a stream of new files costs
// the box one exec, not one more per hash batch.
import { firstOf } from '../util/events';
import type { SFTPWrapper } from 'ssh2';
import type { RemoteFile } from './list';
import { realpath } from './sftp-util';
import { HEX64, type HashAnswer } from './remote-hash';
import { landStreamed, type Ctx, type Outcome } from './pull-file';
import { shQuote } from '../shell';
import { TarError, TarReader } from './tar';
import { SMALL_FILE } from './transfer';
import { toSyncError, SyncError } from './errors';
import { createGunzip } from 'node:zlib';
import { forEachLimited } from '../util/limit';

/** Fewer new small files than this go file by file (a stream costs a channel and a process). */
export const STREAM_MIN_FILES = 16;
// 5000, not 2000: each stream costs the box a shell, tar, gzip and openssl processes; 20,000 files in
// 4 streams instead of 10 took 1.60 s of box CPU instead of 1.67 s, 2.94 s instead of 3.27 s.
const BATCH_FILES = 5000;
const BATCH_BYTES = 16 * 1024 * 1024;
const STREAMS_AT_ONCE = 2;

/**
 * Paths come on stdin, one per line, all absolute (none can pass for an option), and are
 * never unquoted by tar: the listing refuses names with a backslash or a newline.
 * --no-recursion: a path swapped for a folder is sent as a folder entry, not its contents.
 * gzip -1: tar's 512-byte header per file would double what 1000 × 512 B puts on the link
 * (0.4 s more at AutoDL's 10 Mbit/s); compressed, a header costs ~50 bytes. A box without
 * gzip or GNU tar answers nothing and the files go file by file.
 */
export const TAR_COMMAND = `/bin/sh -c ${shQuote('tar -c -f - --no-recursion -T - 2>/dev/null | gzip -1')}`;

/**
 * The box's SHA-256 of the files on stderr, then the same stream on stdout: the list is read
 * once (`$(cat)`), fed to one `openssl dgst` (`xargs -d`, GNU findutils, splits it only past
 * the command-line limit; sha256sum after a `-` line where openssl fails), then to tar. The
 * hashes come first so each file's answer is in by the time its bytes are (a landed file waits
 * for nothing). The exit status is gzip's, as before. Each hash line names its file; the
 * client takes a line only for a path it asked for (hashLine), so a missing, short or garbled
 * answer costs that file one hash from the batches (hash-batch.ts), never a wrong match.
 */
const HASH_THEN_TAR =
  "L=$(cat); { printf '%s\\n' \"$L\" | xargs -d '\\n' openssl dgst -sha256 -r 2>/dev/null || { echo -; printf '%s\\n' \"$L\" | xargs -d '\\n' sha256sum 2>/dev/null; }; } >&2; " +
  "printf '%s\\n' \"$L\" | tar -c -f - --no-recursion -T - 2>/dev/null";
export const TAR_HASH_COMMAND = `/bin/sh -c ${shQuote(HASH_THEN_TAR + ' | gzip -1')}`;
/**
 * The same without gzip, for a link that is faster than gzip -1 on the box (loopback or a LAN:
 * see LAN_REPLY_MS). The exit status is tar's; it changes nothing here (every member is checked
 * as it comes, and what did not come goes file by file).
 */
export const TAR_HASH_COMMAND_PLAIN = `/bin/sh -c ${shQuote(HASH_THEN_TAR)}`;

/**
 * One hash line: `HASH *PATH` (openssl -r) or `HASH  PATH` (sha256sum), for a path in
 * `asked`; else undefined.
 */
export function hashLine(line: string, asked: ReadonlySet<string>): [path: string, sha256: string] | undefined {
  if (line.length < 67 || line[64] !== ' ' || (line[65] !== '*' && line[65] !== ' ')) return undefined;
  const hash = line.slice(0, 64).toLowerCase();
  const path = line.slice(66);
  return HEX64.test(hash) && asked.has(path) ? [path, hash] : undefined;
}

/** The hashes in a stream's stderr, by path; a path's first good line counts. */
export function parseStreamHashes(text: string, asked: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const got = hashLine(line, asked);
    if (got && !out.has(got[0])) out.set(got[0], got[1]);
  }
  return out;
}

/**
 * The answers of one stream, as its stderr comes: each file's hash the moment its line is in;
 * at the end (done()) every file still without one is hashed by the batches. Keeps at most
 * what honest lines take (a line per file: hash, two characters, path); past that, nothing
 * more is read (what was already taken stands: each is checked against the bytes anyway).
 */
class StreamHashes {
  private readonly answers = new Map<string, string>();
  private readonly waiting = new Map<string, (h: string | undefined) => void>();
  private tail: Buffer = Buffer.alloc(0);
  private left: number;
  private finished = false;
  constructor(
    private readonly c: Ctx,
    private readonly asked: ReadonlySet<string>,
  ) {
    let n = 4096;
    for (const p of asked) n += Buffer.byteLength(p) + 72;
    this.left = n;
  }

  /** More came than honest lines take: the box is not answering in good faith. */
  get over(): boolean {
    return this.left < 0;
  }

  push(chunk: Buffer): void {
    if (this.finished || this.left < 0) return;
    this.left -= chunk.length;
    if (this.left < 0) {
      this.tail = Buffer.alloc(0);
      return;
    }
    const buf = this.tail.length ? Buffer.concat([this.tail, chunk]) : chunk;
    const nl = buf.lastIndexOf(0x0a);
    if (nl === -1) {
      this.tail = buf;
      return;
    }
    this.tail = Buffer.from(buf.subarray(nl + 1));
    for (const line of buf.toString('utf8', 0, nl).split('\n')) this.take(line);
  }

  private take(line: string): void {
    const got = hashLine(line, this.asked);
    if (!got || this.answers.has(got[0])) return;
    this.answers.set(got[0], got[1]);
    const w = this.waiting.get(got[0]);
    if (w) {
      this.waiting.delete(got[0]);
      w(got[1]);
    }
  }

  /** The stream is over: a last line without its newline counts; the rest are hashed by the batches. */
  done(): void {
    if (this.finished) return;
    if (this.left >= 0 && this.tail.length) this.take(this.tail.toString('utf8'));
    this.finished = true;
    for (const [p, w] of this.waiting) w(this.answers.get(p));
    this.waiting.clear();
  }

  of(f: RemoteFile): Promise<HashAnswer> {
    const known = this.answers.get(f.abs);
    const got = known !== undefined || this.finished ? Promise.resolve(known) : new Promise<string | undefined>((res) => this.waiting.set(f.abs, res));
    return got.then((h) => (h !== undefined ? { full: h, prefix: undefined } : this.c.hasher.full(f.abs, f.size)));
  }
}

/**
 * A box that answers a directory read within this many milliseconds (list.ts: the quickest of
 * the listing's reads; a slow answer only ever makes it look further) is on loopback or a LAN,
 * where the link outruns gzip -1 on the box (about 100 MB/s of tar on one core): 20,000 × 512 B
 * on loopback cost the box 0.31 s of gzip for nothing. A rented box is further away than that
 * (a proxy port, another city): its streams stay compressed, where a header costs ~50 bytes
 * instead of 512.
 */
export const LAN_REPLY_MS = 2;

/** Is a box whose quickest reply took `replyMs` near enough to send its tar streams uncompressed? */
export function nearBox(replyMs: number | undefined): boolean {
  return replyMs !== undefined && replyMs < LAN_REPLY_MS;
}

/**
 * Where the listing came from the listing command (no SFTP directory reads to time): the quicker
 * of two SFTP realpath answers for the folder, asked one after the other, decides the same way.
 */
export async function nearBoxByProbe(sftp: SFTPWrapper, path: string): Promise<boolean> {
  let best: number | undefined;
  try {
    for (let i = 0; i < 2; i++) {
      const t = process.hrtime.bigint();
      await realpath(sftp, path);
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (best === undefined || ms < best) best = ms;
    }
  } catch {
    return false;
  }
  return nearBox(best);
}

function batches(files: readonly RemoteFile[]): RemoteFile[][] {
  const out: RemoteFile[][] = [];
  let cur: RemoteFile[] = [];
  let bytes = 0;
  for (const f of files) {
    if (cur.length && (cur.length >= BATCH_FILES || bytes + f.size > BATCH_BYTES)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(f);
    bytes += f.size + 1024;
  }
  if (cur.length) out.push(cur);
  return out;
}

type RecordOutcome = (f: RemoteFile, o: Outcome) => void;

/**
 * The tar reader for one batch: each member checked against the listing (asked for, next in
 * order, as listed) and landed; `delivered` marks the files it took, `landing` their writes.
 */
function batchReader(c: Ctx, batch: RemoteFile[], hashes: StreamHashes, record: RecordOutcome, stop: AbortController): { reader: TarReader; delivered: Uint8Array; landing: Promise<void>[] } {
  const want = new Map(batch.map((f, i) => [f.abs.replace(/^\/+/, ''), i]));
  const delivered = new Uint8Array(batch.length);
  const landing: Promise<void>[] = [];
  let cursor = 0;
  const reader = new TarReader(
    (m) => {
      const i = want.get(m.name);
      if (i === undefined || i < cursor) throw new TarError('a member that was not asked for, or out of order');
      cursor = i + 1;
      const f = batch[i]!;
      // Not what was listed: the file-by-file pull looks again and says why.
      if ((m.type !== '0' && m.type !== '7') || m.size !== f.size || m.mtime !== f.mtime || c.fatal) return;
      delivered[i] = 1;
      landing.push(
        landStreamed(c, f, m.data, hashes.of(f)).then(
          (o) => record(f, o),
          (err: unknown) => {
            const e = toSyncError(err);
            c.fatal ??= e instanceof SyncError ? e : new SyncError('local-io', e instanceof Error ? e.message : String(e));
            stop.abort();
          },
        ),
      );
    },
    { maxMemberBytes: SMALL_FILE },
  );
  return { reader, delivered, landing };
}

/** A stream's bytes into the tar reader (through gunzip unless the box is near), within what an honest stream takes. */
class StreamUnpack {
  /** What came before stands; the rest goes file by file. */
  broken = false;
  private budget: number;
  private wireLeft: number;
  readonly gunzip: ReturnType<typeof createGunzip> | undefined;
  /** Settles once gunzip has ended, failed or closed (at once without gunzip). */
  readonly unpacked: Promise<void>;

  constructor(
    private readonly reader: TarReader,
    private readonly stop: AbortController,
    near: boolean,
    bytes: number,
    files: number,
  ) {
    // What an honest stream of these files unpacks to at most (a header, a long name and
    // padding each, the end blocks): more is a gzip bomb or garbage, and ends the stream.
    const unpackedMax = bytes + files * 2048 + 64 * 1024;
    this.budget = unpackedMax;
    // And what it may take on the wire: gzip -1 of incompressible bytes is a little more
    // than they are; twice the most it unpacks to, and a megabyte, is generous. Without this
    // a box sending endless empty deflate blocks or empty gzip members (nothing unpacked,
    // so the budget above never moves) kept the stream going until its deadline.
    this.wireLeft = 2 * unpackedMax + 1024 * 1024;
    // A near box sends the tar as it is: gzip -1 would cost it more CPU than the link saves.
    const gunzip = (this.gunzip = near ? undefined : createGunzip({ chunkSize: 64 * 1024 }));
    gunzip?.on('data', this.unpack);
    gunzip?.on('error', this.breakOff);
    this.unpacked = gunzip
      ? new Promise<void>((res) => {
          gunzip.on('end', res);
          gunzip.on('error', () => res());
          gunzip.on('close', res);
        })
      : Promise.resolve();
  }

  readonly breakOff = (): void => {
    if (this.broken) return;
    this.broken = true; // what came before stands; the rest goes file by file
    this.stop.abort();
    this.gunzip?.destroy(); // whatever is queued in it is dropped, not inflated
  };

  private readonly unpack = (d: Buffer): void => {
    if (this.broken) return;
    this.budget -= d.length;
    if (this.budget < 0) return this.breakOff();
    try {
      this.reader.push(d);
    } catch {
      this.breakOff();
    }
  };

  // Backpressure: while gunzip is behind, the channel is paused (ssh2 stops opening its
  // window, so the box waits) instead of queueing what it sends in memory.
  private caughtUp(): Promise<void> {
    return firstOf(this.gunzip!, ['drain', 'close']);
  }

  /** The stream's stdout: a promise while gunzip is behind. */
  readonly take = (chunk: Buffer): Promise<void> | void => {
    if (this.broken) return;
    this.wireLeft -= chunk.length;
    if (this.wireLeft < 0) return this.breakOff();
    if (!this.gunzip) return this.unpack(chunk);
    if (!this.gunzip.write(chunk)) return this.caughtUp();
  };
}

/** One batch through one tar stream; what it did not deliver goes into `leftover`. */
async function runBatch(c: Ctx, stream: NonNullable<Ctx['remote']['stream']>, near: boolean, batch: RemoteFile[], record: RecordOutcome, leftover: RemoteFile[]): Promise<void> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  c.opts.signal?.addEventListener('abort', onAbort);
  // The box's hashes of the batch come on the stream's stderr ahead of its bytes.
  const hashes = new StreamHashes(c, new Set(batch.map((f) => f.abs)));
  const { reader, delivered, landing } = batchReader(c, batch, hashes, record, stop);
  const bytes = batch.reduce((n, f) => n + f.size, 0);
  const u = new StreamUnpack(reader, stop, near, bytes, batch.length);
  try {
    const r = await stream(near ? TAR_HASH_COMMAND_PLAIN : TAR_HASH_COMMAND, {
      stdin: Buffer.from(batch.map((f) => `${f.abs}\n`).join(''), 'utf8'),
      signal: stop.signal,
      // The hashes, then the stream: each reads the files once.
      timeoutMs: 60_000 + 2 * Math.ceil(bytes / 50_000),
      // A box flooding stderr ahead of the stream is given up like one flooding stdout.
      onStderr: (chunk) => {
        hashes.push(chunk);
        if (hashes.over) u.breakOff();
      },
      onStdout: u.take,
    });
    if (!u.broken) u.gunzip?.end();
    await u.unpacked;
    if (!u.broken && r.code === 0) reader.end();
  } catch {
    /* cut short, refused, or no tar on the box: what did not land goes file by file */
    u.gunzip?.destroy();
  } finally {
    c.opts.signal?.removeEventListener('abort', onAbort);
    hashes.done();
  }
  await Promise.all(landing);
  batch.forEach((f, i) => {
    if (!delivered[i]) leftover.push(f);
  });
}

/**
 * Pulls `files` (small, nothing at their local paths) through tar streams; `record` gets each
 * landed file's outcome. Resolves with the files the streams did not deliver, for the
 * file-by-file pull.
 */
export async function streamSmall(c: Ctx, files: readonly RemoteFile[], record: RecordOutcome): Promise<RemoteFile[]> {
  const stream = c.remote.stream?.bind(c.remote);
  const usable: RemoteFile[] = [];
  const leftover: RemoteFile[] = [];
  for (const f of files) (f.abs.startsWith('/') && f.size <= SMALL_FILE ? usable : leftover).push(f);
  if (!stream || usable.length < STREAM_MIN_FILES) return [...files];
  const todo = batches(usable);

  const near = (await c.near) === true;
  // After a fatal error or an interrupt a batch is not run but left for the caller.
  await forEachLimited(todo, STREAMS_AT_ONCE, async (b) => {
    if (c.fatal || c.opts.signal?.aborted) leftover.push(...b);
    else await runBatch(c, stream, near, b, record, leftover);
  });
  return leftover;
}
