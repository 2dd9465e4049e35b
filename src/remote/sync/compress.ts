// Compression where it pays: which files are worth compressing in flight (a sample of their
// first bytes, weights, archives and media never), and whether the box has a working gzip
// (probed once per connection). zstd would be faster, but this Node (20) has no zstd in zlib
// and the laptop may have no zstd binary; gzip is on every image we have seen.
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
}

// A round trip through the box's own gzip, not just `command -v`: a gzip that is there but
// broken (or a stub) counts as none.
const PROBE = `/bin/sh -c ${shQuote("printf 'gpu-rent gzip probe\\n' | gzip -1 -c 2>/dev/null | gzip -dc 2>/dev/null")}`;

const probed = new WeakMap<SyncRemote, Promise<BoxCompression>>();

/** Probes the box once per connection (the same `remote` object); a failed probe means none. */
export function boxCompression(remote: SyncRemote): Promise<BoxCompression> {
  let p = probed.get(remote);
  if (!p) {
    p = remote.exec(PROBE, { timeoutMs: 30_000 }).then(
      (r) => ({ gzip: r.code === 0 && r.stdout.trim() === 'gpu-rent gzip probe' }),
      () => ({ gzip: false }),
    );
    probed.set(remote, p);
  }
  return p;
}
