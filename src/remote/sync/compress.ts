// Compression where it pays: which files are worth compressing in flight (a sample of their
// first bytes, weights, archives and media never), and whether the box has a working gzip
// and a working zstd (probed once per connection, one command). Which one a push uses is
// segment-codec.ts's choice (zstd needs one on this side too); pulls use gzip.
import { deflateRawSync } from 'node:zlib';
import { shQuote } from '../shell';
import type { SyncRemote } from './types';

/** Bytes sampled from the start of a file to judge it. */
export const SAMPLE_BYTES = 64 * 1024;
/** A sample that deflates (level 1) to more than this share of its size goes as it is. */
const WORTH = 0.85;

/** Formats that are compressed already, or weights (random-looking floats): never sampled. */
const AS_IS = new Set([
  'safetensors', 'bin', 'pt', 'pth', 'ckpt', 'h5', 'onnx', 'gguf', 'ggml', 'npy', 'npz', 'pkl', 'pickle', 'msgpack', 'engine', 'plan', 'tflite', 'mlmodel',
  'gz', 'tgz', 'zst', 'zstd', 'xz', 'txz', 'bz2', 'tbz', 'lz4', 'lzma', 'zip', '7z', 'rar', 'whl', 'jar', 'parquet', 'orc', 'avro', 'arrow', 'feather', 'tfrecord', 'lance',
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'heic', 'jxl',
  'mp4', 'mkv', 'webm', 'mov', 'avi', 'm4v', 'mp3', 'm4a', 'aac', 'ogg', 'opus', 'flac',
]);

/** Leading bytes of compressed formats (gzip, zstd, xz, bzip2, zip, 7z, PNG, JPEG, WebP/RIFF, MP4 'ftyp' at 4). */
function compressedMagic(b: Buffer): boolean {
  const starts = (...sig: number[]) => sig.every((v, i) => b[i] === v);
  return (
    starts(0x1f, 0x8b) || starts(0x28, 0xb5, 0x2f, 0xfd) || starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00) || starts(0x42, 0x5a, 0x68) ||
    starts(0x50, 0x4b, 0x03, 0x04) || starts(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c) || starts(0x89, 0x50, 0x4e, 0x47) || starts(0xff, 0xd8, 0xff) ||
    starts(0x52, 0x49, 0x46, 0x46) || (b.length > 8 && b.toString('latin1', 4, 8) === 'ftyp')
  );
}

/** The extension in lower case ('' for none). */
function extOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** Is a file named `name` whose first bytes are `sample` worth compressing in flight? */
export function worthCompressing(name: string, sample: Buffer): boolean {
  if (AS_IS.has(extOf(name)) || sample.length === 0 || compressedMagic(sample)) return false;
  return deflateRawSync(sample, { level: 1 }).length <= sample.length * WORTH;
}

/** What the box can decompress and compress with, as probed. */
export interface BoxCompression {
  gzip: boolean;
  zstd: boolean;
  /** `head -c N` on a pipe reads exactly N bytes (a compressed push's segments share one channel). */
  exactHead?: boolean;
}

// A round trip through the box's own gzip and zstd, not just `command -v`: a tool that is there
// but broken (or a stub) counts as none. One command for both; each answers on its own line.
const PROBE_TEXT = 'gpu-rent probe';
export const PROBE = `/bin/sh -c ${shQuote(
  `g=$(printf '${PROBE_TEXT}\\n' | gzip -1 -c 2>/dev/null | gzip -dc 2>/dev/null); ` +
    `z=$(printf '${PROBE_TEXT}\\n' | zstd -q -1 -c 2>/dev/null | zstd -q -dc 2>/dev/null); ` +
    `h=$(printf '${PROBE_TEXT}\\n' | { head -c 4 >/dev/null 2>&1; cat; }); ` +
    `printf 'gzip %s\\nzstd %s\\nhead %s\\n' "$g" "$z" "$h"`,
)}`;

/** The probe's answer read: a tool counts only if its line is exactly the probe text back. */
export function readProbe(code: number | null, stdout: string): BoxCompression {
  const lines = code === 0 ? stdout.split('\n') : [];
  return { gzip: lines.includes(`gzip ${PROBE_TEXT}`), zstd: lines.includes(`zstd ${PROBE_TEXT}`), exactHead: lines.includes(`head ${PROBE_TEXT.slice(4)}`) };
}

const probed = new WeakMap<SyncRemote, Promise<BoxCompression>>();

/** Probes the box once per connection (the same `remote` object); a failed probe means none. */
export function boxCompression(remote: SyncRemote): Promise<BoxCompression> {
  let p = probed.get(remote);
  if (!p) {
    p = remote.exec(PROBE, { timeoutMs: 30_000 }).then(
      (r) => readProbe(r.code, r.stdout),
      () => ({ gzip: false, zstd: false, exactHead: false }),
    );
    probed.set(remote, p);
  }
  return p;
}
