// The push planner: from the local tree, the box's listing and what the box can do, decide
// each local file's fate (sent, unchanged, or skipped with one reason), the transport of each
// file sent (already in the first stream, a tar stream, SFTP, SFTP for a big file; gzip in
// flight where it may pay), and the folders the sent files need on the box. Pure: no I/O, no
// ssh2; pushOnce (push.ts) gathers the facts and carries the plan out. Property-tested in
// test/unit/remote-sync-push-plan.test.ts.
import { checkRelativePath, PART_SUFFIX, type SkipReason } from './names';
import { shQuote } from '../shell';

/** `excluded`: left out by the caller (a file the secret scan flagged, Upload Without These Files). */
export type PushSkipReason = SkipReason | 'remote-newer' | 'local-changed' | 'remote-conflict' | 'local-link' | 'remote-unwritable' | 'excluded';

/** A file this size or bigger goes alone over SFTP (a few at once, a cut .part resumed). */
export const BIG_FILE = 4 * 1024 * 1024;
/** Fewer new small files than this go over SFTP (a stream costs a channel and two processes). */
export const PUSH_STREAM_MIN_FILES = 16;
/** Files from this size on are worth a gzip stream of their own (a channel costs ~3 round trips). */
export const GZIP_MIN_FILE = 256 * 1024;

/** One tar stream holds at most this many files and this many bytes of them (one bigger file goes alone). */
export const STREAM_BATCH_FILES = 2000;
export const STREAM_BATCH_BYTES = 16 * 1024 * 1024;
/** The names ride on the command line, which sshd hands the login shell as one argument (128 KiB at most). */
export const STREAM_BATCH_NAME_BYTES = 48 * 1024;

/** What the planner needs of a local file (LocalFile has more). */
export interface PlanFile {
  /** POSIX path below the local root, as it will be on the box. */
  rel: string;
  size: number;
  /** Whole seconds. */
  mtime: number;
}

/** What the box's listing says of a file there (RemoteFile has more). */
export interface BoxFile {
  rel: string;
  size: number;
  mtime: number;
}

/**
 * - 'first-stream': delivered to its .part by the stream sent before the listing;
 * - 'stream': a new small file, in a tar stream unpacked by the box;
 * - 'sftp': a small file over SFTP;
 * - 'sftp-big': a big file over SFTP (resumable, hashed on the box alone).
 */
export type PushTransport = 'first-stream' | 'stream' | 'sftp' | 'sftp-big';

export interface PushSend<F extends PlanFile = PlanFile> {
  file: F;
  transport: PushTransport;
  /** The folder it goes into, relative to the root ('' = the root). */
  dir: string;
  /** May go through the box's gzip whenever it goes over SFTP (first or a retry), if its first bytes say compressing pays. */
  gzip: boolean;
}

export type PushAction<F extends PlanFile = PlanFile> = ({ kind: 'send' } & PushSend<F>) | { kind: 'unchanged'; file: F } | { kind: 'skip'; file: F; reason: PushSkipReason };

export interface PushFacts {
  /** Names the first stream delivered (nothing was at their path on the box). */
  firstSent: ReadonlySet<string>;
  /** The box takes tar streams: a stream channel, a working gzip, and the first stream did not fail. */
  stream: boolean;
  /** Compression in flight is on and the box has a working gzip. */
  gzip: boolean;
}

export interface PushPlanOptions {
  /** Overwrite files on the box that are newer than the local ones. */
  force?: boolean;
}

export interface PushPlan<F extends PlanFile = PlanFile> {
  /** One per local file the caller did not skip, in the tree's order. */
  actions: Array<PushAction<F>>;
  /** The caller's skips, then the planner's (one entry per name). */
  skipped: Array<{ name: string; reason: PushSkipReason }>;
  unchanged: F[];
  /** The files to send by transport, each in the tree's order. */
  firstStream: Array<PushSend<F>>;
  stream: Array<PushSend<F>>;
  /** `stream` cut into tar streams, in order (see fitsStream). */
  streamBatches: Array<Array<PushSend<F>>>;
  sftp: Array<PushSend<F>>;
  big: Array<PushSend<F>>;
  /** Every folder below the root a sent file needs (parents before children); tar makes them for streamed files, SFTP for the rest. */
  folders: string[];
}

/** Why a file the caller listed cannot be written on the box under that name, if it cannot. */
function unsafeName(rel: string): SkipReason | undefined {
  return checkRelativePath(rel, { platform: 'linux' });
}

function dirOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i === -1 ? '' : rel.slice(0, i);
}

/** The small files worth sending in the first stream, before the box is listed: safe names only. */
export function firstStreamCandidates<F extends PlanFile>(tree: { files: readonly F[]; skipped: ReadonlyArray<{ name: string }> }): F[] {
  const skipped = new Set(tree.skipped.map((s) => s.name));
  return tree.files.filter((f) => f.size < BIG_FILE && !skipped.has(f.rel) && unsafeName(f.rel) === undefined);
}

/**
 * The plan for one push. Judged as rsync judges: the same size and mtime on the box is
 * unchanged; a box copy newer than the local file is kept unless `force`; anything else is
 * sent. A name the caller skipped is never sent; a name the box could not hold is skipped.
 */
export function planPush<F extends PlanFile>(
  tree: { files: readonly F[]; skipped: ReadonlyArray<{ name: string; reason: PushSkipReason }> },
  boxFiles: readonly BoxFile[],
  facts: PushFacts,
  options: PushPlanOptions = {},
): PushPlan<F> {
  const callerSkipped = new Set(tree.skipped.map((s) => s.name));
  const onBox = new Map(boxFiles.map((f) => [f.rel, f]));
  const out: PushPlan<F> = { actions: [], skipped: [...tree.skipped], unchanged: [], firstStream: [], stream: [], streamBatches: [], sftp: [], big: [], folders: [] };
  const send = (file: F, transport: PushTransport) => {
    const s: PushSend<F> = { file, transport, dir: dirOf(file.rel), gzip: facts.gzip && file.size >= GZIP_MIN_FILE };
    out.actions.push({ kind: 'send', ...s });
    return s;
  };
  const small: F[] = [];
  for (const f of tree.files) {
    if (callerSkipped.has(f.rel)) continue;
    const bad = unsafeName(f.rel);
    const r = onBox.get(f.rel);
    if (bad) {
      out.skipped.push({ name: f.rel, reason: bad });
      out.actions.push({ kind: 'skip', file: f, reason: bad });
    } else if (facts.firstSent.has(f.rel)) out.firstStream.push(send(f, 'first-stream'));
    else if (r && r.size === f.size && r.mtime === f.mtime) {
      out.unchanged.push(f);
      out.actions.push({ kind: 'unchanged', file: f });
    } else if (r && r.mtime > f.mtime && !options.force) {
      out.skipped.push({ name: f.rel, reason: 'remote-newer' });
      out.actions.push({ kind: 'skip', file: f, reason: 'remote-newer' });
    } else if (f.size >= BIG_FILE) out.big.push(send(f, 'sftp-big'));
    else small.push(f);
  }
  // New small files (none at their path on the box) go in tar streams when there are enough.
  const fresh = small.filter((f) => !onBox.has(f.rel));
  const streamed = facts.stream && fresh.length >= PUSH_STREAM_MIN_FILES ? new Set(fresh) : new Set<F>();
  for (const f of small) (streamed.has(f) ? out.stream : out.sftp).push(send(f, streamed.has(f) ? 'stream' : 'sftp'));
  out.streamBatches = streamBatches(out.stream, (s) => s.file);
  out.folders = foldersFor(out.actions.flatMap((a) => (a.kind === 'send' ? [a.dir] : [])));
  return out;
}

/** The bytes a file's .part name takes on the unpack command line. */
const nameBytes = (rel: string) => shQuote(rel + PART_SUFFIX).length + 1;

/** Whether one more file fits a tar stream holding `batch` so far (files, bytes, and names on the command line); the first always does. */
export function fitsStream(batch: { files: number; bytes: number; names: number }, f: PlanFile, maxBytes = STREAM_BATCH_BYTES): boolean {
  return batch.files === 0 || (batch.files < STREAM_BATCH_FILES && batch.bytes + f.size <= maxBytes && batch.names + nameBytes(f.rel) <= STREAM_BATCH_NAME_BYTES);
}

/** Adds `f` to the running totals of a stream. */
export function addToStream(batch: { files: number; bytes: number; names: number }, f: PlanFile): void {
  batch.files++;
  batch.bytes += f.size;
  batch.names += nameBytes(f.rel);
}

/** Cuts `items` into tar streams in order, each as full as fitsStream allows. */
function streamBatches<T>(items: readonly T[], fileOf: (item: T) => PlanFile): T[][] {
  const out: T[][] = [];
  let acc = { files: 0, bytes: 0, names: 0 };
  for (const it of items) {
    if (!fitsStream(acc, fileOf(it))) acc = { files: 0, bytes: 0, names: 0 };
    if (acc.files === 0) out.push([]);
    out[out.length - 1]!.push(it);
    addToStream(acc, fileOf(it));
  }
  return out;
}

/** Each folder and every folder above it, once, parents first. */
function foldersFor(dirs: readonly string[]): string[] {
  const all = new Set<string>();
  for (const d of dirs) {
    if (d === '') continue;
    const parts = d.split('/');
    for (let k = 1; k <= parts.length; k++) all.add(parts.slice(0, k).join('/'));
  }
  return [...all].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));
}
