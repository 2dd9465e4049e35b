// Pulling a big file (over SMALL_FILE): compare by hash when the local copy has the same size,
// resume a trusted .part, pull the rest (through the box's gzip when it pays, else pipelined
// SFTP reads) while the box hashes the file or its identity brackets the read, verify size
// and SHA-256, and only then publish it. Never leaves anything but a .part unverified.
import { promises as fsp } from 'node:fs';
import { dirname } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { diskFull, isDiskFull, SyncError } from './errors';
import { armBoxIdentity, boxIdentity, remoteHash, type ArmedIdentity } from './hash-batch';
import { identityUsable, sameIdentity, type HashAnswer } from './remote-hash';
import type { RemoteFile } from './list';
import { hashLocalRange, sha256 } from './local-hash';
import { openedIsListed } from './safe-paths';
import { closeHandle, fstat, lstatRemote, sftpCode } from './sftp-util';
import { alreadySavedBeside } from './planner';
import { PullError, pullRange } from './transfer';
import { boxCompression, worthCompressing } from './compress';
import { PULL_GZIP_MIN_FILE, pullGzipped, readSample } from './pull-gzip';
import { boxHash, ensureLocalDir, lookLocal, lost, lstatOrUndefined, openOrSkip, publish, toLocalStat, verifyInPlace, type Ctx, type Outcome } from './pull-common';

/**
 * The identity look after the last byte is made ready (armBoxIdentity) once this much of the
 * file is left: about 0.7 s at 100 Mbit/s, long enough for its channel and shell to be up, and
 * a channel held only for a file's tail.
 */
export const ARM_IDENTITY_TAIL = 8 * 1024 * 1024;

async function freeBytes(dir: string): Promise<number | undefined> {
  try {
    const s = await fsp.statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/** An fstat whose SFTP failure means "unreadable" and whose transport failure is fatal. */
function fstatOrSkip(sftp: SFTPWrapper, handle: Buffer) {
  return fstat(sftp, handle).catch((err: unknown) => {
    if (sftpCode(err) === undefined) throw lost(err);
    return undefined;
  });
}

const noGzipSaid = new WeakSet<Ctx>();

/** Whether the box has a working gzip (probed once per connection); the first "no" of a pass is logged. */
async function boxGzip(ctx: Ctx): Promise<boolean> {
  const { gzip } = await boxCompression(ctx.remote);
  if (!gzip && !noGzipSaid.has(ctx)) {
    noGzipSaid.add(ctx);
    ctx.opts.log?.('sync: the box has no working gzip; files come uncompressed');
  }
  return gzip;
}

/** What a failed range pull means for this file: an outcome, or an error that ends the pass. */
async function rangeFailure(err: unknown, f: RemoteFile, local: string, part: string, from: number): Promise<Outcome> {
  if (err instanceof PullError) {
    const fl = err.failure;
    if (fl.kind === 'aborted') return { kind: 'interrupted' };
    if (fl.kind === 'remote-shrank') return { kind: 'skipped', reason: 'changed-during-download' };
    if (fl.kind === 'remote-io') return { kind: 'skipped', reason: 'unreadable' };
    if (fl.kind === 'local-io') {
      if (fl.code === 'ENOSPC' || fl.code === 'EDQUOT') throw diskFull(f.rel, f.size - from, await freeBytes(dirname(local)));
      throw new SyncError('local-io', `cannot write ${part}: ${fl.message}`, { name: f.rel });
    }
    throw lost(err, f.rel);
  }
  if (isDiskFull(err)) throw diskFull(f.rel);
  throw err;
}

/** Attempt 2, as a fresh pull would make it: the local folder checked again first. */
async function pullBigAgain(ctx: Ctx, f: RemoteFile, local: string, part: string): Promise<Outcome> {
  if (!(await ensureLocalDir(ctx, f, dirname(local)))) return { kind: 'skipped', reason: 'local-conflict' };
  return pullBig(ctx, f, local, part, 2);
}

/** Same size locally but not known to match: the hashes compared before moving any bytes. */
async function compareSameSize(ctx: Ctx, f: RemoteFile, local: string, attempt: number): Promise<{ verified?: Outcome; localDigest: string }> {
  const h = sha256();
  const [remote] = await Promise.all([boxHash(ctx, f, attempt), hashLocalRange(local, h)]);
  const localDigest = await h.digest();
  const verified = await verifyInPlace(ctx, f, local, localDigest, remote);
  return { verified: verified || undefined, localDigest };
}

/** Where a `.part` already there lets the pull start ('conflict': a folder in its place). */
async function partStart(ctx: Ctx, f: RemoteFile, part: string): Promise<number | 'conflict'> {
  let partSt = await lstatOrUndefined(part);
  if (partSt && !partSt.isFile()) {
    if (partSt.isDirectory()) return 'conflict';
    await fsp.rm(part, { force: true });
    partSt = undefined;
  }
  let from = partSt?.size ?? 0;
  if (from > f.size) {
    ctx.onProgress({ kind: 'part-discarded', name: f.rel, size: from, why: 'too-long' });
    from = 0;
  }
  return from;
}

/** A resumed .part is trusted only if its bytes hash like the box's first bytes; else the pull starts at 0. */
async function trustedPrefix(ctx: Ctx, f: RemoteFile, part: string, start: number): Promise<{ from: number; hash: ReturnType<typeof sha256> }> {
  let from = start;
  let hash = sha256();
  if (from > 0) {
    const [remotePrefix] = await Promise.all([remoteHash(ctx.remote, f.abs, from, from), hashLocalRange(part, hash, from)]);
    const localPrefix = await hash.peek();
    if (typeof remotePrefix.prefix !== 'string' || remotePrefix.prefix !== localPrefix) {
      ctx.onProgress({ kind: 'part-discarded', name: f.rel, size: from, why: remotePrefix.prefix === null ? 'no-remote-hash' : 'prefix-mismatch' });
      from = 0;
      hash = sha256();
    }
  }
  if (from === 0) await fsp.rm(part, { force: true });
  return { from, hash };
}

async function openPart(f: RemoteFile, part: string, from: number): Promise<fsp.FileHandle> {
  try {
    return await fsp.open(part, from === 0 ? 'w' : 'r+');
  } catch (err) {
    if (isDiskFull(err)) throw diskFull(f.rel);
    throw new SyncError('local-io', `cannot write ${part}: ${(err as Error).message}`, { name: f.rel });
  }
}

/** One big pull's bytes under way: where they go, and the identity look made ready in the tail. */
interface BigTransfer {
  ctx: Ctx;
  f: RemoteFile;
  local: string;
  part: string;
  handle: Buffer;
  out: fsp.FileHandle;
  from: number;
  hash: ReturnType<typeof sha256>;
  /** The identity before the first byte, when the file is checked by it. */
  idBefore: unknown;
  /** The look after the last byte once armed (the caller cancels it when the pull ends). */
  tail: { armed?: ArmedIdentity };
  sampleP: Promise<Buffer | undefined>;
  gzipP: Promise<boolean>;
  mayCompress: boolean;
}

/** The bytes from `from` into the open `.part` (closed after): the box's gzip when it pays, else SFTP's pipelined reads. */
async function moveBytes(t: BigTransfer): Promise<Outcome | { bytes: number; hash: ReturnType<typeof sha256> }> {
  const { ctx, f, local, part, out, from } = t;
  const opts = ctx.opts;
  let hash = t.hash;
  let bytes = 0;
  let done = from;
  // The look after the last byte, made ready while the file's tail is still coming: its
  // channel and shell are up by then, so it costs one round trip instead of two or three.
  const armInTail = () => {
    if (t.idBefore && !t.tail.armed && f.size - done <= ARM_IDENTITY_TAIL) t.tail.armed = armBoxIdentity(ctx.remote, f.abs);
  };
  const onBytes = (n: number) => {
    done += n;
    armInTail();
    ctx.onProgress({ kind: 'bytes', name: f.rel, done, size: f.size });
  };
  armInTail();
  // Compressible: through the box's gzip; refused (a bomb, a corrupt stream) or failed, the
  // .part is back at `from` and SFTP pulls it as it is.
  // The sample first: an incompressible file (weights, archives) waits for no gzip probe.
  const sample = t.mayCompress && f.size - from >= PULL_GZIP_MIN_FILE ? await t.sampleP : undefined;
  if (sample && worthCompressing(f.rel, sample) && (await t.gzipP)) {
    const g = await pullGzipped(ctx.remote, f.abs, out, { from, size: f.size, hash, signal: opts.signal, onBytes });
    if (g.ok) {
      bytes = g.raw;
      ctx.compressed?.(g.raw, g.wire);
    } else if (g.why === 'aborted') {
      await out.close().catch(() => undefined);
      return { kind: 'interrupted' };
    } else {
      opts.log?.(`sync: ${f.rel}: ${g.message}; pulling it uncompressed`);
      done = from;
      hash = sha256();
      await hashLocalRange(part, hash, from);
    }
  }
  try {
    if (bytes === 0 && from < f.size) bytes = await pullRange(ctx.sftp, t.handle, out, {
      from,
      size: f.size,
      hash,
      inFlight: opts.inFlight,
      chunkBytes: opts.chunkBytes,
      stallMs: opts.stallMs,
      signal: opts.signal,
      syncEvery: opts.durable ? undefined : 0,
      onBytes,
    });
    if (opts.durable) await out.sync();
  } catch (err) {
    await out.close().catch(() => undefined);
    return await rangeFailure(err, f, local, part, from);
  }
  await out.close();
  return { bytes, hash };
}

/** After the last byte: the same version still (stats, identity), size and SHA-256 checked, then published. */
async function verifyAndPublish(
  t: Pick<BigTransfer, 'ctx' | 'f' | 'local' | 'part' | 'handle' | 'tail'>,
  attempt: number,
  got: { bytes: number; hash: ReturnType<typeof sha256> },
  remoteFull: Promise<HashAnswer> | undefined,
  idBefore: Parameters<typeof sameIdentity>[0] | undefined,
  look: Parameters<typeof publish>[6],
): Promise<Outcome> {
  const { ctx, f, local, part } = t;
  const ready = t.tail.armed;
  const [remote, st1, idAfter] = await Promise.all([
    remoteFull ?? Promise.resolve(undefined),
    fstatOrSkip(ctx.sftp, t.handle),
    !idBefore ? Promise.resolve(undefined) : ready ? ready.fire().then((id) => id ?? boxIdentity(ctx.remote, f.abs)) : boxIdentity(ctx.remote, f.abs),
  ]);
  if (!st1 || st1.size !== f.size || st1.mtime !== f.mtime) return { kind: 'skipped', reason: 'changed-during-download' };
  // Written to (or replaced) between the first look and the last byte: not one version.
  if (idBefore && !(idAfter && sameIdentity(idBefore, idAfter))) return { kind: 'skipped', reason: 'changed-during-download' };

  const digest = await got.hash.digest();
  const partNow = await fsp.stat(part);
  const sizeOk = partNow.size === f.size;
  const hashOk = !remote || remote.full === null ? true : remote.full === digest;
  if (remote && remote.full === undefined) return { kind: 'skipped', reason: 'unreadable' };
  if (!sizeOk || !hashOk) {
    await fsp.rm(part, { force: true });
    if (attempt === 1) return pullBigAgain(ctx, f, local, part);
    return { kind: 'skipped', reason: 'verify-failed' };
  }
  await fsp.utimes(part, f.mtime, f.mtime);
  const out1 = await publish(ctx, f, part, local, remote?.full === null ? null : digest, got.bytes, look);
  return out1.kind === 'pulled' && idBefore ? { ...out1, byIdentity: true } : out1;
}

/** Pulls one settled remote file over SMALL_FILE whose local folder is checked; never leaves anything but a `.part` unless verified. */
export async function pullBig(ctx: Ctx, f: RemoteFile, local: string, part: string, attempt: number): Promise<Outcome> {
  const { sftp, opts } = ctx;
  const localSt = await lstatOrUndefined(local);
  if (localSt && !localSt.isFile()) return { kind: 'skipped', reason: 'local-conflict' };

  let localDigest: string | undefined;
  // Same size locally but not known to match: compare hashes before moving any bytes.
  if (localSt && localSt.size === f.size && attempt === 1) {
    const same = await compareSameSize(ctx, f, local, attempt);
    localDigest = same.localDigest;
    if (same.verified) return same.verified;
  }
  const look = await lookLocal(ctx, f, localSt && toLocalStat(localSt), async () => {
    if (localDigest !== undefined) return localDigest;
    const h = sha256();
    await hashLocalRange(local, h);
    return h.digest();
  });
  if (!look.replace && alreadySavedBeside(f, ctx.state.savedBeside?.[f.rel])) return { kind: 'saved-earlier' };

  const start = await partStart(ctx, f, part);
  if (start === 'conflict') return { kind: 'skipped', reason: 'local-conflict' };

  // The file's identity before any byte is read, asked alongside the open (one round trip).
  const id0P = opts.boxHash ? Promise.resolve(undefined) : boxIdentity(ctx.remote, f.abs);
  // Whether it may come compressed: the box's gzip probed beside the identity and the open
  // instead of after them, and the sample read in the open's burst (each waited in turn had
  // cost the first byte four round trips: 0.17 s through 40 ms).
  const mayCompress = ctx.remote.stream !== undefined && opts.compress !== false && f.size >= PULL_GZIP_MIN_FILE;
  const gzipP = mayCompress ? boxGzip(ctx) : Promise.resolve(false);
  const handle = await openOrSkip(sftp, f.abs);
  if (handle === 'unreadable') {
    void id0P;
    return { kind: 'skipped', reason: 'unreadable' };
  }
  const tail: { armed?: ArmedIdentity } = {};
  try {
    const sampleP = mayCompress ? readSample(sftp, handle, f.size).catch(() => undefined) : Promise.resolve(undefined);
    const [st0, atPath, id0] = await Promise.all([fstatOrSkip(sftp, handle), lstatRemote(sftp, f.abs).catch(() => undefined), id0P]); // no answer: not the file (the fstat beside it reports the lost channel)
    if (!st0) return { kind: 'skipped', reason: 'unreadable' };
    if (st0.size !== f.size || st0.mtime !== f.mtime) return { kind: 'skipped', reason: 'still-being-written' };
    if (!openedIsListed(f, st0, atPath)) return { kind: 'skipped', reason: 'remote-swapped' };

    const { from, hash } = await trustedPrefix(ctx, f, part, start);

    const free = await freeBytes(dirname(local));
    if (free !== undefined && free < f.size - from) throw diskFull(f.rel, f.size - from, free);

    // Checked by its identity on the box (no second read there), or else the box hashes the
    // file while we pull it; either way bracketed by the two stats.
    const idBefore = id0 && identityUsable(id0, f) ? id0 : undefined;
    const remoteFull: Promise<HashAnswer> | undefined = idBefore ? undefined : boxHash(ctx, f, attempt);
    ctx.onProgress({ kind: 'file-start', name: f.rel, size: f.size, from });
    const out = await openPart(f, part, from);
    const t: BigTransfer = { ctx, f, local, part, handle, out, from, hash, idBefore, tail, sampleP, gzipP, mayCompress };
    const got = await moveBytes(t);
    if ('kind' in got) return got;
    return await verifyAndPublish(t, attempt, got, remoteFull, idBefore, look);
  } finally {
    tail.armed?.cancel(); // a pull that ended early: the box's shell ends without a look
    // Not waited for (it never fails): the outcome is settled, and the close goes out in order.
    void closeHandle(sftp, handle);
  }
}
