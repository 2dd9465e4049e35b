// A big compressible file pulled through the box's own gzip: `gzip -c` of the file (from the
// resumed offset on) streams down, is inflated here (zlib) and written to the local .part in
// order, hashed as it is written, exactly as pullRange writes what SFTP reads, so the checks
// after the transfer (the box's SHA-256 or the file's unchanged identity) are the same.
// The box is not trusted to send what it says: the inflated bytes may not pass the size the
// listing gave (a decompression bomb stops there, so the disk never holds more than that),
// the compressed bytes may not pass that size plus gzip's own worst-case overhead (endless
// empty gzip members inflate to nothing), and a corrupt stream, a short one or a failing
// command all leave the .part cut back to where it was; the caller then pulls the file
// uncompressed over SFTP and logs why.
import type { FileHandle } from 'node:fs/promises';
import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SFTPWrapper } from 'ssh2';
import { createGunzip } from 'node:zlib';
import { sftpRequest } from './sftp-util';
import { shQuote } from '../shell';
import { SAMPLE_BYTES } from './compress';
import { PartAppender } from './part-appender';
import type { SyncRemote } from './types';

/** Files from this size on are pulled compressed when they compress (a stream costs ~3 round trips). */
export const PULL_GZIP_MIN_FILE = 1024 * 1024;

/** The first bytes of an open remote file (one SFTP read), to judge whether it compresses. */
export function readSample(sftp: SFTPWrapper, handle: Buffer, size: number): Promise<Buffer> {
  const buf = Buffer.alloc(Math.min(SAMPLE_BYTES, size));
  return sftpRequest<number>(sftp, 'read', (cb) => sftp.read(handle, buf, 0, buf.length, 0, (err, n) => cb(err, n))).then((n) => buf.subarray(0, n));
}

/** Why a compressed pull was given up (the .part is back at `from`). */
export type GzipPullRefusal = 'too-long' | 'too-much-compressed' | 'corrupt' | 'short' | 'failed' | 'aborted';

export type GzipPullResult = { ok: true; raw: number; wire: number } | { ok: false; why: GzipPullRefusal; message: string };

/** Compressed bytes allowed for `n` original bytes: stored deflate blocks cost 5 bytes per 64 KiB, plus headers. */
export const wireCap = (n: number) => n + Math.ceil(n / 1000) + 64 * 1024;

/**
 * Pulls bytes [from, size) of `path` on the box through `gzip -c` into `out` (a local file
 * whose length is `from`), feeding `hash` in order. On any refusal the file is cut back to
 * `from` (the caller re-hashes that prefix for its fallback).
 */
export async function pullGzipped(
  remote: SyncRemote,
  path: string,
  out: FileHandle,
  o: { from: number; size: number; hash: { update(d: Buffer): void }; signal?: AbortSignal; onBytes?: (n: number) => void; level?: number },
): Promise<GzipPullResult> {
  const stream = remote.stream!.bind(remote);
  const want = o.size - o.from;
  const level = o.level ?? 4;
  const cmd = o.from === 0 ? `gzip -${level} -c < "$1"` : `tail -c +"$2" < "$1" | gzip -${level} -c`;
  const command = `/bin/sh -c ${shQuote(cmd)} sh ${shQuote(path)} ${o.from + 1}`;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  let refusal: { why: GzipPullRefusal; message: string } | undefined;
  const refuse = (why: GzipPullRefusal, message: string) => {
    refusal ??= { why, message };
    stop.abort();
  };
  let wire = 0;
  let raw = 0;
  const src = new PassThrough({ highWaterMark: 1024 * 1024 });
  // The same small synchronous writes as a plain pull (part-appender.ts says why); no
  // background datasync, the link is what this path waits on.
  const part = new PartAppender(out, o.from, o.size, 0);
  const sink = new Writable({
    highWaterMark: 4 * 1024 * 1024,
    write(chunk: Buffer, _enc, cb) {
      if (raw + chunk.length > want) {
        refuse('too-long', `the box's compressed stream inflated past the file's listed size (${o.size} bytes): a decompression bomb or another file`);
        return cb(new Error('too long'));
      }
      raw += chunk.length;
      o.hash.update(chunk);
      part.append([chunk]).then(
        () => {
          o.onBytes?.(chunk.length);
          cb();
        },
        (e: Error) => cb(e),
      );
    },
  });
  const inflated = pipeline(src, createGunzip({ chunkSize: 256 * 1024 }), sink).then(
    () => undefined,
    (e: Error) => e,
  );
  try {
    const r = await stream(command, {
      stdin: Buffer.alloc(0),
      signal: stop.signal,
      onStdout: (c) => {
        if (refusal || src.destroyed) return;
        wire += c.length;
        if (wire > wireCap(want)) return refuse('too-much-compressed', `the box sent more compressed bytes (${wire}) than the file could need (${o.size} bytes listed)`);
        if (!src.write(c))
          return new Promise<void>((res) => {
            src.once('drain', res);
            src.once('close', res);
          });
        return undefined;
      },
    }).catch((e: unknown) => (refusal ? undefined : (refuse(o.signal?.aborted ? 'aborted' : 'failed', (e as Error).message), undefined)));
    if (!src.destroyed) src.end();
    const err = await inflated;
    if (!refusal && o.signal?.aborted) refuse('aborted', 'interrupted');
    if (!refusal && err) refuse(err.message === 'too long' ? 'too-long' : 'corrupt', `the box's compressed stream is not valid gzip: ${err.message}`);
    if (!refusal && r && r.code !== 0) refuse('failed', `the box's gzip exited with ${r.code}`);
    if (!refusal && raw !== want) refuse('short', `the box's compressed stream ended at ${o.from + raw} of ${o.size} bytes`);
    if (refusal) {
      src.destroy();
      await out.truncate(o.from).catch(() => undefined);
      return { ok: false, ...refusal };
    }
    return { ok: true, raw, wire };
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
}
