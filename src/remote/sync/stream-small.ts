// Many small files in one stream: the box's own `tar -c`, fed the files' paths on stdin,
// sends them one after another down one exec channel, so a new checkpoint folder of thousands
// of small files costs about one round trip instead of two per file (20,000 × 512 B had
// taken 2.8× rsync's time file by file over SFTP). Each member is checked against the listing
// (its name is the one asked for, next in order; a regular file, its size and mtime as
// listed), hashed, written as .part and published only when the box's SHA-256, asked for
// ahead in batches as before, agrees. Anything else (a link swapped in, a file that changed or
// vanished, a member not asked for, a box without GNU tar, a stream cut short) is left to
// the file-by-file SFTP pull, which says why; the stream is never trusted further than that.
// The box's SHA-256 of each file comes back in the same command, after the stream (on
// stderr), so a stream of new files costs the box one exec, not one more per hash batch.
import type { RemoteFile } from './list';
import type { HashAnswer } from './remote-hash';
import { landStreamed, type Ctx, type Outcome } from './pull-file';
import { shQuote } from '../shell';
import { TarError, TarReader } from './tar';
import { SMALL_FILE } from './transfer';
import { toSyncError, SyncError } from './errors';
import { createGunzip } from 'node:zlib';

/** Fewer new small files than this go file by file (a stream costs a channel and a process). */
export const STREAM_MIN_FILES = 16;
const BATCH_FILES = 2000;
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
 * The same stream, and then the box's SHA-256 of the same files on stderr: the list is read
 * once (`$(cat)`), fed to tar, then to one `openssl dgst` (`xargs -d`, GNU findutils, splits it
 * only past the command-line limit), else sha256sum after a `-` line. The exit status is
 * gzip's, as before. Each hash line names its file; the client takes a line only for the path
 * it asked for (parseStreamHashes), so a missing, short or garbled answer costs that file one
 * hash from the batches (hash-batch.ts), never a wrong match. A stream cut short has none.
 */
export const TAR_HASH_COMMAND = `/bin/sh -c ${shQuote(
  "L=$(cat); printf '%s\\n' \"$L\" | tar -c -f - --no-recursion -T - 2>/dev/null | gzip -1; s=$?; " +
    "{ printf '%s\\n' \"$L\" | xargs -d '\\n' openssl dgst -sha256 -r 2>/dev/null || { echo -; printf '%s\\n' \"$L\" | xargs -d '\\n' sha256sum 2>/dev/null; }; } >&2; exit $s",
)}`;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The hashes on a stream's stderr, by path: a line is `HASH *PATH` (openssl -r) or
 * `HASH  PATH` (sha256sum), and counts only for a path in `asked`. A later line for the same
 * path (sha256sum after a failed openssl) wins.
 */
export function parseStreamHashes(text: string, asked: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.length < 67 || line[64] !== ' ' || (line[65] !== '*' && line[65] !== ' ')) continue;
    const hash = line.slice(0, 64).toLowerCase();
    const path = line.slice(66);
    if (HEX64.test(hash) && asked.has(path)) out.set(path, hash);
  }
  return out;
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

/**
 * Pulls `files` (small, nothing at their local paths) through tar streams; `record` gets each
 * landed file's outcome. Resolves with the files the streams did not deliver, for the
 * file-by-file pull.
 */
export async function streamSmall(c: Ctx, files: readonly RemoteFile[], record: (f: RemoteFile, o: Outcome) => void): Promise<RemoteFile[]> {
  const stream = c.remote.stream?.bind(c.remote);
  const usable: RemoteFile[] = [];
  const leftover: RemoteFile[] = [];
  for (const f of files) (f.abs.startsWith('/') && f.size <= SMALL_FILE ? usable : leftover).push(f);
  if (!stream || usable.length < STREAM_MIN_FILES) return [...files];
  const todo = batches(usable);
  let next = 0;

  const runBatch = async (batch: RemoteFile[]) => {
    const want = new Map(batch.map((f, i) => [f.abs.replace(/^\/+/, ''), i]));
    const delivered = new Uint8Array(batch.length);
    const landing: Promise<void>[] = [];
    let cursor = 0;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    c.opts.signal?.addEventListener('abort', onAbort);
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
          landStreamed(c, f, m.data, hashOf(f)).then(
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
    // The box's hashes of the batch come on the stream's stderr after its bytes: kept up to what
    // honest lines take (a line per file: hash, two characters, path), read when it ends. A
    // file without an answer there is hashed by the batches, as it was before.
    const asked = new Set(batch.map((f) => f.abs));
    const errChunks: Buffer[] = [];
    let errLeft = batch.reduce((n, f) => n + Buffer.byteLength(f.abs) + 72, 4096);
    let hashesIn: (m: Map<string, string> | undefined) => void = () => undefined;
    const hashes = new Promise<Map<string, string> | undefined>((res) => (hashesIn = res));
    const hashOf = (f: RemoteFile): Promise<HashAnswer> =>
      hashes.then((m) => {
        const h = m?.get(f.abs);
        return h !== undefined ? { full: h, prefix: undefined } : c.hasher.full(f.abs, f.size);
      });
    let broken = false;
    const bytes = batch.reduce((n, f) => n + f.size, 0);
    // What an honest stream of these files unpacks to at most (a header, a long name and
    // padding each, the end blocks): more is a gzip bomb or garbage, and ends the stream.
    const unpackedMax = bytes + batch.length * 2048 + 64 * 1024;
    let budget = unpackedMax;
    // And what it may take on the wire: gzip -1 of incompressible bytes is a little more
    // than they are; twice the most it unpacks to, and a megabyte, is generous. Without this
    // a box sending endless empty deflate blocks or empty gzip members (nothing unpacked,
    // so the budget above never moves) kept the stream going until its deadline.
    let wireLeft = 2 * unpackedMax + 1024 * 1024;
    const gunzip = createGunzip({ chunkSize: 64 * 1024 });
    const breakOff = () => {
      if (broken) return;
      broken = true; // what came before stands; the rest goes file by file
      stop.abort();
      gunzip.destroy(); // whatever is queued in it is dropped, not inflated
    };
    gunzip.on('data', (d: Buffer) => {
      if (broken) return;
      budget -= d.length;
      if (budget < 0) return breakOff();
      try {
        reader.push(d);
      } catch {
        breakOff();
      }
    });
    gunzip.on('error', breakOff);
    const unpacked = new Promise<void>((res) => {
      gunzip.on('end', res);
      gunzip.on('error', () => res());
      gunzip.on('close', res);
    });
    // Backpressure: while gunzip is behind, the channel is paused (ssh2 stops opening its
    // window, so the box waits) instead of queueing what it sends in memory.
    const caughtUp = () =>
      new Promise<void>((res) => {
        const done = () => {
          gunzip.off('drain', done);
          gunzip.off('close', done);
          res();
        };
        gunzip.on('drain', done);
        gunzip.on('close', done);
      });
    try {
      const r = await stream(TAR_HASH_COMMAND, {
        stdin: Buffer.from(batch.map((f) => `${f.abs}\n`).join(''), 'utf8'),
        signal: stop.signal,
        // The stream, then the hashes: each reads the files once.
        timeoutMs: 60_000 + 2 * Math.ceil(bytes / 50_000),
        onStderr: (chunk) => {
          if (errLeft < 0) return;
          errLeft -= chunk.length;
          if (errLeft >= 0) errChunks.push(chunk);
        },
        onStdout: (chunk) => {
          if (broken) return;
          wireLeft -= chunk.length;
          if (wireLeft < 0) return breakOff();
          if (!gunzip.write(chunk)) return caughtUp();
        },
      });
      if (!broken) gunzip.end();
      await unpacked;
      if (!broken && r.code === 0) reader.end();
    } catch {
      /* cut short, refused, or no tar on the box: what did not land goes file by file */
      gunzip.destroy();
    } finally {
      c.opts.signal?.removeEventListener('abort', onAbort);
      // More than honest lines take: none is used.
      hashesIn(errLeft >= 0 ? parseStreamHashes(Buffer.concat(errChunks).toString('utf8'), asked) : undefined);
    }
    await Promise.all(landing);
    batch.forEach((f, i) => {
      if (!delivered[i]) leftover.push(f);
    });
  };

  const worker = async () => {
    for (let b = todo[next++]; b; b = todo[next++]) {
      if (c.fatal || c.opts.signal?.aborted) {
        leftover.push(...b);
        continue;
      }
      await runBatch(b);
    }
  };
  await Promise.all(Array.from({ length: Math.min(STREAMS_AT_ONCE, todo.length) }, worker));
  return leftover;
}
