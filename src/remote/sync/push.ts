// Push: upload new and changed files from a local folder to a folder on the box, with sync's
// guarantees mirrored. What to send, skip or leave, and by which transport, is decided by the
// pure planner (push-plan.ts); this module gathers the facts it needs (the box's listing, its
// gzip, what the first stream delivered) and carries the plan out. Each file goes to NAME.part
// on the box, its SHA-256 (computed while the local bytes are read, one read) is checked
// against the box's SHA-256 of the .part, and only then is it renamed into place with the
// local mtime, so the next push skips it (same size and mtime, as rsync judges); see
// push-file.ts. Local names that are not safe on the box (control characters, backslashes,
// "..", our own .part names) and links are refused and listed.
import type { SFTPWrapper } from 'ssh2';
import { toSyncError } from './errors';
import { HashBatcher } from './hash-batch';
import type { HashAnswer } from './remote-hash';
import { listRemote, RemoteFolderError, type RemoteListing } from './list';
import { PART_SUFFIX } from './names';
import { listLocalTree, type LocalFile } from './local-tree';
import { mkdirRemote } from './push-sftp';
import { realpath, sftpRequest } from './sftp-util';
import type { SyncRemote } from './types';
import { remotePathForSftp } from './engine';
import { renameUp, streamFirst, streamUp, type FirstStream, type Streamed } from './push-stream';
import { boxCompression } from './compress';
import { segmentCodec } from './segment-codec';
import { firstStreamCandidates, planPush, type PushPlan, type PushSend, type PushSkipReason } from './push-plan';
import { publish, pushFile, sendPart, type FileCtx, type Outcome, type PushProgress, type Sent } from './push-file';
import { passSignal, withinMs } from '../util/deadline';
import { forEachLimited } from '../util/limit';
import { trimEndOf } from '../../core/boxLines';

export { listLocalTree, type LocalFile, type LocalTree } from './local-tree';
export type { PushSkipReason } from './push-plan';
export type { PushProgress } from './push-file';

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
   * Compression in flight: the box's zstd (where this side has one too) or gzip (probed once per connection) or none; big files
   * sent compressed, their original bytes and the compressed bytes that crossed the link.
   * (Small files in tar streams are always gzip -1 where the box has gzip.)
   */
  compression?: { tool: 'zstd' | 'gzip' | 'none'; files: number; rawBytes: number; wireBytes: number };
}

/** How long push waits for the first stream's listing of a folder already there before SFTP lists it. */
const FIRST_LISTING_WAIT_MS = 10_000;

/** The box's folder as the planner needs it; `made`: this pass made it. */
type Listed = Pick<RemoteListing, 'root' | 'files'> & { made?: boolean };

/**
 * Lists the box's folder: from the first stream's answer where it found the folder there and
 * listed it whole, else over SFTP. Missing, or made by the first stream while it was being listed
 * (then unreadable for a moment): listed again once that stream is done; still missing, SFTP
 * makes it. Missing where no first stream ran (nothing else made it): made and its real path
 * asked in one round trip (`made`: the folder is this pass's, so it holds no .part).
 */
async function listOrMake(sftp: SFTPWrapper, remoteDir: string, firstDone: Promise<Pick<FirstStream<LocalFile>, 'ran' | 'failed' | 'listing'>>, madeDirs: Set<string>, signal: AbortSignal | undefined): Promise<Listed> {
  // The stream lists the folder it found there right after saying so; a box that has not
  // answered whole within this long is listed by SFTP.
  const byCommand = withinMs(
    firstDone.then((f) => f.listing),
    FIRST_LISTING_WAIT_MS,
    signal,
  );
  const list = () => listRemote(sftp, remoteDir, { platform: 'linux' });
  const missing = (e: unknown, orUnreadable: boolean) => e instanceof RemoteFolderError && (e.code === 'remote-missing' || (orUnreadable && e.code === 'remote-unreadable'));
  const dir = trimEndOf(remoteDir, '/') || '/';
  try {
    // Only this first listing may be the stream's: any later one is after a change.
    return await listRemote(sftp, remoteDir, { platform: 'linux' }, { byCommand });
  } catch (e) {
    if (!missing(e, true)) throw e;
    const first = await firstDone;
    if (!first.ran && !first.failed) {
      const [mk, root] = await Promise.allSettled([sftpRequest<void>(sftp, 'mkdir', (cb) => sftp.mkdir(dir, { mode: 0o755 }, (er) => cb(er, undefined))), realpath(sftp, dir)]);
      if (mk.status === 'fulfilled' && root.status === 'fulfilled') {
        madeDirs.add(dir);
        return { root: root.value, files: [], made: true };
      }
    }
    try {
      return await list();
    } catch (e2) {
      if (!missing(e2, false)) throw e2;
      await mkdirRemote(sftp, dir, madeDirs);
      return { ...(await list()), made: true };
    }
  }
}

/** Records outcomes in the report and runs bounded worker pools that stop starting work after a fatal error or an interrupt. */
function outcomes(report: PushReport, onProgress: (p: PushProgress) => void, signal: AbortSignal | undefined) {
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
  const pool = async <T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>) => {
    const stop = () => {
      if (signal?.aborted) report.interrupted = true;
      return fatal !== undefined || signal?.aborted === true;
    };
    await forEachLimited(items, n, (it) => fn(it).catch((e: unknown) => void (fatal ??= e)), stop);
  };
  return { record, pool, rethrow: () => { if (fatal !== undefined) throw fatal; } };
}

/**
 * Carries a plan out. Big files: a few at once, each hashed on the box as soon as it is up.
 * Small files in three waves, so the box hashes them in a few big batches instead of one
 * command per handful: every .part goes up (tar streams for the new ones, SFTP meanwhile for
 * the rest, then SFTP for what a stream did not deliver), then all are hashed, then each
 * verified one is renamed into place.
 */
async function carryOut(c: FileCtx, plan: PushPlan<LocalFile>, firstSent: ReadonlyMap<LocalFile, Streamed>, run: ReturnType<typeof outcomes>, width: number): Promise<void> {
  const { record, pool } = run;
  const planned = new Map<LocalFile, PushSend<LocalFile>>([...plan.firstStream, ...plan.stream, ...plan.sftp].map((s) => [s.file, s]));
  const bigDone = pool(plan.big, Math.min(4, width), async (s) => record(s.file, await pushFile(c, s)));
  const sent = new Map<PushSend<LocalFile>, Sent>();
  const overSftp = (files: ReadonlyArray<PushSend<LocalFile>>) =>
    pool(files, width, async (s) => {
      const r = await sendPart(c, s, 1);
      if (r.kind === 'sent') sent.set(s, r);
      else record(s.file, r);
    });
  const [up] = await Promise.all([streamUp(c.remote, c.root, plan.streamBatches.map((b) => b.map((s) => s.file)), c.opts.signal), overSftp(plan.sftp)]);
  for (const [f, u] of firstSent) up.sent.set(f, u);
  await overSftp(up.left.map((f) => planned.get(f)!));
  const answers = new Map<PushSend<LocalFile>, Promise<HashAnswer>>();
  for (const [s, r] of sent) answers.set(s, r.box ? Promise.resolve(r.box) : c.hasher.full(r.part, s.file.size));
  // Streamed files came with the box's hashes: the verified ones are renamed in one burst
  // of SFTP renames; any other goes through the usual publish step.
  for (const f of up.sent.keys()) {
    c.onProgress({ kind: 'file-start', name: f.rel, size: f.size, from: 0 });
    c.onProgress({ kind: 'bytes', name: f.rel, done: f.size, size: f.size });
  }
  const verified = [...up.sent].filter(([, u]) => typeof u.box.full === 'string' && u.box.full === u.digest).map(([f, u]) => ({ rel: f.rel, part: u.part, target: u.target }));
  const renamed = await renameUp(c.sftp, verified);
  for (const [f, u] of up.sent) {
    if (renamed.has(f.rel)) record(f, { kind: 'pushed', bytes: f.size });
    else {
      const s = planned.get(f)!;
      sent.set(s, { kind: 'sent', digest: u.digest, bytes: f.size, part: u.part, target: u.target });
      answers.set(s, Promise.resolve(u.box));
    }
  }
  await pool([...sent.keys()], width, async (s) => record(s.file, await publish(c, s, sent.get(s)!, answers.get(s)!, 1)));
  await bigDone;
}

/** The first stream's deliveries, their paths under the box's real folder. */
function underRoot(first: FirstStream<LocalFile>, root: string): Map<LocalFile, Streamed> {
  const out = new Map<LocalFile, Streamed>();
  for (const [f, u] of first.sent) {
    const target = `${root}/${f.rel}`;
    out.set(f, { ...u, target, part: target + PART_SUFFIX });
  }
  return out;
}

/** One push pass: walk the local folder, list the box's, plan, upload what is new or changed. */
export async function pushOnce(remote: SyncRemote, options: PushOptions, onProgress: (p: PushProgress) => void = () => undefined): Promise<PushReport> {
  const started = performance.now();
  const report: PushReport = { files: 0, bytes: 0, pushed: [], unchanged: 0, skipped: [], seconds: 0, interrupted: false };
  const tree = options.tree ?? (await listLocalTree(options.localDir));
  // Taken once the pass is sure to reach the `finally` that lets it go.
  const pass = passSignal(options.signal);
  const opts: PushOptions = { ...options, signal: pass.signal };
  const hasher = new HashBatcher(remote);
  try {
    const remoteDir = remotePathForSftp(opts.remoteDir);
    // Asked at once, side by side: the SFTP session and the listing, whether the box has a
    // working gzip (once per connection), and the first small files in one stream that also
    // makes the folder and says which names exist (all of it one round trip before bytes move).
    // A folder the first stream made holds only what it put there: not listed, only its real
    // path asked (on a 40 ms link a listing of a tree is several round trips).
    const compP = boxCompression(remote);
    let folder: (state: 'new' | 'old' | undefined, realRoot?: string) => void = () => undefined;
    const folderP = new Promise<{ state: 'new' | 'old' | undefined; realRoot?: string | undefined }>((resolve) => (folder = (state, realRoot) => resolve({ state, realRoot })));
    const firstP = streamFirst(remote, trimEndOf(remoteDir, '/') || '/', firstStreamCandidates(tree), opts.signal, folder);
    void firstP.finally(() => folder(undefined)).catch(() => undefined);
    const sftp = await remote.sftp();
    const madeDirs = new Set<string>();
    const said = await folderP;
    const made = said.state === 'new' ? (said.realRoot ?? (await realpath(sftp, remoteDir).catch(() => undefined))) : undefined;
    const listing: Listed = made !== undefined ? { root: made, files: [] } : await listOrMake(sftp, remoteDir, firstP, madeDirs, opts.signal);
    const first = await firstP;
    const comp = await compP;
    const codec = segmentCodec(comp);
    const compression = { tool: codec?.tool ?? ('none' as const), files: 0, rawBytes: 0, wireBytes: 0 };
    report.compression = compression;
    if (!comp.gzip) opts.log?.('push: the box has no working gzip; files go uncompressed (plain SFTP, no tar streams)');
    const root = listing.root;
    madeDirs.add(root);
    const facts = { firstSent: new Set([...first.sent.keys()].map((f) => f.rel)), stream: remote.stream !== undefined && comp.gzip && !first.failed, gzip: codec !== undefined && opts.compress !== false && remote.stream !== undefined };
    const plan = planPush(tree, listing.files, facts, { force: opts.force });
    report.skipped.push(...plan.skipped);
    report.unchanged = plan.unchanged.length;
    onProgress({ kind: 'listed', files: tree.files.length, toPull: plan.firstStream.length + plan.stream.length + plan.sftp.length + plan.big.length });
    const compressed = (raw: number, wire: number) => {
      compression.files++;
      compression.rawBytes += raw;
      compression.wireBytes += wire;
    };
    const c: FileCtx = { remote, sftp, opts, root, hasher, madeDirs, onProgress, compressed, newRoot: made !== undefined || listing.made === true };
    const run = outcomes(report, onProgress, opts.signal);
    // Small files are latency-bound: 256 at once (a thousand requests in flight).
    await carryOut(c, plan, underRoot(first, root), run, Math.max(1, opts.concurrency ?? 256));
    run.rethrow();
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
