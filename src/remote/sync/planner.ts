// The sync planner: from the remote listing, what is on the local disk and the box's clock,
// decide what to pull, what is unchanged, what to skip (and why), what --keep-last keeps and
// what --delete removes, and whether a local copy about to be replaced is still what this
// tool wrote (else it is the user's: kept, the box's version saved beside it). Pure: no I/O, no clock of its own; syncOnce gathers the facts and
// carries the plan out. Property-tested in test/unit/remote-sync-planner.test.ts.
import type { RemoteFile, RemoteListing, Skip } from './list';
import { PART_SUFFIX } from './names';
import type { SavedBeside, SyncedFile } from './state';

/** What lstat says about a local path (mtime in whole seconds, as SFTP v3 gives it). */
export interface LocalFileStat {
  isFile: boolean;
  size: number;
  mtime: number;
}

export interface LocalState {
  /** The state file's records: files this tool verified (or adopted) earlier. */
  records: Readonly<Record<string, SyncedFile>>;
  /** lstat of the local copy of each listed file and each record; absent = nothing there. */
  stats: ReadonlyMap<string, LocalFileStat>;
  /** Relative paths of the `.part` files in the local folder (needed only with delete). */
  parts: readonly string[];
  /** Box versions already saved beside a kept local file (the state's `savedBeside`). */
  savedBeside?: Readonly<Record<string, SavedBeside>>;
}

export interface PlanOptions {
  /** A file counts as finished once unchanged for this long (seconds, by the box's clock). */
  settleSeconds: number;
  /** Only the newest N complete top-level entries. */
  keepLast?: number;
  /** Plan removals of files this tool synced that are gone from the box (or fell out of keepLast). */
  delete?: boolean;
  /** Replace local copies whatever they are (--force): the user's changes are lost. */
  force?: boolean;
}

/**
 * What the local copy of a file to pull is, by the state's record and the local lstat:
 * - 'none': nothing there, a new file;
 * - 'synced': what this tool last wrote there, unchanged since (size and mtime as recorded):
 *   may be replaced;
 * - 'check-hash': the recorded size but another mtime: the tool's own only if its SHA-256 is
 *   the recorded one (the caller hashes it);
 * - 'user': changed since this tool wrote it, or never written by it: kept, never replaced.
 * Size and mtime first (no read); a hash only where they cannot tell.
 */
export type LocalCopy = 'none' | 'synced' | 'check-hash' | 'user';

export function localCopyOf(record: SyncedFile | undefined, stat: LocalFileStat | undefined, force = false): LocalCopy {
  if (!stat) return 'none';
  if (force) return 'synced';
  if (!record || !stat.isFile || stat.size !== record.size) return 'user';
  if (stat.mtime === record.mtime) return 'synced';
  return record.sha256 === null ? 'user' : 'check-hash';
}

/** The box's version of `f` is the one already saved beside the user's local copy. */
export function alreadySavedBeside(f: { size: number; mtime: number }, saved: SavedBeside | undefined): boolean {
  return saved !== undefined && saved.size === f.size && saved.mtime === f.mtime;
}

export interface DeletionPlan {
  /** Local files to remove (each recorded in the state, unchanged locally since). */
  files: string[];
  /** Recorded files changed locally since they were synced: kept, and forgotten by the state. */
  localModified: string[];
  /** Stale `.part` files to remove. */
  parts: string[];
  /** Records whose path is not a safe relative path (a tampered state file): forgotten, never touched. */
  unsafe: string[];
  /** Refused: the remote folder is empty (more often a reset instance than a wish to wipe). */
  refusedEmpty: boolean;
}

export interface Plan {
  toPull: RemoteFile[];
  unchanged: RemoteFile[];
  skipped: Skip[];
  /** Local paths that must survive --delete (remote still has them, or they are in progress); "dir/" = all below. */
  keep: Set<string>;
  /** How long to wait for files still being written (0 = none). */
  settleWait: number;
  /** Files found identical locally (same size and mtime) that the state does not know yet. */
  adopt: Record<string, SyncedFile>;
  /**
   * Files whose local copy is the user's (see LocalCopy) and whose box version was saved
   * beside it on an earlier pass: not pulled again.
   */
  savedEarlier: RemoteFile[];
  deletion: DeletionPlan;
}

/** A "/"-separated relative path with no empty, "." or ".." component, no backslash, no NUL. */
export function isSafeRelative(rel: string): boolean {
  if (rel.length === 0 || rel.startsWith('/') || rel.includes('\\') || rel.includes('\0') || /^[A-Za-z]:/.test(rel)) return false;
  return rel.split('/').every((p) => p !== '' && p !== '.' && p !== '..');
}

export function topOf(rel: string): string {
  const i = rel.indexOf('/');
  return i === -1 ? rel : rel.slice(0, i);
}

const byNewestThenName = (a: { mtime: number; top: string }, b: { mtime: number; top: string }) => b.mtime - a.mtime || b.top.localeCompare(a.top, 'en', { numeric: true });

function underUnlisted(rel: string, keep: Set<string>): boolean {
  for (const k of keep) if (k.endsWith('/') && rel.startsWith(k)) return true;
  return false;
}

function sameAsRemote(f: RemoteFile, local: LocalState): boolean {
  const l = local.stats.get(f.rel);
  if (!l || !l.isFile || l.size !== f.size || l.mtime !== f.mtime) return false;
  const s = local.records[f.rel];
  return !s || (s.size === f.size && s.mtime === f.mtime);
}

/** Listed files whose local copy is missing or differs: if any, the planner needs the box's clock. */
export function changedFiles(listing: RemoteListing, local: LocalState): RemoteFile[] {
  return listing.files.filter((f) => !sameAsRemote(f, local));
}

/**
 * The plan for one pass. `now` is the box's clock (seconds), or undefined when it is
 * unknown or was not needed (every file then counts as settled).
 */
export function plan(listing: RemoteListing, local: LocalState, now: number | undefined, options: PlanOptions): Plan {
  const settle = Math.max(0, options.settleSeconds);
  const files = listing.files.filter((f) => isSafeRelative(f.rel));
  const unchanged = new Set<string>();
  const adopt: Record<string, SyncedFile> = {};
  for (const f of files) {
    if (!sameAsRemote(f, local)) continue;
    unchanged.add(f.rel);
    // Same size and mtime as the box (as rsync judges): adopt it into the state.
    if (!local.records[f.rel]) adopt[f.rel] = { size: f.size, mtime: f.mtime, sha256: null };
  }
  const ageOf = (f: RemoteFile) => (now === undefined ? Infinity : now - f.mtime);
  // A timestamp far in the future cannot be judged by age; the stats around the pull still are.
  const settled = (f: RemoteFile) => unchanged.has(f.rel) || settle === 0 || ageOf(f) >= settle || ageOf(f) < -60;

  const skipped: Skip[] = [...listing.skipped];
  const keep = new Set<string>(files.map((f) => f.rel));
  let selected = files;
  const inProgress = new Set<string>();
  if (options.keepLast !== undefined) {
    const groups = new Map<string, { top: string; mtime: number; complete: boolean }>();
    for (const f of files) {
      const top = topOf(f.rel);
      const g = groups.get(top) ?? { top, mtime: 0, complete: true };
      g.mtime = Math.max(g.mtime, f.mtime);
      if (!settled(f)) g.complete = false;
      groups.set(top, g);
    }
    const complete = [...groups.values()].filter((g) => g.complete).sort(byNewestThenName);
    const chosen = new Set(complete.slice(0, Math.max(0, options.keepLast)).map((g) => g.top));
    selected = files.filter((f) => chosen.has(topOf(f.rel)) || !groups.get(topOf(f.rel))!.complete);
    keep.clear();
    for (const f of selected) keep.add(f.rel);
    for (const f of selected) if (!settled(f)) inProgress.add(topOf(f.rel));
  }
  const toPull: RemoteFile[] = [];
  const savedEarlier: RemoteFile[] = [];
  let settleWait = 0;
  for (const f of selected) {
    if (unchanged.has(f.rel)) continue;
    if (!options.force && localCopyOf(local.records[f.rel], local.stats.get(f.rel)) === 'user' && alreadySavedBeside(f, local.savedBeside?.[f.rel])) {
      savedEarlier.push(f);
      continue;
    }
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

  const deletion: DeletionPlan = { files: [], localModified: [], parts: [], unsafe: [], refusedEmpty: false };
  if (options.delete) planDeletion(listing, local, adopt, keep, deletion);
  return { toPull, unchanged: files.filter((f) => unchanged.has(f.rel)), skipped, keep, settleWait, adopt, savedEarlier, deletion };
}

function planDeletion(listing: RemoteListing, local: LocalState, adopt: Record<string, SyncedFile>, keep: Set<string>, out: DeletionPlan): void {
  const records: Record<string, SyncedFile> = { ...local.records, ...adopt };
  const stale: string[] = [];
  for (const rel of Object.keys(records)) {
    if (keep.has(rel) || underUnlisted(rel, keep)) continue;
    if (!isSafeRelative(rel)) out.unsafe.push(rel);
    else stale.push(rel);
  }
  const parts = local.parts.filter((p) => {
    if (!p.endsWith(PART_SUFFIX) || !isSafeRelative(p)) return false;
    const base = p.slice(0, -PART_SUFFIX.length);
    return !keep.has(base) && !underUnlisted(base, keep);
  });
  if (!stale.length && !parts.length) return;
  if (listing.files.length === 0 && stale.length) {
    out.refusedEmpty = true;
    return;
  }
  for (const rel of stale) {
    const rec = records[rel]!;
    const l = local.stats.get(rel);
    // Changed locally since it was synced: it is the user's now, not ours to remove.
    if (l && (!l.isFile || l.size !== rec.size || l.mtime !== rec.mtime)) out.localModified.push(rel);
    else out.files.push(rel);
  }
  out.parts.push(...parts);
  out.files.sort();
}
