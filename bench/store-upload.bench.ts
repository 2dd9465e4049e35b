// Box → bucket (issue 39, Measure): the box-side uploader (sh + curl, a POST with the run's
// grant, hashing, ETag check) against `curl -T` of the same file to a presigned PUT URL, through
// the same shaped link to the same local S3 server (s3rver on loopback behind the shaping proxy:
// STORE_BENCH_RTT_MS, default 40; STORE_BENCH_MBIT, default 100). STORE_BENCH_MB (default 64) of
// random bytes, a checkpoint shard; STORE_BENCH_ROUNDS (default 3) interleaved rounds, medians.
// Target: the uploader at ≥ 0.9× the plain PUT's throughput.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { startS3 } from '../test/support/s3server';
import { startShapingProxy } from '../test/support/shaping-proxy';
import { createUploadGrant } from '../src/app/storage/grant';
import { s3Client } from '../src/app/storage/s3';
import { renderBoxUploader, renderPostGrantConfig } from '../src/core/storage/grant';
import type { S3Store } from '../src/core/storage/names';
import { runAsync } from './util';

const MB = Number(process.env.STORE_BENCH_MB ?? 64);
const ROUNDS = Number(process.env.STORE_BENCH_ROUNDS ?? 3);
const RTT = Number(process.env.STORE_BENCH_RTT_MS ?? 40);
const MBIT = Number(process.env.STORE_BENCH_MBIT ?? 100);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Wall seconds of one command (run asynchronously: the shaping proxy lives in this process). */
async function timed(cmd: string, args: string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  await runAsync(cmd, args);
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

export async function run(): Promise<void> {
  const s3 = await startS3(['ckpt']);
  const shaped = await startShapingProxy(s3.port, { rttMs: RTT, bitsPerSecond: MBIT * 1e6 });
  const work = mkdtempSync(join(tmpdir(), 'gpu-rent-store-bench-'));
  try {
    const store: S3Store = { kind: 's3', name: 'bench', endpoint: `http://127.0.0.1:${shaped.port}`, bucket: 'ckpt', region: 'us-east-1', pathStyle: true };
    const client = await s3Client(store, { keyId: s3.keyId, secret: 'bench-secret' });
    const file = join(work, 'shard.safetensors');
    writeFileSync(file, randomBytes(MB * 1024 * 1024));
    const grant = await createUploadGrant(client, store, { prefix: 'runs/bench/', maxBytes: 5 * 1024 ** 3, runBoundS: 3600 });
    const grantPath = join(work, 'upload.grant');
    writeFileSync(grantPath, renderPostGrantConfig(grant), { mode: 0o600 });
    chmodSync(grantPath, 0o600);
    const script = join(work, 'upload.sh');
    writeFileSync(script, renderBoxUploader({ prefix: grant.prefix, maxBytes: grant.maxBytes }), { mode: 0o700 });
    const url = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'ckpt', Key: 'runs/bench/put.bin' }), { expiresIn: 3600 });
    const cfg = join(work, 'put.cfg');
    writeFileSync(cfg, `url = "${url}"\n`, { mode: 0o600 });
    const box: number[] = [];
    const put: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      put.push(await timed('curl', ['-sS', '-f', '-o', '/dev/null', '-K', cfg, '-T', file]));
      box.push(await timed('sh', [script, grantPath, file, `shard-${i}.safetensors`]));
    }
    const mbps = (s: number) => (MB * 8 * 1.048576) / s;
    const b = median(box);
    const p = median(put);
    console.log(`${MB} MiB through ${RTT} ms RTT, ${MBIT} Mbit/s, s3rver on loopback, median of ${ROUNDS}`);
    console.log(`| Way | Time | Throughput | vs curl -T |`);
    console.log(`|---|---|---|---|`);
    console.log(`| curl -T to a presigned PUT URL | ${p.toFixed(2)} s | ${mbps(p).toFixed(1)} Mbit/s | 1.00× |`);
    console.log(`| box uploader (POST grant, SHA-256 + MD5, ETag check) | ${b.toFixed(2)} s | ${mbps(b).toFixed(1)} Mbit/s | ${(p / b).toFixed(2)}× (target ≥ 0.9) |`);
    client.destroy();
  } finally {
    await shaped.close();
    await s3.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
