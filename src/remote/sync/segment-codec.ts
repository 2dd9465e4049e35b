// How a compressed push's segments are compressed here and inflated on the box. zstd where
// both ends have it (rsync 3.2+ picks zstd for -z too: on JSONL text zstd -3 sends ~9% fewer
// bytes than gzip -6, and compresses several times faster), else gzip. This side's zstd is
// Node's own zlib.zstdCompress where this Node has it (22.15+ / 23.8+), else a `zstd` binary
// on PATH (spawned per segment, no shell, its output bounded), else none.
import { spawn } from 'node:child_process';
import { accessSync, constants as fsc, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import type { BoxCompression } from './compress';

export type CodecTool = 'zstd' | 'gzip';
/** Where this side's zstd comes from. */
export type ZstdSource = 'node' | 'binary';

export interface SegmentCodec {
  tool: CodecTool;
  /** 'node' | 'binary' for zstd, 'zlib' for gzip. */
  via: ZstdSource | 'zlib';
  /** The levels a push steps down through where compressing is the bottleneck, the first one first. */
  levels: readonly number[];
  /** The box's command that inflates stdin to stdout. */
  inflate: string;
  compress(raw: Buffer, level: number): Promise<Buffer>;
}

/** The pure choice: zstd where the box has it and this side can make it, else gzip where the box has it, else nothing. */
export function chooseCodec(box: BoxCompression, local: { nodeZstd: boolean; zstdBinary: string | undefined }): { tool: CodecTool; via: ZstdSource | 'zlib' } | undefined {
  if (box.zstd && local.nodeZstd) return { tool: 'zstd', via: 'node' };
  if (box.zstd && local.zstdBinary !== undefined) return { tool: 'zstd', via: 'binary' };
  if (box.gzip) return { tool: 'gzip', via: 'zlib' };
  return undefined;
}

type ZstdCompress = (buf: Buffer, opts: { params: Record<number, number> }, cb: (e: Error | null, out: Buffer) => void) => void;

/** Node's zstd (22.15+ / 23.8+), feature-detected: this project's Node 20 has none. */
export function nodeZstd(z: unknown = zlib): ((raw: Buffer, level: number) => Promise<Buffer>) | undefined {
  const mod = z as { zstdCompress?: ZstdCompress; constants?: { ZSTD_c_compressionLevel?: number } };
  const fn = mod.zstdCompress;
  const levelParam = mod.constants?.ZSTD_c_compressionLevel;
  if (typeof fn !== 'function' || typeof levelParam !== 'number') return undefined;
  return (raw, level) => new Promise((resolve, reject) => fn(raw, { params: { [levelParam]: level } }, (e, out) => (e ? reject(e) : resolve(out))));
}

/** The first executable file named `zstd` in PATH's folders (absolute ones only), or undefined. */
export function findOnPath(name: string, path: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir.startsWith('/')) continue;
    const p = join(dir, name);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, fsc.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** zstd's worst case for incompressible input is a little over the input; anything more is refused. */
export const zstdBound = (n: number) => n + (n >> 7) + 4096;

/** Compresses `raw` through a local zstd binary: stdin in, stdout out, bounded, a deadline, exit 0 only. */
export function binaryZstd(bin: string, raw: Buffer, level: number, timeoutMs = 60_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-q', '-c', `-${level}`], { stdio: ['pipe', 'pipe', 'ignore'], shell: false });
    const out: Buffer[] = [];
    let bytes = 0;
    let failed: Error | undefined;
    const fail = (e: Error) => {
      failed ??= e;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(new Error('local zstd took too long')), timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      bytes += c.length;
      if (bytes > zstdBound(raw.length)) fail(new Error('local zstd wrote more than its bound'));
      else out.push(c);
    });
    child.stdin.on('error', (e) => fail(e));
    child.on('error', (e) => fail(e));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failed) reject(failed);
      else if (code !== 0) reject(new Error(`local zstd exited with ${code}`));
      else resolve(Buffer.concat(out, bytes));
    });
    child.stdin.end(raw);
  });
}

const gzipAsync = promisify(zlib.gzip);
/**
 * zstd's levels: 6 first (on JSONL text 9% fewer bytes than rsync's default 3, and ~35 MB/s of
 * one core here, far more than a 10 Mbit/s link takes), then 3, then 1 where compressing is
 * the bottleneck.
 */
export const ZSTD_LEVELS: readonly number[] = [6, 3, 1];

const nodeCompress = nodeZstd();
/** The zstd binary found per PATH value (looked for once each; '' for none). */
const binaries = new Map<string, string>();

/** The codec for a box that can inflate what `box` says, or undefined for none. */
export function segmentCodec(box: BoxCompression): SegmentCodec | undefined {
  let bin: string | undefined;
  if (box.zstd && !nodeCompress) {
    const path = process.env.PATH ?? '';
    if (!binaries.has(path)) binaries.set(path, findOnPath('zstd', path) ?? '');
    bin = binaries.get(path) || undefined;
  }
  const pick = chooseCodec(box, { nodeZstd: nodeCompress !== undefined, zstdBinary: bin });
  if (!pick) return undefined;
  if (pick.tool === 'gzip') return { ...pick, levels: [6, 1], inflate: 'gzip -dc', compress: (raw, level) => gzipAsync(raw, { level }) };
  return { ...pick, levels: ZSTD_LEVELS, inflate: 'zstd -q -dc', compress: nodeCompress ?? ((raw, level) => binaryZstd(bin!, raw, level)) };
}
