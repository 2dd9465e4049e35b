// Push: upload new and changed files from a local folder to a folder on the box, with sync's
// guarantees mirrored. Each file goes to NAME.part on the box, its SHA-256 (computed while
// the local bytes are read, one read) is checked against the box's SHA-256 of the .part, and
// only then is it renamed into place with the local mtime, so the next push skips it (same
// size and mtime, as rsync judges). A .part left by a cut is resumed when the box's hash of
// it equals the hash of the same local prefix. A file on the box newer than the local one is
// never overwritten without `force`. Local names that are not safe on the box (control
// characters, backslashes, "..", our own .part names) and links are refused and listed.
import { promises as fsp } from 'node:fs';
import type { SFTPWrapper } from 'ssh2';
import { SyncError, toSyncError } from './errors';
import { HashBatcher, remoteHash } from './hash-batch';
import type { HashAnswer } from './remote-hash';
import { listRemote, RemoteFolderError } from './list';
import { hashLocalRange, sha256, type Sha256 } from './local-hash';
import { PART_SUFFIX, type SkipReason } from './names';
import { listLocalTree, type LocalFile } from './local-tree';

export { listLocalTree, type LocalFile, type LocalTree } from './local-tree';
import { closeRemote, mkdirRemote, openWrite, removeRemote, renameOver, setMtime, UploadError, uploadRange } from './push-sftp';
import { lstatRemote, sftpCode } from './sftp-util';
import type { SyncProgress, SyncRemote } from './types';
import { remotePathForSftp } from './engine';
import { PUSH_STREAM_MIN_FILES, renameUp, streamFirst, streamUp, type Streamed } from './push-stream';
import { boxCompression, SAMPLE_BYTES, worthCompressing } from './compress';
import { GZIP_MIN_FILE, pushGzipped } from './push-gzip';
import { passSignal } from '../util/deadline';
import { trimEndOf } from '../../core/boxLines';

/** `excluded`: left out by the caller (a file the secret scan flagged, Upload Without These Files). */
export type PushSkipReason = SkipReason | 'remote-newer' | 'local-changed' | 'remote-conflict' | 'local-link' | 'remote-unwritable' | 'excluded';

export interface PushOptions {
  localDir: string;
  remoteDir: string;
  /** Overwrite files on the box that are newer than the local ones. */
  force?: boolean;
  /** Small files at once (default 256; big files at most 4 at once). */
  concurrency?: number;
  inFlight?: number;
  stallMs?: number;
  signal?: AbortSignal;
  /** Compress compressible big files in flight through the box's gzip (default true). */
  compress?: boolean;
  /** One line per decision worth a log line (the box has no gzip, so nothing is compressed). */
  log?: (line: string) => void;
  /**
   * The local tree as listed before (the one the secret scan checked): pushed as it is, with
   * its skipped entries reported. Without it the pass lists `localDir` itself.
   */
  tree?: { files: readonly LocalFile[]; skipped: ReadonlyArray<{ name: string; reason: PushSkipReason }> };
}

export interface PushReport {
  files: number;
  /** Bytes sent this run (a resumed file counts only what was sent now). */
  bytes: number;
  pushed: string[];
  unchanged: number;
  skipped: Array<{ name: string; reason: PushSkipReason }>;
  seconds: number;
  interrupted: boolean;
  /**
   * Compression in flight: the box's gzip (probed once per connection) or none; big files
   * sent compressed, their original bytes and the compressed bytes that crossed the link.
   * (Small files in tar streams are always gzip -1 where the box has gzip.)
   */
  compression?: { tool: 'gzip' | 'none'; files: number; rawBytes: number; wireBytes: number };
}

export type PushProgress = Exclude<SyncProgress, { kind: 'skipped' }> | { kind: 'skipped'; name: string; reason: PushSkipReason };

const BIG = 4 * 1024 * 1024;

type Outcome = { kind: 'pushed'; bytes: number } | { kind: 'skipped'; reason: PushSkipReason } | { kind: 'interrupted' };

interface Ctx {
  remote: SyncRemote;
  sftp: SFTPWrapper;
  opts: PushOptions;
  root: string;
  hasher: HashBatcher;
  madeDirs: Set<string>;
  onProgress: (p: PushProgress) => void;
  /** The box has a working gzip and compression is on. */
  gzip: boolean;
  compressed: (raw: number, wire: number) => void;
}

const lost = (e: unknown, name: string) => new SyncError('connection-lost', `connection lost while pushing ${name}: ${(e as Error).message}`, { name });

/** Uploads one file to its .part on the box, hashing it as it is read. */
async function sendPart(c: Ctx, f: LocalFile, attempt: number): Promise<Sent | Outcome> {
  const { sftp, opts } = c;
  const target = `${c.root}/${f.rel}`;
  const part = target + PART_SUFFIX;
  const dir = target.slice(0, target.lastIndexOf('/'));
  try {
    await mkdirRemote(sftp, dir, c.madeDirs);
  } catch (e) {
    if (sftpCode(e) === undefined) throw lost(e, f.rel);
    return { kind: 'skipped', reason: 'remote-conflict' };
  }
  // A .part from an earlier cut: trusted only if the box's hash of it equals our prefix's.
  let from = 0;
  let hash: Sha256 = sha256();
  if (f.size > BIG && attempt === 1) {
    const ps = await lstatRemote(sftp, part);
    if (ps?.isFile() && ps.size > 0 && ps.size <= f.size) {
      const [box] = await Promise.all([remoteHash(c.remote, part, ps.size), hashLocalRange(f.path, hash, ps.size)]);
      if (typeof box.full === 'string' && box.full === (await hash.peek())) from = ps.size;
      else hash = sha256();
    }
  }
  c.onProgress({ kind: 'file-start', name: f.rel, size: f.size, from });
  let bytes = 0;
  let done = from;
  // Compressible: as much as pays goes through the box's gzip; the rest over SFTP below.
  if (c.gzip && f.size >= GZIP_MIN_FILE && from < f.size && (await sampleWorthIt(f))) {
    const g = await pushGzipped(c.remote, f.path, part, {
      from,
      size: f.size,
      hash,
      signal: opts.signal,
      onBytes: (n) => {
        done += n;
        c.onProgress({ kind: 'bytes', name: f.rel, done, size: f.size });
      },
    }).catch(() => ({ raw: 0, wire: 0, stopped: 'failed' as const }));
    if (g.stopped === 'aborted') return { kind: 'interrupted' };
    if (g.raw > 0) c.compressed(g.raw, g.wire);
    bytes += g.raw;
    from += g.raw;
    if (g.stopped === 'failed') c.opts.log?.(`push: ${f.rel}: the compressed upload stopped at ${from} bytes; the rest goes uncompressed over SFTP`);
  }
  if (from >= f.size) return finishSent(f, hash, bytes, part, target);
  let handle: Buffer;
  try {
    handle = await openWrite(sftp, part, from > 0);
  } catch (e) {
    if (sftpCode(e) === undefined) throw lost(e, f.rel);
    return { kind: 'skipped', reason: 'remote-unwritable' };
  }
  try {
    bytes += await uploadRange(sftp, handle, f.path, {
      from,
      size: f.size,
      hash,
      inFlight: opts.inFlight,
      stallMs: opts.stallMs,
      signal: opts.signal,
      onBytes: (n) => {
        done += n;
        c.onProgress({ kind: 'bytes', name: f.rel, done, size: f.size });
      },
    });
  } catch (e) {
    await closeRemote(sftp, handle).catch(() => undefined);
    if (e instanceof UploadError) {
      const k = e.failure.kind;
      if (k === 'aborted') return { kind: 'interrupted' };
      if (k === 'local-changed' || k === 'local-io') return { kind: 'skipped', reason: 'local-changed' };
      if (k === 'remote-io') return { kind: 'skipped', reason: 'remote-unwritable' };
    }
    throw lost(e, f.rel);
  }
  try {
    await closeRemote(sftp, handle);
  } catch (e) {
    throw lost(e, f.rel);
  }
  return finishSent(f, hash, bytes, part, target);
}

/** The local file must be what we hashed: same size and mtime as when the push began. */
async function finishSent(f: LocalFile, hash: Sha256, bytes: number, part: string, target: string): Promise<Sent | Outcome> {
  const now = await fsp.lstat(f.path).catch(() => undefined);
  if (!now || now.size !== f.size || Math.floor(now.mtimeMs / 1000) !== f.mtime) return { kind: 'skipped', reason: 'local-changed' };
  return { kind: 'sent', digest: await hash.digest(), bytes, part, target };
}

/** The first bytes of a local file say whether compressing it pays (its name first: weights, archives, media never). */
async function sampleWorthIt(f: LocalFile): Promise<boolean> {
  const fh = await fsp.open(f.path, 'r').catch(() => undefined);
  if (!fh) return false;
  try {
    const buf = Buffer.alloc(Math.min(SAMPLE_BYTES, f.size));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return worthCompressing(f.rel, buf.subarray(0, bytesRead));
  } catch {
    return false;
  } finally {
    await fh.close();
  }
}

interface Sent {
  kind: 'sent';
  digest: string;
  bytes: number;
  part: string;
  target: string;
}

/**
 * Publishes a sent .part once the box's hash of it equals ours (equal hashes mean equal
 * bytes, length included; a box without a hash tool gets the size checked instead). The
 * target is looked at again meanwhile (written since the plan, now newer than ours?) and the
 * .part gets the local mtime.
 */
async function publish(c: Ctx, f: LocalFile, s: Sent, box: HashAnswer, attempt: number): Promise<Outcome> {
  const { sftp, opts } = c;
  const { part, target } = s;
  const [cur, timed] = await Promise.all([
    lstatRemote(sftp, target),
    setMtime(sftp, part, f.mtime).then(
      () => true,
      (e: unknown) => {
        if (sftpCode(e) === undefined) throw lost(e, f.rel);
        return false;
      },
    ),
  ]);
  if (box.full === undefined || !timed) return { kind: 'skipped', reason: 'remote-unwritable' };
  const sizeOk = box.full !== null || (await lstatRemote(sftp, part))?.size === f.size;
  if ((box.full !== null && box.full !== s.digest) || !sizeOk) {
    await removeRemote(sftp, part);
    if (attempt === 1) return pushFile(c, f, 2);
    return { kind: 'skipped', reason: 'verify-failed' };
  }
  if (cur && !cur.isFile()) return { kind: 'skipped', reason: 'remote-conflict' };
  if (cur && !opts.force && cur.mtime > f.mtime) {
    await removeRemote(sftp, part);
    return { kind: 'skipped', reason: 'remote-newer' };
  }
  try {
    await renameOver(sftp, part, target);
  } catch (e) {
    if (sftpCode(e) === undefined) throw lost(e, f.rel);
    return { kind: 'skipped', reason: 'remote-unwritable' };
  }
  return { kind: 'pushed', bytes: s.bytes };
}

async function pushFile(c: Ctx, f: LocalFile, attempt = 1): Promise<Outcome> {
  const s = await sendPart(c, f, attempt);
  if (s.kind !== 'sent') return s;
  const box = f.size >= BIG ? await remoteHash(c.remote, s.part, f.size) : await c.hasher.full(s.part, f.size);
  return publish(c, f, s, box, attempt);
}

/** One push pass: walk the local folder, list the box's, upload what is new or changed. */
export async function pushOnce(remote: SyncRemote, options: PushOptions, onProgress: (p: PushProgress) => void = () => undefined): Promise<PushReport> {
  const started = performance.now();
  const report: PushReport = { files: 0, bytes: 0, pushed: [], unchanged: 0, skipped: [], seconds: 0, interrupted: false };
  const tree = options.tree ?? (await listLocalTree(options.localDir));
  report.skipped.push(...tree.skipped);
  // Taken once the pass is sure to reach the `finally` that lets it go.
  const pass = passSignal(options.signal);
  const opts: PushOptions = { ...options, signal: pass.signal };
  const hasher = new HashBatcher(remote);
  try {
    const localFiles = tree.files;
    const remoteDir = remotePathForSftp(opts.remoteDir);
    const smallLocal = localFiles.filter((f) => f.size < BIG);
    // Asked at once, side by side: the SFTP session and the listing, whether the box has a
    // working gzip (once per connection), and the first small files in one stream that also
    // makes the folder and says which names exist (all of it one round trip before bytes move).
    const compP = boxCompression(remote);
    const firstP = streamFirst(remote, trimEndOf(remoteDir, '/') || '/', smallLocal, opts.signal);
    const sftp = await remote.sftp();
    const madeDirs = new Set<string>();
    const list = () => listRemote(sftp, remoteDir, { platform: 'linux' });
    const missing = (e: unknown, orUnreadable: boolean) => e instanceof RemoteFolderError && (e.code === 'remote-missing' || (orUnreadable && e.code === 'remote-unreadable'));
    let listing;
    try {
      listing = await list();
    } catch (e) {
      // Missing, or made by the first stream while it was being listed (then unreadable for a
      // moment): listed again once that stream is done; still missing, SFTP makes it.
      if (!missing(e, true)) throw e;
      await firstP;
      try {
        listing = await list();
      } catch (e2) {
        if (!missing(e2, false)) throw e2;
        await mkdirRemote(sftp, trimEndOf(remoteDir, '/') || '/', madeDirs);
        listing = await list();
      }
    }
    const first = await firstP;
    const comp = await compP;
    const compression = { tool: comp.gzip ? ('gzip' as const) : ('none' as const), files: 0, rawBytes: 0, wireBytes: 0 };
    report.compression = compression;
    if (!comp.gzip) opts.log?.('push: the box has no working gzip; files go uncompressed (plain SFTP, no tar streams)');
    const root = listing.root;
    madeDirs.add(root);
    const onBox = new Map(listing.files.map((f) => [f.rel, f]));
    // Sent by the first stream: nothing was at their path when the box unpacked them.
    const firstSent = new Map<LocalFile, Streamed>();
    for (const [f, u] of first.sent) {
      const target = `${root}/${f.rel}`;
      firstSent.set(f, { ...u, target, part: target + PART_SUFFIX });
    }
    const todo: LocalFile[] = [];
    for (const f of localFiles) {
      if (firstSent.has(f)) continue;
      const r = onBox.get(f.rel);
      if (r && r.size === f.size && r.mtime === f.mtime) report.unchanged++;
      else if (r && r.mtime > f.mtime && !opts.force) report.skipped.push({ name: f.rel, reason: 'remote-newer' });
      else todo.push(f);
    }
    onProgress({ kind: 'listed', files: localFiles.length, toPull: todo.length + firstSent.size });
    const c: Ctx = {
      remote,
      sftp,
      opts,
      root,
      hasher,
      madeDirs,
      onProgress,
      gzip: comp.gzip && opts.compress !== false && remote.stream !== undefined,
      compressed: (raw, wire) => {
        compression.files++;
        compression.rawBytes += raw;
        compression.wireBytes += wire;
      },
    };
    let fatal: unknown;
    const record = (f: LocalFile, out: Outcome) => {
      if (out.kind === 'pushed') {
        report.files++;
        report.bytes += out.bytes;
        report.pushed.push(f.rel);
        onProgress({ kind: 'file-done', name: f.rel, size: f.size, bytes: out.bytes, verifiedOnly: false });
      } else if (out.kind === 'skipped') {
        report.skipped.push({ name: f.rel, reason: out.reason });
        onProgress({ kind: 'skipped', name: f.rel, reason: out.reason });
      } else report.interrupted = true;
    };
    /** `n` workers over `items`; stops starting new ones after a fatal error or an interrupt. */
    const pool = async <T>(items: T[], n: number, fn: (item: T) => Promise<void>) => {
      let next = 0;
      const worker = async () => {
        for (let it = items[next++]; it !== undefined; it = items[next++]) {
          if (fatal !== undefined || opts.signal?.aborted) {
            if (opts.signal?.aborted) report.interrupted = true;
            return;
          }
          try {
            await fn(it);
          } catch (e) {
            fatal ??= e;
            return;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
    };
    // Small files are latency-bound: 256 at once (a thousand requests in flight).
    const width = Math.max(1, opts.concurrency ?? 256);
    const big = todo.filter((f) => f.size >= BIG);
    const small = todo.filter((f) => f.size < BIG);
    // Big files: a few at once, each hashed on the box as soon as it is up.
    const bigDone = pool(big, Math.min(4, width), async (f) => record(f, await pushFile(c, f)));
    // Small files in three waves, so the box hashes them in a few big batches instead of one
    // command per handful: every .part goes up (many at once), then all are hashed, then
    // each verified one is renamed into place.
    const sent = new Map<LocalFile, Sent>();
    const overSftp = (files: LocalFile[]) =>
      pool(files, width, async (f) => {
        const s = await sendPart(c, f, 1);
        if (s.kind === 'sent') sent.set(f, s);
        else record(f, s);
      });
    // New small files (none at their path on the box) go up in tar streams, the rest over
    // SFTP meanwhile; what a stream did not deliver follows over SFTP.
    const fresh = small.filter((f) => !onBox.has(f.rel));
    const byStream = fresh.length >= PUSH_STREAM_MIN_FILES && remote.stream ? new Set(fresh) : new Set<LocalFile>();
    const [up] = await Promise.all([comp.gzip && !first.failed ? streamUp(remote, root, [...byStream], opts.signal) : { sent: new Map<LocalFile, Streamed>(), left: [...byStream] }, overSftp(small.filter((f) => !byStream.has(f)))]);
    for (const [f, u] of firstSent) up.sent.set(f, u);
    await overSftp(up.left);
    const answers = new Map<LocalFile, Promise<HashAnswer>>();
    for (const [f, s] of sent) answers.set(f, hasher.full(s.part, f.size));
    // Streamed files came with the box's hashes: the verified ones are renamed in one burst
    // of SFTP renames; any other goes through the usual publish step.
    for (const f of up.sent.keys()) {
      onProgress({ kind: 'file-start', name: f.rel, size: f.size, from: 0 });
      onProgress({ kind: 'bytes', name: f.rel, done: f.size, size: f.size });
    }
    const verified = [...up.sent].filter(([, u]) => typeof u.box.full === 'string' && u.box.full === u.digest).map(([f, u]) => ({ rel: f.rel, part: u.part, target: u.target }));
    const renamed = await renameUp(sftp, verified);
    for (const [f, u] of up.sent) {
      if (renamed.has(f.rel)) record(f, { kind: 'pushed', bytes: f.size });
      else {
        sent.set(f, { kind: 'sent', digest: u.digest, bytes: f.size, part: u.part, target: u.target });
        answers.set(f, Promise.resolve(u.box));
      }
    }
    await pool([...sent.keys()], width, async (f) => record(f, await publish(c, f, sent.get(f)!, await answers.get(f)!, 1)));
    await bigDone;
    if (fatal !== undefined) throw fatal;
    report.pushed.sort();
    report.skipped.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return report;
  } catch (e) {
    throw toSyncError(e);
  } finally {
    pass.done();
    hasher.cancel();
    report.seconds = Math.round(performance.now() - started) / 1000;
  }
}
