// Pulling a small file (up to SMALL_FILE): read whole into memory in one burst of SFTP
// requests (or taken from the box's tar stream), hashed as it arrived, written as a .part
// while the box's hash is on its way, and published only once that hash agrees.
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, futimesSync, openSync, promises as fsp, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { diskFull, isDiskFull, SyncError } from './errors';
import type { HashAnswer } from './remote-hash';
import type { RemoteFile } from './list';
import { PART_SUFFIX } from './names';
import { openedIsListed } from './safe-paths';
import { closeHandle, lstatRemote } from './sftp-util';
import { alreadySavedBeside, type LocalFileStat } from './planner';
import { readSmall } from './small-read';
import { boxHash, ensureLocalDir, localPathOf, lookLocal, lost, NOTHING_THERE, openOrSkip, publish, recordVerified, statOf, verifyInPlace, type Ctx, type LocalLook, type Outcome } from './pull-common';

/**
 * A new .part (never through a link or into an old file: created exclusively) with the box's
 * mtime, written with plain system calls on this thread: for a small file the four calls
 * cost less than one trip through the thread pool each (20,000 files: 9 s through the pool
 * against about 3 s here on this VM), and the event loop waits ~0.1 ms per file.
 */
function writePart(part: string, data: Buffer, mtime: number, durable: boolean): void {
  let fd: number;
  try {
    fd = openSync(part, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    rmSync(part, { force: true }); // a folder here fails with EISDIR: a conflict
    fd = openSync(part, 'wx');
  }
  writeAndClose(fd, data, mtime, durable);
}

function writeAndClose(fd: number, data: Buffer, mtime: number, durable: boolean): void {
  try {
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
    futimesSync(fd, mtime, mtime);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A small file's failed local write at `path`: a full disk ends the pass, a folder in the way is a conflict, anything else a local-io error. */
function writeFailure(err: unknown, f: RemoteFile, path: string): Outcome {
  if (isDiskFull(err)) throw diskFull(f.rel);
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EISDIR' || code === 'ERR_FS_EISDIR' || code === 'ENOTDIR') return { kind: 'skipped', reason: 'local-conflict' };
  throw new SyncError('local-io', `cannot write ${path}: ${(err as Error).message}`, { name: f.rel });
}

/**
 * Verified bytes made at their own name, where nothing was: created exclusively (a file or
 * link that appeared there meanwhile is never replaced: EEXIST, and the caller falls back to
 * the .part and publish), written, given the box's mtime, closed: four system calls where the
 * .part took six (its link and unlink to publish). All in one synchronous step, so no signal
 * handler runs in between; a process killed inside it leaves the file whole with today's
 * mtime (the next pass finds the same size, compares hashes and keeps it as verified) or,
 * killed between the open and the write, empty (the next pass replaces an empty file it has
 * no record of: see lookLocal). False when something is at the name.
 */
function createVerified(local: string, data: Buffer, mtime: number, durable: boolean): boolean {
  let fd: number;
  try {
    fd = openSync(local, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeAndClose(fd, data, mtime, durable);
  } catch (err) {
    rmSync(local, { force: true }); // made exclusively a moment ago: ours, and not whole (a full disk)
    throw err;
  }
  return true;
}

/**
 * A small file, in memory: one burst of SFTP requests (fstat, reads, close), the
 * SHA-256 of the bytes as they arrived, the box's hash asked for ahead of time, and a
 * .part written while the box's answer comes, renamed once it matches. Not fsynced (as neither scp nor rsync do); a crash can
 * lose the newest small files, never publish a wrong one under its name.
 */
export async function pullSmall(ctx: Ctx, f: RemoteFile, local: string, part: string, attempt: number): Promise<Outcome> {
  const { sftp } = ctx;
  // The plan's lstat of this path (taken a moment ago) saves one more per file.
  const known = attempt === 1 ? ctx.localStats : undefined;
  const localSt: LocalFileStat | undefined = known ? known.get(f.rel) : statOf(local);
  if (localSt && !localSt.isFile) return { kind: 'skipped', reason: 'local-conflict' };
  const remoteHashP = boxHash(ctx, f, attempt);
  let localDigest: string | undefined;
  const digestOf = async () => {
    try {
      localDigest ??= createHash('sha256').update(readFileSync(local)).digest('hex');
    } catch {
      /* unreadable: not known to be ours */
    }
    return localDigest;
  };
  // Same size locally but not known to match: compare hashes before moving any bytes.
  if (localSt && localSt.size === f.size && attempt === 1) {
    const digest = await digestOf();
    const verified = await verifyInPlace(ctx, f, local, digest, await remoteHashP);
    if (verified) return verified;
    // Different: pull it, checked against the same answer from the box.
  }
  const look = await lookLocal(ctx, f, localSt, digestOf);
  if (!look.replace && alreadySavedBeside(f, ctx.state.savedBeside?.[f.rel])) {
    void remoteHashP.catch(() => undefined);
    return { kind: 'saved-earlier' };
  }
  if (ctx.opts.signal?.aborted) return { kind: 'interrupted' };

  const handle = await openOrSkip(sftp, f.abs);
  if (handle === 'unreadable') return { kind: 'skipped', reason: 'unreadable' };
  // In the same burst: is the path still the listed file? No answer counts as "not the file"
  // (the read beside it reports a lost channel), and the promise must never reject unawaited.
  const atPath = lstatRemote(sftp, f.abs).catch(() => undefined);
  const read = readSmall(sftp, handle, f.size);
  const closed = closeHandle(sftp, handle); // goes out right behind the burst
  const r = await read;
  await closed;
  if (!r.ok) {
    const fl = r.failure;
    if (fl.kind === 'transport' || fl.kind === 'stalled') throw lost(new Error(fl.kind === 'stalled' ? `no reply in ${Math.round(fl.ms / 1000)} s` : fl.message), f.rel);
    if (fl.kind === 'remote-shrank') return { kind: 'skipped', reason: 'changed-during-download' };
    return { kind: 'skipped', reason: 'unreadable' };
  }
  const { before, data } = r;
  if (!before.isFile()) return { kind: 'skipped', reason: 'unreadable' };
  if (before.size !== f.size || before.mtime !== f.mtime) return { kind: 'skipped', reason: 'still-being-written' };
  // No second fstat: a change during the read shows as a hash that differs from the box's
  // (retried once, then refused); one the box hashed too is a whole version of the file.
  if (!openedIsListed(f, before, await atPath)) return { kind: 'skipped', reason: 'remote-swapped' };
  return landSmall(ctx, f, local, part, data, remoteHashP, attempt, look);
}

/**
 * A small file whose bytes came in one piece of a tar stream from the box (stream-small.ts):
 * landed like one read over SFTP, checked against the box's hash (`boxSays`: the one the
 * stream's command sent, else one asked for ahead of time). Only for a file with nothing at
 * its local path; a mismatch is retried over SFTP with a fresh hash.
 */
export async function landStreamed(ctx: Ctx, f: RemoteFile, data: Buffer, boxSays: Promise<HashAnswer> = boxHash(ctx, f, 1)): Promise<Outcome> {
  const local = localPathOf(ctx.localRoot, f.rel);
  if (!(await ensureLocalDir(ctx, f, dirname(local)))) {
    void boxSays.catch(() => undefined);
    return { kind: 'skipped', reason: 'local-conflict' };
  }
  return landSmall(ctx, f, local, local + PART_SUFFIX, data, boxSays, 1, NOTHING_THERE);
}

/**
 * The bytes of a small file, read: hashed and checked against the box's hash. Where nothing
 * was at the local path they are then created at their name (the box's hash of a streamed file
 * is in ahead of its bytes, so nothing waits); over a local copy they are written as .part
 * while the box's hash comes, and published once it agrees.
 */
async function landSmall(ctx: Ctx, f: RemoteFile, local: string, part: string, data: Buffer, remoteHashP: Promise<HashAnswer>, attempt: number, look: LocalLook): Promise<Outcome> {
  ctx.onProgress({ kind: 'file-start', name: f.rel, size: f.size, from: 0 });
  const digest = createHash('sha256').update(data).digest('hex');
  ctx.onProgress({ kind: 'bytes', name: f.rel, done: f.size, size: f.size });
  if (look.seen === undefined) {
    const remote = await remoteHashP;
    if (remote.full === undefined) return { kind: 'skipped', reason: 'unreadable' };
    if (remote.full !== null && remote.full !== digest) return attempt === 1 ? pullSmall(ctx, f, local, part, 2) : { kind: 'skipped', reason: 'verify-failed' };
    let made: boolean;
    try {
      made = createVerified(local, data, f.mtime, ctx.opts.durable === true);
    } catch (err) {
      return writeFailure(err, f, local);
    }
    if (made) {
      recordVerified(ctx, f, remote.full === null ? null : digest);
      return { kind: 'pulled', bytes: f.size };
    }
    // Something appeared at the name meanwhile: the .part and publish keep it and save the box's beside it.
  }
  // The .part is written while the box's answer is on its way; it is renamed only once
  // the answer matches.
  let writeErr: unknown;
  try {
    writePart(part, data, f.mtime, ctx.opts.durable === true);
  } catch (err) {
    writeErr = err;
  }
  if (writeErr !== undefined) {
    try {
      rmSync(part, { force: true });
    } catch {
      /* a folder in the way stays: that is the conflict reported */
    }
    return writeFailure(writeErr, f, part);
  }
  const remote = await remoteHashP;
  if (remote.full === undefined || (remote.full !== null && remote.full !== digest)) {
    await fsp.rm(part, { force: true });
    if (remote.full === undefined) return { kind: 'skipped', reason: 'unreadable' };
    if (attempt === 1) return pullSmall(ctx, f, local, part, 2);
    return { kind: 'skipped', reason: 'verify-failed' };
  }
  return publish(ctx, f, part, local, remote.full === null ? null : digest, f.size, look, true);
}
