// Checkpoint sync: pull new and changed files from a folder on the rented box into a local
// folder, each one verified (size and SHA-256 against the box) before it appears under its
// real name. Nothing here prints: progress and results are codes and numbers for the CLI
// and the extension to put into words.
import { createReadStream, lstatSync, promises as fsp, type Stats } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { HashWorker } from './local-hash';
import { listRemote, RemoteFolderError, type RemoteFile, type RemoteListing, type Skip } from './list';
import { PART_SUFFIX, type NameRules, type SkipReason } from './names';
import { batchHashScript, hashScript, parseBatchHashOutput, parseHashOutput, parseRemoteNow, REMOTE_NOW, type ExecResult, type HashAnswer } from './remote-hash';
import { closeHandle, fstat, openRead, sftpCode } from './sftp-util';
import { readState, writeState, type SyncState } from './state';
import { PullError, pullRange } from './transfer';

/** What sync needs from a connection; a warm pooled connection satisfies it as is. */
export interface SyncRemote {
  /** An SFTP session. Sync does not end it: it belongs to whoever gave it. */
  sftp(): Promise<SFTPWrapper>;
  /** Runs a command on the box and collects its output (sync's commands need no login shell). */
  exec(command: string, opts?: { timeoutMs?: number; login?: boolean }): Promise<ExecResult>;
}

export interface SyncOptions {
  remoteDir: string;
  localDir: string;
  /** Identity of the remote folder for the state file (user@host:port); the folder's real path is appended. */
  source?: string;
  /** Only the newest N complete top-level entries (files or folders) of the remote folder. */
  keepLast?: number;
  /** Remove local files this tool synced earlier that are gone from the box (or fell out of --keep-last). */
  delete?: boolean;
  /** A file counts as finished once unchanged for this long (seconds, by the box's clock). Default 5. */
  settleSeconds?: number;
  /** Wait (once, at most the settle time) for files still being written instead of skipping them. Default true. */
  waitForSettle?: boolean;
  /** Big files (4 MiB and up) pulled at once; small files go four times as many at once. Default 4. */
  concurrency?: number;
  inFlight?: number;
  chunkBytes?: number;
  stallMs?: number;
  signal?: AbortSignal;
  /** Local platform for name rules (default: this process's). */
  platform?: string;
}

export interface SyncReport {
  /** Files written (new or changed) and their bytes read from the box. */
  files: number;
  bytes: number;
  skipped: Skip[];
  seconds: number;
  /** Local files found identical by hash and kept (no transfer). */
  verified: number;
  unchanged: number;
  deleted: string[];
  pulled: string[];
  /** Stopped by the signal: unfinished files are left as `.part` only. */
  interrupted: boolean;
}

export type SyncProgress =
  | { kind: 'listed'; files: number; toPull: number }
  | { kind: 'waiting-to-settle'; seconds: number; files: number }
  | { kind: 'file-start'; name: string; size: number; from: number }
  | { kind: 'bytes'; name: string; done: number; size: number }
  | { kind: 'file-done'; name: string; size: number; bytes: number; verifiedOnly: boolean }
  | { kind: 'part-discarded'; name: string; size: number; why: 'prefix-mismatch' | 'no-remote-hash' | 'too-long' }
  | { kind: 'skipped'; name: string; reason: SkipReason }
  | { kind: 'deleted'; name: string };

export type SyncErrorCode =
  | 'remote-missing'
  | 'remote-not-directory'
  | 'remote-unreadable'
  | 'connection-lost'
  | 'local-disk-full'
  | 'local-not-directory'
  | 'local-io';

export class SyncError extends Error {
  constructor(
    readonly code: SyncErrorCode,
    message: string,
    readonly detail: { name?: string; needBytes?: number; freeBytes?: number } = {},
  ) {
    super(message);
    this.name = 'SyncError';
  }
}

type Outcome =
  | { kind: 'pulled'; bytes: number }
  | { kind: 'verified' }
  | { kind: 'skipped'; reason: SkipReason }
  | { kind: 'interrupted' };

interface Ctx {
  remote: SyncRemote;
  sftp: SFTPWrapper;
  opts: SyncOptions;
  localRoot: string;
  state: SyncState;
  onProgress: (p: SyncProgress) => void;
  hasher: HashBatcher;
  /** SHA-256 of local bytes, off the main thread. */
  hashes: HashWorker;
  /** Big transfers at once (small files do not count against it). */
  bigSlots: Semaphore;
  fatal?: SyncError;
}

class Semaphore {
  private waiting: Array<() => void> = [];
  constructor(private free: number) {}
  async acquire(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/** Files at least this big take one of the few big-transfer slots. */
const BIG_FILE = 4 * 1024 * 1024;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((res) => {
    if (signal?.aborted) return res();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      res();
    }
    signal?.addEventListener('abort', done);
  });

/** Synchronous on purpose: a thousand lstat calls are far cheaper than a thousand thread-pool round trips. */
function lstatNow(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await fsp.lstat(path);
  } catch {
    return undefined;
  }
}

function localPathOf(root: string, rel: string): string {
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

async function remoteHash(ctx: Ctx, path: string, size: number, prefix?: number): Promise<HashAnswer> {
  const req = prefix === undefined ? { path } : { path, prefix };
  // Hashing reads the whole file on the box: allow a slow data disk (50 MB/s) plus a minute.
  const timeoutMs = 60_000 + Math.ceil(size / 50_000);
  try {
    const r = await ctx.remote.exec(hashScript(req), { timeoutMs, login: false });
    return parseHashOutput(r.stdout, req);
  } catch {
    return { full: undefined, prefix: undefined };
  }
}

/**
 * Whole-file hashes on the box, batched: requests made while an exec is running join the
 * next one, so pulling a thousand small files costs a handful of commands, not a thousand.
 */
class HashBatcher {
  private queue: Array<{ path: string; size: number; resolve: (a: HashAnswer) => void }> = [];
  private running = 0;
  private scheduled = false;
  constructor(
    private readonly remote: SyncRemote,
    private readonly maxRunning = 2,
    private readonly maxBatch = 256,
  ) {}

  full(path: string, size: number): Promise<HashAnswer> {
    return new Promise((resolve) => {
      this.queue.push({ path, size, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.running < this.maxRunning && this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.running++;
      const bytes = batch.reduce((n, r) => n + r.size, 0);
      const timeoutMs = 60_000 + Math.ceil(bytes / 50_000);
      this.remote
        .exec(batchHashScript(batch.map((r) => r.path)), { timeoutMs, login: false })
        .then(
          (r) => parseBatchHashOutput(r.stdout, batch.length),
          () => batch.map(() => undefined),
        )
        .then((answers) => {
          batch.forEach((req, i) => req.resolve({ full: answers[i], prefix: undefined }));
          this.running--;
          this.pump();
        });
    }
  }
}

function isDiskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

function diskFull(name: string, need?: number, free?: number): SyncError {
  const figures = need !== undefined && free !== undefined ? ` (needs ${need} more bytes, ${free} free)` : '';
  return new SyncError('local-disk-full', `local disk full while saving ${name}${figures}; nothing was published, free space and run again to resume`, {
    name,
    needBytes: need,
    freeBytes: free,
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

/** Pulls one settled remote file; never leaves anything but a `.part` unless verified. */
async function pullFile(ctx: Ctx, f: RemoteFile, attempt = 1): Promise<Outcome> {
  const { sftp, opts } = ctx;
  const local = localPathOf(ctx.localRoot, f.rel);
  const part = local + PART_SUFFIX;
  try {
    await fsp.mkdir(dirname(local), { recursive: true });
  } catch (err) {
    if (isDiskFull(err)) throw diskFull(f.rel);
    return { kind: 'skipped', reason: 'local-conflict' };
  }
  const localSt = await lstatOrUndefined(local);
  if (localSt && !localSt.isFile()) return { kind: 'skipped', reason: 'local-conflict' };

  // Same size locally but not known to match: compare hashes before moving any bytes.
  if (localSt && localSt.size === f.size && attempt === 1) {
    const h = ctx.hashes.create();
    const [remote] = await Promise.all([ctx.hasher.full(f.abs, f.size), hashLocal(local, h)]);
    const digest = await h.digest();
    if (typeof remote.full === 'string' && remote.full === digest) {
      const now = await fstatByPath(sftp, f.abs);
      if (now && now.size === f.size && now.mtime === f.mtime) {
        await fsp.utimes(local, f.mtime, f.mtime);
        ctx.state.files[f.rel] = { size: f.size, mtime: f.mtime, sha256: digest };
        return { kind: 'verified' };
      }
      return { kind: 'skipped', reason: 'still-being-written' };
    }
  }

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

  let handle: Buffer;
  try {
    handle = await openRead(sftp, f.abs);
  } catch (err) {
    if (sftpCode(err) === undefined) throw new SyncError('connection-lost', `connection lost: ${(err as Error).message}`);
    return { kind: 'skipped', reason: 'unreadable' };
  }
  try {
    const st0 = await fstat(sftp, handle).catch((err: unknown) => {
      if (sftpCode(err) === undefined) throw new SyncError('connection-lost', `connection lost: ${(err as Error).message}`);
      return undefined;
    });
    if (!st0) return { kind: 'skipped', reason: 'unreadable' };
    if (st0.size !== f.size || st0.mtime !== f.mtime) return { kind: 'skipped', reason: 'still-being-written' };

    // A resumed .part is trusted only if its bytes hash like the box's first bytes.
    let hash = ctx.hashes.create();
    if (from > 0) {
      const [remotePrefix] = await Promise.all([remoteHash(ctx, f.abs, from, from), hashLocal(part, hash, from)]);
      const localPrefix = await hash.peek();
      if (typeof remotePrefix.prefix !== 'string' || remotePrefix.prefix !== localPrefix) {
        ctx.onProgress({ kind: 'part-discarded', name: f.rel, size: from, why: remotePrefix.prefix === null ? 'no-remote-hash' : 'prefix-mismatch' });
        from = 0;
        hash.discard();
        hash = ctx.hashes.create();
      }
    }
    if (from === 0) await fsp.rm(part, { force: true });

    const free = await freeBytes(dirname(local));
    if (free !== undefined && free < f.size - from) throw diskFull(f.rel, f.size - from, free);

    // The box hashes the file while we pull it; both are bracketed by the two stats.
    const remoteFull = ctx.hasher.full(f.abs, f.size);
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
    try {
      bytes = await pullRange(sftp, handle, out, {
        from,
        size: f.size,
        hash,
        inFlight: opts.inFlight,
        chunkBytes: opts.chunkBytes,
        stallMs: opts.stallMs,
        signal: opts.signal,
        onBytes: (n) => {
          done += n;
          ctx.onProgress({ kind: 'bytes', name: f.rel, done, size: f.size });
        },
      });
      await out.sync();
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
        throw new SyncError('connection-lost', `connection lost while pulling ${f.rel}: ${err.message}`, { name: f.rel });
      }
      if (isDiskFull(err)) throw diskFull(f.rel);
      throw err;
    }
    await out.close();

    const remote = await remoteFull;
    const st1 = await fstat(sftp, handle).catch((err: unknown) => {
      if (sftpCode(err) === undefined) throw new SyncError('connection-lost', `connection lost: ${(err as Error).message}`);
      return undefined;
    });
    if (!st1 || st1.size !== f.size || st1.mtime !== f.mtime) return { kind: 'skipped', reason: 'changed-during-download' };

    const digest = await hash.digest();
    const partNow = await fsp.stat(part);
    const sizeOk = partNow.size === f.size;
    const hashOk = remote.full === null ? true : remote.full === digest;
    if (remote.full === undefined) return { kind: 'skipped', reason: 'unreadable' };
    if (!sizeOk || !hashOk) {
      await fsp.rm(part, { force: true });
      if (attempt === 1) return pullFile(ctx, f, 2);
      return { kind: 'skipped', reason: 'verify-failed' };
    }
    await fsp.utimes(part, f.mtime, f.mtime);
    try {
      await fsp.rename(part, local);
    } catch (err) {
      // e.g. Windows refuses to replace a file another program has open. The verified .part
      // stays; the next pass re-checks it against the box and publishes it.
      if (isDiskFull(err)) throw diskFull(f.rel);
      return { kind: 'skipped', reason: 'local-conflict' };
    }
    ctx.state.files[f.rel] = { size: f.size, mtime: f.mtime, sha256: remote.full === null ? null : digest };
    return { kind: 'pulled', bytes };
  } finally {
    await closeHandle(sftp, handle);
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

function topOf(rel: string): string {
  const i = rel.indexOf('/');
  return i === -1 ? rel : rel.slice(0, i);
}

const byNewestThenName = (a: { mtime: number; top: string }, b: { mtime: number; top: string }) =>
  b.mtime - a.mtime || b.top.localeCompare(a.top, 'en', { numeric: true });

interface Plan {
  toPull: RemoteFile[];
  unchanged: RemoteFile[];
  skipped: Skip[];
  /** Local paths that must survive --delete (remote still has them or they are in progress). */
  keep: Set<string>;
  /** How long to wait for files still being written (0 = none). */
  settleWait: number;
}

async function plan(ctx: Ctx, listing: RemoteListing, remoteNow: () => Promise<number | undefined>): Promise<Plan> {
  const { opts, state } = ctx;
  const settle = Math.max(0, opts.settleSeconds ?? 5);
  const unchanged = new Set<string>();
  for (const f of listing.files) {
    const s = state.files[f.rel];
    const l = lstatNow(localPathOf(ctx.localRoot, f.rel));
    if (!l || !l.isFile() || l.size !== f.size || Math.floor(l.mtimeMs / 1000) !== f.mtime) continue;
    if (s && (s.size !== f.size || s.mtime !== f.mtime)) continue;
    unchanged.add(f.rel);
    // Same size and mtime as the box (as rsync judges): adopt it into the state.
    if (!s) state.files[f.rel] = { size: f.size, mtime: f.mtime, sha256: null };
  }
  const changed = listing.files.filter((f) => !unchanged.has(f.rel));
  const now = settle > 0 && changed.length ? await remoteNow() : undefined;
  const ageOf = (f: RemoteFile) => (now === undefined ? Infinity : now - f.mtime);
  // A timestamp far in the future cannot be judged by age; the stats around the pull still are.
  const settled = (f: RemoteFile) => unchanged.has(f.rel) || settle === 0 || ageOf(f) >= settle || ageOf(f) < -60;

  const skipped: Skip[] = [...listing.skipped];
  const keep = new Set<string>(listing.files.map((f) => f.rel));
  let selected = listing.files;
  if (opts.keepLast !== undefined) {
    const groups = new Map<string, { top: string; mtime: number; files: RemoteFile[]; complete: boolean }>();
    for (const f of listing.files) {
      const top = topOf(f.rel);
      const g = groups.get(top) ?? { top, mtime: 0, files: [], complete: true };
      g.files.push(f);
      g.mtime = Math.max(g.mtime, f.mtime);
      if (!settled(f)) g.complete = false;
      groups.set(top, g);
    }
    const complete = [...groups.values()].filter((g) => g.complete).sort(byNewestThenName);
    const chosen = new Set(complete.slice(0, opts.keepLast).map((g) => g.top));
    selected = listing.files.filter((f) => chosen.has(topOf(f.rel)) || !groups.get(topOf(f.rel))!.complete);
    keep.clear();
    for (const f of selected) keep.add(f.rel);
  }
  const inProgress = new Set<string>();
  if (opts.keepLast !== undefined) for (const f of selected) if (!settled(f)) inProgress.add(topOf(f.rel));
  const toPull: RemoteFile[] = [];
  let settleWait = 0;
  for (const f of selected) {
    if (unchanged.has(f.rel)) continue;
    if (!settled(f)) {
      skipped.push({ name: f.rel, reason: 'still-being-written' });
      settleWait = Math.max(settleWait, Math.min(settle, settle - ageOf(f)));
      continue;
    }
    // Inside an entry still in progress (--keep-last), wait for the whole entry.
    if (inProgress.has(topOf(f.rel))) continue;
    toPull.push(f);
  }
  for (const dir of listing.unlisted) keep.add(`${dir}/`);
  return { toPull, unchanged: listing.files.filter((f) => unchanged.has(f.rel)), skipped, keep, settleWait };
}

function underUnlisted(rel: string, keep: Set<string>): boolean {
  for (const k of keep) if (k.endsWith('/') && rel.startsWith(k)) return true;
  return false;
}

async function deleteStale(ctx: Ctx, listing: RemoteListing, p: Plan, report: SyncReport): Promise<void> {
  const stale = Object.keys(ctx.state.files).filter((rel) => !p.keep.has(rel) && !underUnlisted(rel, p.keep));
  const stalePartsOf = await staleParts(ctx.localRoot, p.keep);
  if (!stale.length && !stalePartsOf.length) return;
  if (listing.files.length === 0 && stale.length) {
    // An empty folder on the box is far more often a reset instance than a wish to wipe the
    // local copies, which may be the only ones left.
    report.skipped.push({ name: ctx.opts.remoteDir, reason: 'remote-empty-no-delete' });
    return;
  }
  const dirs = new Set<string>();
  for (const rel of stale) {
    const path = localPathOf(ctx.localRoot, rel);
    const rec = ctx.state.files[rel]!;
    const l = await lstatOrUndefined(path);
    if (l && (!l.isFile() || l.size !== rec.size || Math.floor(l.mtimeMs / 1000) !== rec.mtime)) {
      // Changed locally since it was synced: it is the user's now, not ours to remove.
      report.skipped.push({ name: rel, reason: 'local-modified' });
      delete ctx.state.files[rel];
      continue;
    }
    if (l) await fsp.rm(path, { force: true });
    await fsp.rm(path + PART_SUFFIX, { force: true });
    delete ctx.state.files[rel];
    report.deleted.push(rel);
    ctx.onProgress({ kind: 'deleted', name: rel });
    dirs.add(dirname(path));
  }
  for (const part of stalePartsOf) {
    await fsp.rm(localPathOf(ctx.localRoot, part), { force: true });
    dirs.add(dirname(localPathOf(ctx.localRoot, part)));
  }
  // Folders emptied by the removals go too, deepest first, never the synced folder itself.
  const root = resolve(ctx.localRoot);
  const ordered = [...dirs].sort((a, b) => b.length - a.length);
  for (let d of ordered) {
    while (resolve(d) !== root && resolve(d).startsWith(root + sep)) {
      try {
        await fsp.rmdir(d);
      } catch {
        break;
      }
      d = dirname(d);
    }
  }
  report.deleted.sort();
}

/** `.part` files (relative paths) whose remote file is gone or no longer selected. */
async function staleParts(root: string, keep: Set<string>): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(join(dir, e.name), r);
      else if (e.isFile() && e.name.endsWith(PART_SUFFIX)) {
        const base = r.slice(0, -PART_SUFFIX.length);
        if (!keep.has(base) && !underUnlisted(base, keep)) out.push(r);
      }
    }
  };
  await walk(root, '');
  return out;
}

async function ensureLocalRoot(dir: string): Promise<string> {
  const root = resolve(dir);
  try {
    await fsp.mkdir(root, { recursive: true });
  } catch (err) {
    if (isDiskFull(err)) throw diskFull(dir);
    throw new SyncError('local-not-directory', `local folder ${dir} cannot be created: ${(err as Error).message}`);
  }
  const st = await fsp.stat(root);
  if (!st.isDirectory()) throw new SyncError('local-not-directory', `local path ${dir} is not a folder`);
  return root;
}

function toSyncError(err: unknown): unknown {
  if (err instanceof SyncError) return err;
  if (err instanceof RemoteFolderError) return new SyncError(err.code, err.message);
  if (isDiskFull(err)) return diskFull(String((err as NodeJS.ErrnoException).path ?? 'a file'));
  // ssh2 transport errors carry no code at all (SFTP statuses are numbers; RemoteError and
  // Node's errors have string codes and pass through unchanged).
  if (err instanceof Error && (err as { code?: unknown }).code === undefined) {
    return new SyncError('connection-lost', `connection lost: ${err.message}`);
  }
  return err;
}

/** SFTP resolves relative paths from the login folder but knows no `~`: "~/x" means "x". */
export function remotePathForSftp(dir: string): string {
  if (dir === '~' || dir === '~/') return '.';
  if (dir.startsWith('~/')) return dir.slice(2) || '.';
  return dir;
}

/** One pass: list, compare, pull what is new or changed, optionally delete, save state. */
export async function syncOnce(remote: SyncRemote, opts: SyncOptions, onProgress: (p: SyncProgress) => void = () => undefined): Promise<SyncReport> {
  const started = performance.now();
  const rules: NameRules = { platform: opts.platform ?? process.platform };
  const report: SyncReport = { files: 0, bytes: 0, skipped: [], seconds: 0, verified: 0, unchanged: 0, deleted: [], pulled: [], interrupted: false };
  const localRoot = await ensureLocalRoot(opts.localDir);
  let ctx: Ctx | undefined;
  let stateAsRead = '';
  try {
    const sftp = await remote.sftp();
    const remoteDir = remotePathForSftp(opts.remoteDir);
    let listing = await listRemote(sftp, remoteDir, rules);
    const source = `${opts.source ?? 'remote'}:${listing.root}`;
    ctx = {
      remote,
      sftp,
      opts,
      localRoot,
      state: await readState(localRoot, source),
      onProgress,
      hasher: new HashBatcher(remote),
      hashes: new HashWorker(),
      bigSlots: new Semaphore(Math.max(1, opts.concurrency ?? 4)),
    };
    stateAsRead = JSON.stringify(ctx.state.files);
    const c = ctx;
    let clock: Promise<number | undefined> | undefined;
    const remoteNow = () =>
      (clock ??= remote.exec(REMOTE_NOW, { login: false, timeoutMs: 30_000 }).then(
        (r) => parseRemoteNow(r.stdout),
        () => undefined,
      ));
    let p = await plan(c, listing, remoteNow);
    if (p.settleWait > 0 && (opts.waitForSettle ?? true) && !opts.signal?.aborted) {
      const waitFor = p.skipped.filter((s) => s.reason === 'still-being-written').length;
      onProgress({ kind: 'waiting-to-settle', seconds: p.settleWait, files: waitFor });
      const t0 = performance.now();
      await sleep(p.settleWait * 1000 + 1000, opts.signal);
      const waited = Math.round((performance.now() - t0) / 1000);
      listing = await listRemote(sftp, remoteDir, rules);
      const before = await remoteNow();
      clock = Promise.resolve(before === undefined ? undefined : before + waited);
      p = await plan(c, listing, remoteNow);
    }
    report.skipped = p.skipped;
    report.unchanged = p.unchanged.length;
    onProgress({ kind: 'listed', files: listing.files.length, toPull: p.toPull.length });
    for (const s of p.skipped) onProgress({ kind: 'skipped', name: s.name, reason: s.reason });

    // A few files at a time; stop starting new ones after a fatal error or an interrupt.
    const queue = [...p.toPull];
    let lastSave = performance.now();
    const worker = async () => {
      for (let f = queue.shift(); f; f = queue.shift()) {
        if (c.fatal || opts.signal?.aborted) return;
        let outcome: Outcome;
        const release = f.size >= BIG_FILE ? await c.bigSlots.acquire() : () => undefined;
        try {
          outcome = await pullFile(c, f);
        } catch (err) {
          const e = toSyncError(err);
          c.fatal ??= e instanceof SyncError ? e : new SyncError('local-io', e instanceof Error ? e.message : String(e));
          return;
        } finally {
          release();
        }
        if (outcome.kind === 'pulled') {
          report.files++;
          report.bytes += outcome.bytes;
          report.pulled.push(f.rel);
          onProgress({ kind: 'file-done', name: f.rel, size: f.size, bytes: outcome.bytes, verifiedOnly: false });
        } else if (outcome.kind === 'verified') {
          report.verified++;
          onProgress({ kind: 'file-done', name: f.rel, size: f.size, bytes: 0, verifiedOnly: true });
        } else if (outcome.kind === 'skipped') {
          report.skipped.push({ name: f.rel, reason: outcome.reason });
          onProgress({ kind: 'skipped', name: f.rel, reason: outcome.reason });
        } else report.interrupted = true;
        if (performance.now() - lastSave > 10_000) {
          lastSave = performance.now();
          await writeState(localRoot, c.state).catch(() => undefined);
        }
      }
    };
    // Small files are latency-bound (a few round trips each): many at once. Big ones are
    // bandwidth-bound: `concurrency` at once, each with its own pipeline of reads.
    const workers = Math.max(1, opts.concurrency ?? 4) * 4;
    await Promise.all(Array.from({ length: workers }, worker));
    if (opts.signal?.aborted && queue.length) report.interrupted = true;
    if (c.fatal) throw c.fatal;
    if (opts.delete && !report.interrupted) await deleteStale(c, listing, p, report);
    report.skipped.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    report.pulled.sort();
    return report;
  } catch (err) {
    throw toSyncError(err);
  } finally {
    ctx?.hashes.close();
    // Nothing changed, nothing written: a no-change pass leaves the disk alone.
    if (ctx && JSON.stringify(ctx.state.files) !== stateAsRead) await writeState(localRoot, ctx.state).catch(() => undefined);
    report.seconds = Math.round(performance.now() - started) / 1000;
  }
}

export interface WatchOptions extends SyncOptions {
  /** Seconds between passes. */
  intervalSeconds: number;
  /** Reconnect backoff bounds (ms); jittered. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Errors that must not be retried (wrong password, changed host key): watch rethrows them. */
  isFatal?: (err: unknown) => boolean;
}

export type WatchEvent =
  | { kind: 'round'; report: SyncReport }
  | { kind: 'error'; error: SyncError | Error; retryInMs: number };

/**
 * Repeats syncOnce until the signal aborts. Each pass asks `connect` for a connection (a pool
 * hands back the warm one, or reconnects after a drop); losing the connection waits with
 * jittered backoff and tries again. Local disk errors and a missing remote folder are also
 * retried: a box restarting or a disk being cleared are both things that pass.
 */
export async function watchSync(
  connect: () => Promise<SyncRemote>,
  opts: WatchOptions,
  onEvent: (e: WatchEvent) => void,
  onProgress?: (p: SyncProgress) => void,
): Promise<void> {
  const min = opts.minBackoffMs ?? 1000;
  const max = opts.maxBackoffMs ?? 30_000;
  let failures = 0;
  while (!opts.signal?.aborted) {
    try {
      const remote = await connect();
      const report = await syncOnce(remote, { ...opts, waitForSettle: false }, onProgress);
      failures = 0;
      onEvent({ kind: 'round', report });
      if (report.interrupted) return;
      await sleep(opts.intervalSeconds * 1000, opts.signal);
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (opts.isFatal?.(err)) throw err;
      failures++;
      const base = Math.min(max, min * 2 ** Math.min(failures - 1, 10));
      const retryInMs = Math.round(base / 2 + Math.random() * (base / 2));
      onEvent({ kind: 'error', error: err instanceof Error ? err : new Error(String(err)), retryInMs });
      await sleep(retryInMs, opts.signal);
    }
  }
}
