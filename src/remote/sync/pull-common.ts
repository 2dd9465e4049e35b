// What the big- and small-file pulls share: the pass's state, the outcome of one file, the
// local path and folder guards, the one check that a same-size local copy already is the
// box's version, and the publish step that renames a verified .part into place (or keeps the
// user's file and saves the box's beside it).
import { lstatSync, mkdirSync, promises as fsp, renameSync, rmSync, type Stats } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { diskFull, isDiskFull, SyncError } from './errors';
import type { HashBatcher } from './hash-batch';
import type { HashAnswer } from './remote-hash';
import type { RemoteFile } from './list';
import { PREVIOUS_DIR, type SkipReason } from './names';
import { safeLocalParent } from './safe-paths';
import { closeHandle, fstat, openRead, sftpCode } from './sftp-util';
import { localCopyOf, type LocalFileStat } from './planner';
import { publishNew, saveBeside } from './box-copy';
import type { SyncState } from './state';
import type { SyncOptions, SyncProgress, SyncRemote } from './types';
import type { Semaphore } from '../util/semaphore';

export type Outcome =
  // `previous`: the local copy it replaced, moved to .gpu-rent-previous/ (relative path there).
  | { kind: 'pulled'; bytes: number; byIdentity?: boolean; previous?: string }
  | { kind: 'verified' }
  | { kind: 'skipped'; reason: SkipReason }
  | { kind: 'interrupted' }
  // The local copy is the user's: kept, the box's version saved beside it (now, or on an earlier pass).
  | { kind: 'kept'; bytes: number; boxCopy: string }
  | { kind: 'saved-earlier' };

/** The local copy as it was when the pull decided about it, and whether it may be replaced. */
export interface LocalLook {
  seen: LocalFileStat | undefined;
  replace: boolean;
  /** What is there is a whole earlier version worth keeping in .gpu-rent-previous/ when replaced (not what a killed pull left). */
  keepAside?: boolean;
}
export const NOTHING_THERE: LocalLook = { seen: undefined, replace: true };

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
  /** The box answers like one on loopback or a LAN (stream-small.ts nearBox): tar streams come uncompressed. */
  near?: boolean | Promise<boolean>;
}

/**
 * May the local copy `seen` be replaced? Only if it is what this tool wrote there (planner's
 * localCopyOf: size and mtime as recorded, or else the recorded SHA-256, hashed only then).
 */
export async function lookLocal(ctx: Ctx, f: RemoteFile, seen: LocalFileStat | undefined, digestOf: () => Promise<string | undefined>): Promise<LocalLook> {
  // What sync wrote here, for this source or an earlier one (state.ts `written`).
  const rec = ctx.state.files[f.rel] ?? ctx.state.written?.[f.rel];
  // An empty file with no record holds nothing of the user's to lose; it is also what a pull
  // killed between creating a new small file and writing it leaves (pull-small createVerified).
  if (!rec && seen?.isFile === true && seen.size === 0 && f.size > 0) return { seen, replace: true, keepAside: false };
  const copy = localCopyOf(rec, seen, ctx.opts.force === true);
  if (copy === 'check-hash') return { seen, replace: (await digestOf()) === rec!.sha256, keepAside: true };
  return { seen, replace: copy !== 'user', keepAside: seen?.isFile === true && seen.size > 0 };
}

export const toLocalStat = (s: Stats): LocalFileStat => ({ isFile: s.isFile(), size: s.size, mtime: Math.floor(s.mtimeMs / 1000) });

/** A verified local copy (same bytes as the box's): recorded; a box copy saved earlier is history. */
export function recordVerified(ctx: Ctx, f: RemoteFile, sha256: string | null): void {
  ctx.state.files[f.rel] = { size: f.size, mtime: f.mtime, sha256 };
  if (ctx.state.savedBeside) delete ctx.state.savedBeside[f.rel];
}

/** The box's hash of a file: the one asked for ahead of time if there is one (first attempt only). */
export function boxHash(ctx: Ctx, f: RemoteFile, attempt: number): Promise<HashAnswer> {
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

export function statOf(path: string): LocalFileStat | undefined {
  try {
    const s = lstatSync(path, { throwIfNoEntry: false });
    return s && toLocalStat(s);
  } catch {
    return undefined;
  }
}

export function localPathOf(root: string, rel: string): string {
  // A plain relative name (no empty, `.` or `..` part) under an absolute root on POSIX: what
  // join() gives, without its normalizing pass over the whole path (twice per file of a pull).
  if (sep === '/' && isPlain(rel) && isAbsolute(root)) {
    const nr = normalizedRoot(root);
    if (nr !== '/') return `${nr}/${rel}`;
  }
  const path = join(root, ...rel.split('/'));
  // Names were checked already; this is the last guard that nothing lands outside the folder.
  // join() has normalized an absolute root's path already: resolve() only for a relative one
  // (it ran twice per call, several calls per file of a first pull).
  const inside = isAbsolute(root) ? path.startsWith(normalizedRoot(root) + sep) : resolve(path).startsWith(resolve(root) + sep);
  if (!inside) throw new SyncError('local-io', `refusing to write outside ${root}: ${rel}`);
  return path;
}

/** Non-empty, no leading, trailing or doubled `/`, no `.` or `..` part: join() would leave it as it is. */
function isPlain(rel: string): boolean {
  if (rel === '' || rel[0] === '/' || rel[rel.length - 1] === '/' || rel.includes('//')) return false;
  const wrapped = `/${rel}/`;
  return !wrapped.includes('/./') && !wrapped.includes('/../');
}

let lastRoot: [root: string, normalized: string] | undefined;
/** An absolute root without a trailing separator, as join() writes it; the last one asked for is kept. */
function normalizedRoot(root: string): string {
  if (lastRoot?.[0] !== root) lastRoot = [root, resolve(root)];
  return lastRoot[1];
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

export const lost = (err: unknown, name?: string) => new SyncError('connection-lost', `connection lost${name ? ` while pulling ${name}` : ''}: ${(err as Error).message}`, name ? { name } : {});

/** The remote file opened for reading; an SFTP refusal means "unreadable", a transport failure is fatal. */
export async function openOrSkip(sftp: SFTPWrapper, abs: string): Promise<Buffer | 'unreadable'> {
  try {
    return await openRead(sftp, abs);
  } catch (err) {
    if (sftpCode(err) === undefined) throw lost(err);
    return 'unreadable';
  }
}

/** The local folder for `f` made (once per folder), folder by folder: none may be a link or lead outside the local root. */
export async function ensureLocalDir(ctx: Ctx, f: RemoteFile, dir: string): Promise<boolean> {
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

/**
 * A local copy of the listed size whose SHA-256 (`digest`) is the box's (`remote`) is already
 * the box's version: verified and recorded without moving a byte, once the box's file is seen
 * unchanged; one changed since the listing is still being written. Undefined: not the same
 * bytes (or unknown), so it is pulled.
 */
export async function verifyInPlace(ctx: Ctx, f: RemoteFile, local: string, digest: string | undefined, remote: HashAnswer): Promise<Outcome | undefined> {
  if (digest === undefined || typeof remote.full !== 'string' || remote.full !== digest) return undefined;
  const now = await fstatByPath(ctx.sftp, f.abs);
  if (now && now.size === f.size && now.mtime === f.mtime) {
    await fsp.utimes(local, f.mtime, f.mtime);
    recordVerified(ctx, f, digest);
    return { kind: 'verified' };
  }
  return { kind: 'skipped', reason: 'still-being-written' };
}

const sameStat = (a: LocalFileStat | undefined, b: LocalFileStat | undefined) => a !== undefined && b !== undefined && a.isFile === b.isFile && a.size === b.size && a.mtime === b.mtime;

/**
 * A verified .part renamed into place and recorded; `bytes` read from the box for it. Put over
 * the local copy only if that may be replaced and has not changed since it was looked at;
 * where nothing was there, only if nothing is there now. Else the user's file stays and the
 * .part becomes the box copy beside it.
 */
export async function publish(ctx: Ctx, f: RemoteFile, part: string, local: string, sha256: string | null, bytes: number, look: LocalLook, small = false): Promise<Outcome> {
  let keep = false;
  let previous: string | undefined;
  try {
    if (ctx.opts.force) {
      if (look.seen && look.keepAside) previous = setAside(ctx.localRoot, f.rel, local);
      if (small) renameSync(part, local);
      else await fsp.rename(part, local);
    } else {
      const now = look.seen ? statOf(local) : undefined;
      if (!now) keep = !publishNew(part, local, () => statOf(local) !== undefined);
      else if (look.replace && sameStat(now, look.seen)) {
        if (look.keepAside) previous = setAside(ctx.localRoot, f.rel, local);
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
  return { kind: 'pulled', bytes, ...(previous ? { previous } : {}) };
}

/**
 * The local copy of `rel` that the box's newer version is about to replace, moved to
 * `.gpu-rent-previous/<rel>` (one earlier version per file: the one there before goes). A
 * hidden folder beside the synced files, never a name beside the file: a loader that reads
 * every `*.safetensors` of a checkpoint folder, or a `checkpoint-*` glob, does not pick it up.
 * Undefined when it cannot be moved (then the file is replaced as before).
 */
function setAside(root: string, rel: string, local: string): string | undefined {
  try {
    const top = join(root, PREVIOUS_DIR);
    const st = lstatSync(top, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) return undefined; // a link or a file of the user's there: not followed
    const to = localPathOf(top, rel);
    const cut = rel.lastIndexOf('/');
    mkdirSync(cut === -1 ? top : localPathOf(top, rel.slice(0, cut)), { recursive: true });
    rmSync(to, { force: true, recursive: true });
    renameSync(local, to);
    return `${PREVIOUS_DIR}/${rel}`;
  } catch {
    return undefined;
  }
}
