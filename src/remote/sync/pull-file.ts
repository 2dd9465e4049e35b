// Pulling one settled remote file: compare by hash when the local copy has the same size,
// resume a trusted .part, pull the rest while the box hashes the file, verify size and
// SHA-256, and only then rename it into place. Never leaves anything but a .part unverified.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, futimesSync, lstatSync, openSync, promises as fsp, readFileSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { diskFull, isDiskFull, SyncError } from './errors';
import { boxIdentity, remoteHash, type HashBatcher } from './hash-batch';
import { identityUsable, sameIdentity, type HashAnswer } from './remote-hash';
import type { RemoteFile } from './list';
import { sha256 } from './local-hash';
import { PART_SUFFIX, type SkipReason } from './names';
import { lstatRemote, openedIsListed, safeLocalParent } from './safe-paths';
import { closeHandle, fstat, openRead, sftpCode } from './sftp-util';
import { alreadySavedBeside, localCopyOf, type LocalFileStat } from './planner';
import { publishNew, saveBeside } from './box-copy';
import type { SyncState } from './state';
import { PullError, pullRange, readSmall, SMALL_FILE } from './transfer';
import { boxCompression, worthCompressing } from './compress';
import { PULL_GZIP_MIN_FILE, pullGzipped, readSample } from './pull-gzip';
import type { SyncOptions, SyncProgress, SyncRemote } from './types';
import type { Semaphore } from '../util/semaphore';

export type Outcome =
  | { kind: 'pulled'; bytes: number; byIdentity?: boolean }
  | { kind: 'verified' }
  | { kind: 'skipped'; reason: SkipReason }
  | { kind: 'interrupted' }
  // The local copy is the user's: kept, the box's version saved beside it (now, or on an earlier pass).
  | { kind: 'kept'; bytes: number; boxCopy: string }
  | { kind: 'saved-earlier' };

/** The local copy as it was when the pull decided about it, and whether it may be replaced. */
interface LocalLook {
  seen: LocalFileStat | undefined;
  replace: boolean;
}
const NOTHING_THERE: LocalLook = { seen: undefined, replace: true };

/** One pass's shared state. */
export interface Ctx {
  remote: SyncRemote;
  sftp: SFTPWrapper;
  opts: SyncOptions;
  localRoot: string;
  state: SyncState;
  onProgress: (p: SyncProgress) => void;
  hasher: HashBatcher;
  /** Big transfers at once (small files do not count against it). */
  bigSlots: Semaphore;
  fatal?: SyncError;
  /** Box hashes asked for before the file's turn (small files, all at the start of a pass). */
  prefetched?: Map<string, Promise<HashAnswer>>;
  /** Local folders made and checked, or being so (one check per folder, shared by its files). */
  madeDirs?: Map<string, Promise<boolean>>;
  /** Counts a file pulled compressed: its original bytes and the compressed bytes that crossed the link. */
  compressed?: (raw: number, wire: number) => void;
  /** lstat of each listed file's local copy, taken for the plan (absent: nothing there). */
  localStats?: ReadonlyMap<string, LocalFileStat>;
  /** The listing's relative paths, lower-cased: a box copy saved beside a file never takes one. */
  listedNames?: ReadonlySet<string>;
}

/**
 * May the local copy `seen` be replaced? Only if it is what this tool wrote there (planner's
 * localCopyOf: size and mtime as recorded, or else the recorded SHA-256, hashed only then).
 */
async function lookLocal(ctx: Ctx, f: RemoteFile, seen: LocalFileStat | undefined, digestOf: () => Promise<string | undefined>): Promise<LocalLook> {
  const rec = ctx.state.files[f.rel];
  const copy = localCopyOf(rec, seen, ctx.opts.force === true);
  if (copy === 'check-hash') return { seen, replace: (await digestOf()) === rec!.sha256 };
  return { seen, replace: copy !== 'user' };
}

const toLocalStat = (s: Stats): LocalFileStat => ({ isFile: s.isFile(), size: s.size, mtime: Math.floor(s.mtimeMs / 1000) });

/** A verified local copy (same bytes as the box's): recorded; a box copy saved earlier is history. */
function recordVerified(ctx: Ctx, f: RemoteFile, sha256: string | null): void {
  ctx.state.files[f.rel] = { size: f.size, mtime: f.mtime, sha256 };
  if (ctx.state.savedBeside) delete ctx.state.savedBeside[f.rel];
}

/** The box's hash of a file: the one asked for ahead of time if there is one (first attempt only). */
function boxHash(ctx: Ctx, f: RemoteFile, attempt: number): Promise<HashAnswer> {
  const early = attempt === 1 ? ctx.prefetched?.get(f.rel) : undefined;
  if (early) {
    ctx.prefetched!.delete(f.rel);
    return early;
  }
  return ctx.hasher.full(f.abs, f.size);
}

export async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await fsp.lstat(path);
  } catch {
    return undefined;
  }
}

export function localPathOf(root: string, rel: string): string {
  const path = join(root, ...rel.split('/'));
  // Names were checked already; this is the last guard that nothing lands outside the folder.
  if (!resolve(path).startsWith(resolve(root) + sep)) throw new SyncError('local-io', `refusing to write outside ${root}: ${rel}`);
  return path;
}

async function hashLocal(path: string, hash: { update(data: Buffer): void }, limit?: number): Promise<void> {
  if (limit === 0) return;
  await new Promise<void>((res, rej) => {
    const s = createReadStream(path, limit === undefined ? {} : { start: 0, end: limit - 1 });
    s.on('data', (d) => hash.update(d as Buffer));
    s.on('end', res);
    s.on('error', rej);
  });
}

async function freeBytes(dir: string): Promise<number | undefined> {
  try {
    const s = await fsp.statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

async function fstatByPath(sftp: SFTPWrapper, path: string): Promise<{ size: number; mtime: number } | undefined> {
  try {
    const h = await openRead(sftp, path);
    try {
      return await fstat(sftp, h);
    } finally {
      await closeHandle(sftp, h);
    }
  } catch {
    return undefined;
  }
}

const lost = (err: unknown, name?: string) => new SyncError('connection-lost', `connection lost${name ? ` while pulling ${name}` : ''}: ${(err as Error).message}`, name ? { name } : {});

/** An fstat whose SFTP failure means "unreadable" and whose transport failure is fatal. */
function fstatOrSkip(sftp: SFTPWrapper, handle: Buffer) {
  return fstat(sftp, handle).catch((err: unknown) => {
    if (sftpCode(err) === undefined) throw lost(err);
    return undefined;
  });
}

/** The local folder for `f` made (once per folder), folder by folder: none may be a link or lead outside the local root. */
async function ensureLocalDir(ctx: Ctx, f: RemoteFile, dir: string): Promise<boolean> {
  let check = ctx.madeDirs?.get(dir);
  if (!check) {
    check = safeLocalParent(ctx.localRoot, f.rel).then((p) => p !== null);
    ctx.madeDirs?.set(dir, check);
    // A failed check (a full disk, say) is not remembered: the next file tries again.
    check.catch(() => ctx.madeDirs?.delete(dir));
  }
  try {
    return await check;
  } catch (err) {
    if (isDiskFull(err)) throw diskFull(f.rel);
    return false;
  }
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

/** Pulls one settled remote file; never leaves anything but a `.part` unless verified. */
export async function pullFile(ctx: Ctx, f: RemoteFile, attempt = 1): Promise<Outcome> {
  const { sftp, opts } = ctx;
  const local = localPathOf(ctx.localRoot, f.rel);
  const part = local + PART_SUFFIX;
  if (!(await ensureLocalDir(ctx, f, dirname(local)))) return { kind: 'skipped', reason: 'local-conflict' };
  if (f.size <= SMALL_FILE) return pullSmall(ctx, f, local, part, attempt);
  const localSt = await lstatOrUndefined(local);
  if (localSt && !localSt.isFile()) return { kind: 'skipped', reason: 'local-conflict' };

  let localDigest: string | undefined;
  // Same size locally but not known to match: compare hashes before moving any bytes.
  if (localSt && localSt.size === f.size && attempt === 1) {
    const h = sha256();
    const [remote] = await Promise.all([boxHash(ctx, f, attempt), hashLocal(local, h)]);
    const digest = await h.digest();
    localDigest = digest;
    if (typeof remote.full === 'string' && remote.full === digest) {
      const now = await fstatByPath(sftp, f.abs);
      if (now && now.size === f.size && now.mtime === f.mtime) {
        await fsp.utimes(local, f.mtime, f.mtime);
        recordVerified(ctx, f, digest);
        return { kind: 'verified' };
      }
      return { kind: 'skipped', reason: 'still-being-written' };
    }
  }
  const look = await lookLocal(ctx, f, localSt && toLocalStat(localSt), async () => {
    if (localDigest !== undefined) return localDigest;
    const h = sha256();
    await hashLocal(local, h);
    return h.digest();
  });
  if (!look.replace && alreadySavedBeside(f, ctx.state.savedBeside?.[f.rel])) return { kind: 'saved-earlier' };

  let partSt = await lstatOrUndefined(part);
  if (partSt && !partSt.isFile()) {
    if (partSt.isDirectory()) return { kind: 'skipped', reason: 'local-conflict' };
    await fsp.rm(part, { force: true });
    partSt = undefined;
  }
  let from = partSt?.size ?? 0;
  if (from > f.size) {
    ctx.onProgress({ kind: 'part-discarded', name: f.rel, size: from, why: 'too-long' });
    from = 0;
  }

  // The file's identity before any byte is read, asked alongside the open (one round trip).
  const id0P = opts.boxHash ? Promise.resolve(undefined) : boxIdentity(ctx.remote, f.abs);
  let handle: Buffer;
  try {
    handle = await openRead(sftp, f.abs);
  } catch (err) {
    void id0P;
    if (sftpCode(err) === undefined) throw lost(err);
    return { kind: 'skipped', reason: 'unreadable' };
  }
  try {
    const [st0, atPath, id0] = await Promise.all([fstatOrSkip(sftp, handle), lstatRemote(sftp, f.abs), id0P]);
    if (!st0) return { kind: 'skipped', reason: 'unreadable' };
    if (st0.size !== f.size || st0.mtime !== f.mtime) return { kind: 'skipped', reason: 'still-being-written' };
    if (!openedIsListed(f, st0, atPath)) return { kind: 'skipped', reason: 'remote-swapped' };

    // A resumed .part is trusted only if its bytes hash like the box's first bytes.
    let hash = sha256();
    if (from > 0) {
      const [remotePrefix] = await Promise.all([remoteHash(ctx.remote, f.abs, from, from), hashLocal(part, hash, from)]);
      const localPrefix = await hash.peek();
      if (typeof remotePrefix.prefix !== 'string' || remotePrefix.prefix !== localPrefix) {
        ctx.onProgress({ kind: 'part-discarded', name: f.rel, size: from, why: remotePrefix.prefix === null ? 'no-remote-hash' : 'prefix-mismatch' });
        from = 0;
        hash = sha256();
      }
    }
    if (from === 0) await fsp.rm(part, { force: true });

    const free = await freeBytes(dirname(local));
    if (free !== undefined && free < f.size - from) throw diskFull(f.rel, f.size - from, free);

    // Checked by its identity on the box (no second read there), or else the box hashes the
    // file while we pull it; either way bracketed by the two stats.
    const idBefore = id0 && identityUsable(id0, f) ? id0 : undefined;
    const remoteFull: Promise<HashAnswer> | undefined = idBefore ? undefined : boxHash(ctx, f, attempt);
    ctx.onProgress({ kind: 'file-start', name: f.rel, size: f.size, from });
    let out: fsp.FileHandle;
    try {
      out = await fsp.open(part, from === 0 ? 'w' : 'r+');
    } catch (err) {
      if (isDiskFull(err)) throw diskFull(f.rel);
      throw new SyncError('local-io', `cannot write ${part}: ${(err as Error).message}`, { name: f.rel });
    }
    let bytes = 0;
    let done = from;
    const onBytes = (n: number) => {
      done += n;
      ctx.onProgress({ kind: 'bytes', name: f.rel, done, size: f.size });
    };
    // Compressible: through the box's gzip; refused (a bomb, a corrupt stream) or failed, the
    // .part is back at `from` and SFTP pulls it as it is.
    if (ctx.remote.stream && opts.compress !== false && f.size - from >= PULL_GZIP_MIN_FILE && (await boxGzip(ctx))) {
      const sample = await readSample(sftp, handle, f.size).catch(() => undefined);
      if (sample && worthCompressing(f.rel, sample)) {
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
          await hashLocal(part, hash, from);
        }
      }
    }
    try {
      if (bytes === 0 && from < f.size) bytes = await pullRange(sftp, handle, out, {
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
    await out.close();

    const [remote, st1, idAfter] = await Promise.all([
      remoteFull ?? Promise.resolve(undefined),
      fstatOrSkip(sftp, handle),
      idBefore ? boxIdentity(ctx.remote, f.abs) : Promise.resolve(undefined),
    ]);
    if (!st1 || st1.size !== f.size || st1.mtime !== f.mtime) return { kind: 'skipped', reason: 'changed-during-download' };
    // Written to (or replaced) between the first look and the last byte: not one version.
    if (idBefore && !(idAfter && sameIdentity(idBefore, idAfter))) return { kind: 'skipped', reason: 'changed-during-download' };

    const digest = await hash.digest();
    const partNow = await fsp.stat(part);
    const sizeOk = partNow.size === f.size;
    const hashOk = !remote || remote.full === null ? true : remote.full === digest;
    if (remote && remote.full === undefined) return { kind: 'skipped', reason: 'unreadable' };
    if (!sizeOk || !hashOk) {
      await fsp.rm(part, { force: true });
      if (attempt === 1) return pullFile(ctx, f, 2);
      return { kind: 'skipped', reason: 'verify-failed' };
    }
    await fsp.utimes(part, f.mtime, f.mtime);
    const out1 = await publish(ctx, f, part, local, remote?.full === null ? null : digest, bytes, look);
    return out1.kind === 'pulled' && idBefore ? { ...out1, byIdentity: true } : out1;
  } finally {
    await closeHandle(sftp, handle);
  }
}

/** A new .part (never through a link or into an old file: created exclusively), with the box's mtime. */
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
  try {
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
    futimesSync(fd, mtime, mtime);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function statOf(path: string): LocalFileStat | undefined {
  try {
    const s = lstatSync(path, { throwIfNoEntry: false });
    return s && toLocalStat(s);
  } catch {
    return undefined;
  }
}

/**
 * A small file, in memory: one burst of SFTP requests (fstat, reads, close), the
 * SHA-256 of the bytes as they arrived, the box's hash asked for ahead of time, and a
 * .part written while the box's answer comes, renamed once it matches. Not fsynced (as neither scp nor rsync do); a crash can
 * lose the newest small files, never publish a wrong one under its name.
 */
async function pullSmall(ctx: Ctx, f: RemoteFile, local: string, part: string, attempt: number): Promise<Outcome> {
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
    const remote = await remoteHashP;
    if (digest !== undefined && typeof remote.full === 'string' && remote.full === digest) {
      const now = await fstatByPath(sftp, f.abs);
      if (now && now.size === f.size && now.mtime === f.mtime) {
        await fsp.utimes(local, f.mtime, f.mtime);
        recordVerified(ctx, f, digest);
        return { kind: 'verified' };
      }
      return { kind: 'skipped', reason: 'still-being-written' };
    }
    // Different: pull it, checked against the same answer from the box.
  }
  const look = await lookLocal(ctx, f, localSt, digestOf);
  if (!look.replace && alreadySavedBeside(f, ctx.state.savedBeside?.[f.rel])) {
    void remoteHashP.catch(() => undefined);
    return { kind: 'saved-earlier' };
  }
  if (ctx.opts.signal?.aborted) return { kind: 'interrupted' };

  let handle: Buffer;
  try {
    handle = await openRead(sftp, f.abs);
  } catch (err) {
    if (sftpCode(err) === undefined) throw lost(err);
    return { kind: 'skipped', reason: 'unreadable' };
  }
  const atPath = lstatRemote(sftp, f.abs); // in the same burst: is the path still the listed file?
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
 * landed like one read over SFTP, checked against the box's hash asked for ahead of time.
 * Only for a file with nothing at its local path; a mismatch is retried over SFTP.
 */
export async function landStreamed(ctx: Ctx, f: RemoteFile, data: Buffer): Promise<Outcome> {
  const local = localPathOf(ctx.localRoot, f.rel);
  if (!(await ensureLocalDir(ctx, f, dirname(local)))) return { kind: 'skipped', reason: 'local-conflict' };
  return landSmall(ctx, f, local, local + PART_SUFFIX, data, boxHash(ctx, f, 1), 1, NOTHING_THERE);
}

/** The bytes of a small file, read: hashed, written as .part, published once the box's hash agrees. */
async function landSmall(ctx: Ctx, f: RemoteFile, local: string, part: string, data: Buffer, remoteHashP: Promise<HashAnswer>, attempt: number, look: LocalLook): Promise<Outcome> {
  ctx.onProgress({ kind: 'file-start', name: f.rel, size: f.size, from: 0 });
  const digest = createHash('sha256').update(data).digest('hex');
  ctx.onProgress({ kind: 'bytes', name: f.rel, done: f.size, size: f.size });
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
    if (isDiskFull(writeErr)) throw diskFull(f.rel);
    if ((writeErr as NodeJS.ErrnoException).code === 'EISDIR' || (writeErr as NodeJS.ErrnoException).code === 'ERR_FS_EISDIR') return { kind: 'skipped', reason: 'local-conflict' };
    throw new SyncError('local-io', `cannot write ${part}: ${(writeErr as Error).message}`, { name: f.rel });
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

const sameStat = (a: LocalFileStat | undefined, b: LocalFileStat | undefined) => a !== undefined && b !== undefined && a.isFile === b.isFile && a.size === b.size && a.mtime === b.mtime;

/**
 * A verified .part renamed into place and recorded; `bytes` read from the box for it. Put over
 * the local copy only if that may be replaced and has not changed since it was looked at;
 * where nothing was there, only if nothing is there now. Else the user's file stays and the
 * .part becomes the box copy beside it.
 */
async function publish(ctx: Ctx, f: RemoteFile, part: string, local: string, sha256: string | null, bytes: number, look: LocalLook, small = false): Promise<Outcome> {
  let keep = false;
  try {
    if (ctx.opts.force) {
      if (small) renameSync(part, local);
      else await fsp.rename(part, local);
    } else {
      const now = look.seen ? statOf(local) : undefined;
      if (!now) keep = !publishNew(part, local, () => statOf(local) !== undefined);
      else if (look.replace && sameStat(now, look.seen)) {
        if (small) renameSync(part, local);
        else await fsp.rename(part, local);
      } else keep = true;
    }
    if (keep) {
      const boxCopy = saveBeside(part, f.rel, f.mtime, (rel) => localPathOf(ctx.localRoot, rel), ctx.listedNames ?? new Set());
      (ctx.state.savedBeside ??= {})[f.rel] = { size: f.size, mtime: f.mtime, savedAs: boxCopy };
      return { kind: 'kept', bytes, boxCopy };
    }
  } catch (err) {
    // e.g. Windows refuses to replace a file another program has open. The verified .part
    // stays; the next pass re-checks it against the box and publishes it.
    if (isDiskFull(err)) throw diskFull(f.rel);
    return { kind: 'skipped', reason: 'local-conflict' };
  }
  recordVerified(ctx, f, sha256);
  return { kind: 'pulled', bytes };
}
