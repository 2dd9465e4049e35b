// A big compressible file pushed through the box's own gzip: the file is cut into segments
// (1 MiB, 2, 4, then 8 MiB of the original), each gzip-compressed here (zlib level 6, on the thread pool, the
// next one while the current one crosses the link) and appended to NAME.part on the box by
// `gzip -dc >> NAME.part`, which then prints the .part's size. A segment counts (and its bytes
// go into the SHA-256 that push verifies against the box's) only when the .part has grown by
// exactly the segment, so what is on the box after a cut is a true prefix, which the next
// push resumes as it resumes an SFTP upload. Where compressing is the bottleneck the level
// steps down to 1; where even that is slower than the link carries plain bytes (a fast link),
// or a segment fails, the rest goes over SFTP from the last confirmed byte.
import { promises as fsp } from 'node:fs';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { shArg } from './remote-hash';
import type { SyncRemote } from './types';

const gzipAsync = promisify(gzip);
export const SEGMENT_BYTES = 8 * 1024 * 1024;
/** The first segment is small, so the first compressed bytes leave within ~0.1 s; each next one doubles up to SEGMENT_BYTES. */
const FIRST_SEGMENT = 1024 * 1024;
/** Files from this size on are worth a stream of their own (a channel costs ~3 round trips). */
export const GZIP_MIN_FILE = 256 * 1024;

export interface GzipPushResult {
  /** Bytes of the original confirmed on the box (from `from` on). */
  raw: number;
  /** Compressed bytes sent for them. */
  wire: number;
  /** Why the rest (if any) is left to SFTP: 'fast-link', 'failed' or 'aborted'. */
  stopped?: 'fast-link' | 'failed' | 'aborted';
}

/** Appends stdin, decompressed, to "$1" and prints its new size (a failure prints nothing). */
const APPEND = shArg('gzip -dc >> "$1" && wc -c < "$1"');
const CREATE = shArg('gzip -dc > "$1" && wc -c < "$1"');

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
  try {
    let next = at < o.size ? prepare(at) : undefined;
    while (next) {
      if (o.signal?.aborted) return { raw: at - o.from, wire, stopped: 'aborted' };
      const seg = await next;
      if (seg.raw.length === 0) return { raw: at - o.from, wire, stopped: 'failed' };
      const end = at + seg.raw.length;
      next = end < o.size ? prepare(end) : undefined;
      const t0 = performance.now();
      const out: Buffer[] = [];
      let outBytes = 0;
      const r = await stream(`/bin/sh -c ${at === 0 ? CREATE : APPEND} sh ${shArg(part)}`, {
        stdin: seg.z,
        signal: o.signal,
        timeoutMs: 60_000 + Math.ceil(seg.z.length / 10_000),
        onStdout: (c) => {
          outBytes += c.length;
          if (outBytes <= 64) out.push(c);
        },
      }).catch(() => undefined);
      const sendMs = performance.now() - t0;
      const boxSize = Number(Buffer.concat(out).toString('latin1').trim());
      if (!r || r.code !== 0 || outBytes > 64 || boxSize !== end) {
        void next?.catch(() => undefined);
        return { raw: at - o.from, wire, stopped: o.signal?.aborted ? 'aborted' : 'failed' };
      }
      o.hash.update(seg.raw);
      o.onBytes?.(seg.raw.length);
      at = end;
      wire += seg.z.length;
      // Compressing is the bottleneck (the link carried the segment faster than it took to
      // compress): level 6 steps down to 1, and where even plain bytes would cross faster
      // than level 1 compresses, the rest goes as it is.
      const linkBytesPerMs = seg.z.length / Math.max(1, sendMs);
      if (next && seg.level > 1 && seg.compressMs > sendMs) level = 1;
      else if (next && seg.level === 1 && seg.raw.length / linkBytesPerMs < seg.compressMs) {
        void next.catch(() => undefined);
        return { raw: at - o.from, wire, stopped: 'fast-link' };
      }
    }
    return { raw: at - o.from, wire };
  } finally {
    await fh.close();
  }
}
