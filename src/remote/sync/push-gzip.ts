// A big compressible file pushed through the box's own gzip: the file is cut into segments
// (1 MiB, 2, 4, then 8 MiB of the original), each gzip-compressed here (zlib level 6, on the
// thread pool) and sent on a channel of its own while the one before it still crosses, two at
// once; the box inflates each beside NAME.part and appends it in order (APPEND), then prints
// the .part's size. A segment counts (and its bytes
// go into the SHA-256 that push verifies against the box's) only when the .part has grown by
// exactly the segment, so what is on the box after a cut is a true prefix, which the next
// push resumes as it resumes an SFTP upload. Where compressing is the bottleneck the level
// steps down to 1; where even that is slower than the link carries plain bytes (a fast link),
// or a segment fails, the rest goes over SFTP from the last confirmed byte.
import { promises as fsp } from 'node:fs';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { shQuote } from '../shell';
import type { SyncRemote } from './types';

const gzipAsync = promisify(gzip);
export const SEGMENT_BYTES = 8 * 1024 * 1024;
/** The first segment is small, so the first compressed bytes leave within ~0.1 s; each next one doubles up to SEGMENT_BYTES. */
const FIRST_SEGMENT = 1024 * 1024;
export { GZIP_MIN_FILE } from './push-plan';

export interface GzipPushResult {
  /** Bytes of the original confirmed on the box (from `from` on). */
  raw: number;
  /** Compressed bytes sent for them. */
  wire: number;
  /** Why the rest (if any) is left to SFTP: 'fast-link', 'failed' or 'aborted'. */
  stopped?: 'fast-link' | 'failed' | 'aborted';
}

/** Segments on their way at once (each its own channel): the link stays busy between them. */
const IN_FLIGHT = 2;

/**
 * The segment at offset "$2" of "$1": inflated into "$1.seg$2" as it arrives, then, once the
 * .part holds exactly the bytes before it (the segment before landed), appended, and the
 * .part's size printed. A segment whose turn does not come within a minute gives up.
 */
const APPEND = shQuote(
  's="$1.seg$2"; gzip -dc > "$s" || { rm -f -- "$s"; exit 4; }; i=0; ' +
    'while c=$(wc -c < "$1" 2>/dev/null) || c=0; [ "$c" -lt "$2" ]; do i=$((i+1)); [ $i -gt 1200 ] && { rm -f -- "$s"; exit 6; }; sleep 0.05 2>/dev/null || sleep 1; done; ' +
    '[ "$c" -eq "$2" ] || { rm -f -- "$s"; exit 5; }; cat -- "$s" >> "$1" && rm -f -- "$s" && wc -c < "$1"',
);
/** The first segment of a fresh .part replaces whatever was there. */
const CREATE = shQuote('s="$1.seg0"; gzip -dc > "$s" && mv -f -- "$s" "$1" && wc -c < "$1" || { rm -f -- "$s"; exit 4; }');

/**
 * Sends local bytes [from, size) of `path` into `part` on the box, compressed. `hash` is fed
 * each segment once the box confirmed it.
 */
export async function pushGzipped(
  remote: SyncRemote,
  path: string,
  part: string,
  o: { from: number; size: number; hash: { update(d: Buffer): void }; signal?: AbortSignal; onBytes?: (n: number) => void; level?: number },
): Promise<GzipPushResult> {
  const stream = remote.stream!.bind(remote);
  const fh = await fsp.open(path, 'r');
  let at = o.from;
  let wire = 0;
  let segment = FIRST_SEGMENT;
  const readSeg = async (off: number) => {
    const len = Math.min(segment, o.size - off);
    segment = Math.min(SEGMENT_BYTES, segment * 2);
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const { bytesRead } = await fh.read(buf, got, len - got, off + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  };
  let level = o.level ?? 6;
  const prepare = async (off: number) => {
    const raw = await readSeg(off);
    const t0 = performance.now();
    const at = level;
    const z = await gzipAsync(raw, { level: at });
    return { raw, z, level: at, compressMs: performance.now() - t0 };
  };
  type Seg = Awaited<ReturnType<typeof prepare>>;
  /** One segment on its way: sent as soon as it is compressed, while the one before it is still crossing. */
  const send = (seg: Seg, off: number, stop: AbortSignal) => {
    const t0 = performance.now();
    const out: Buffer[] = [];
    let outBytes = 0;
    return stream(`/bin/sh -c ${off === 0 ? CREATE : APPEND} sh ${shQuote(part)} ${off}`, {
      stdin: seg.z,
      signal: stop,
      timeoutMs: 120_000 + Math.ceil(seg.z.length / 10_000),
      onStdout: (c) => {
        outBytes += c.length;
        if (outBytes <= 64) out.push(c);
      },
    }).then(
      (r) => ({ ok: r.code === 0 && outBytes <= 64 && Number(Buffer.concat(out).toString('latin1').trim()) === off + seg.raw.length, sendMs: performance.now() - t0 }),
      () => ({ ok: false, sendMs: performance.now() - t0 }),
    );
  };
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const inFlight: Array<{ seg: Seg; off: number; sent: ReturnType<typeof send> }> = [];
  let queued = at;
  let fastLink = false;
  const launch = async () => {
    // A fresh .part's first segment goes alone: it replaces whatever stale .part was there.
    while (!fastLink && inFlight.length < (at === 0 ? 1 : IN_FLIGHT) && queued < o.size) {
      const seg = await prepare(queued);
      if (seg.raw.length === 0) return false;
      inFlight.push({ seg, off: queued, sent: send(seg, queued, stop.signal) });
      queued += seg.raw.length;
    }
    return true;
  };
  try {
    if (!(await launch())) return { raw: 0, wire, stopped: 'failed' };
    while (inFlight.length) {
      const { seg, off, sent } = inFlight[0]!;
      // The next segment is read, compressed and sent while this one finishes.
      const more = launch();
      const r = await sent;
      if (o.signal?.aborted) return { raw: at - o.from, wire, stopped: 'aborted' };
      if (!r.ok || off !== at) {
        stop.abort();
        await more.catch(() => undefined);
        return { raw: at - o.from, wire, stopped: 'failed' };
      }
      inFlight.shift();
      o.hash.update(seg.raw);
      o.onBytes?.(seg.raw.length);
      at += seg.raw.length;
      wire += seg.z.length;
      // Compressing is the bottleneck (the link carried the segment faster than it took to
      // compress): level 6 steps down to 1, and where even plain bytes would cross faster
      // than level 1 compresses, what is not yet sent goes as it is.
      const linkBytesPerMs = seg.z.length / Math.max(1, r.sendMs);
      if (seg.level > 1 && seg.compressMs > r.sendMs) level = 1;
      else if (seg.level === 1 && seg.raw.length / linkBytesPerMs < seg.compressMs) fastLink = true;
      if (!(await more) || (!inFlight.length && !(await launch()))) {
        stop.abort();
        return { raw: at - o.from, wire, stopped: 'failed' };
      }
    }
    return at < o.size ? { raw: at - o.from, wire, stopped: 'fast-link' } : { raw: at - o.from, wire };
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    await fh.close();
  }
}
