// Checkpoint sync: pull new and changed files from a folder on the rented box into a local
// folder, each one verified (size and SHA-256 against the box) before it appears under its
// real name. Nothing here prints: progress and results are codes and numbers for the CLI
// and the extension to put into words. The parts: planner.ts (pure: what to do),
// local-state.ts (the local facts it needs), pull-file.ts (one file), hash-batch.ts (hashes
// on the box), delete.ts (--delete) and watch.ts (the loop).
import { promises as fsp } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { hasGitComponent } from '../../core/gitNames';
import { isInside } from './safe-paths';
import { RemoteError } from '../errors';
import { Semaphore } from '../util/semaphore';
import { sleep } from '../util/sleep';
import { passSignal, withinMs } from '../util/deadline';
import { diskFull, isDiskFull, SyncError, toSyncError } from './errors';
import { HashBatcher } from './hash-batch';
import { listRemote, MAX_LIST_ENTRIES, type RemoteFile, type RemoteListing } from './list';
import { execListCommand, parseExecListing } from './list-exec';
import { applyDeletion } from './delete';
import { gatherLocalState } from './local-state';
import { PART_SUFFIX, type NameRules } from './names';
import { changedFiles, plan, type Plan } from './planner';
import { localPathOf, pullFile, type Ctx, type Outcome } from './pull-file';
import { SMALL_FILE } from './transfer';
import { nearBox, nearBoxByProbe, STREAM_MIN_FILES, streamSmall } from './stream-small';
import { parseRemoteNow, REMOTE_NOW } from './remote-hash';
import { readState, writeState } from './state';
import type { SyncOptions, SyncProgress, SyncRemote, SyncReport } from './types';
import { forEachLimited } from '../util/limit';

/** Milliseconds on a monotonic clock (the global `performance` loads perf_hooks: ~2 ms of a CLI start). */
const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

export { SyncError, type SyncErrorCode } from './errors';
export type { SyncOptions, SyncProgress, SyncRemote, SyncReport } from './types';

/** Files at least this big take one of the few big-transfer slots. */
const BIG_FILE = 4 * 1024 * 1024;

async function ensureLocalRoot(dir: string, within?: string): Promise<string> {
  const root = resolve(dir);
  // Checked before anything is made: mkdir would follow a link already there.
  const real = await realOfNearest(root);
  if (hasGitComponent(root) || hasGitComponent(real)) throw new SyncError('local-in-git', `local folder ${dir} is a .git folder or inside one: refused (files from the box there could run commands through git)`);
  if (within !== undefined) {
    const fence = await realOfNearest(resolve(within));
    if (!isInside(fence, real)) throw new SyncError('local-outside', `local folder ${dir} leads to ${real}, outside ${within} (a link out of the project): refused`);
  }
  try {
    await fsp.mkdir(root, { recursive: true });
  } catch (err) {
    if (isDiskFull(err)) throw diskFull(dir);
    throw new SyncError('local-not-directory', `local folder ${dir} cannot be created: ${(err as Error).message}`);
  }
  const st = await fsp.stat(root);
  if (!st.isDirectory()) throw new SyncError('local-not-directory', `local path ${dir} is not a folder`);
  // The same checks on what was made (a link swapped in meanwhile).
  const made = await fsp.realpath(root);
  if (hasGitComponent(made) || (within !== undefined && !isInside(await realOfNearest(resolve(within)), made))) throw new SyncError('local-outside', `local folder ${dir} leads to ${made}: refused`);
  return root;
}

/** The real path of `path`, or of its nearest existing folder above with the rest appended. */
async function realOfNearest(path: string): Promise<string> {
  const rest: string[] = [];
  let p = path;
  for (;;) {
    try {
      return join(await fsp.realpath(p), ...rest.reverse());
    } catch {
      const up = dirname(p);
      if (up === p) return path;
      rest.push(basename(p));
      p = up;
    }
  }
}

/** SFTP resolves relative paths from the login folder but knows no `~`: "~/x" means "x". */
export function remotePathForSftp(dir: string): string {
  if (dir === '~' || dir === '~/') return '.';
  if (dir.startsWith('~/')) return dir.slice(2) || '.';
  return dir;
}

/** The least a listing command that has not answered when SFTP is ready is waited for. */
const LIST_COMMAND_GRACE_MS = 50;

/** The listing command, its channel asked for now (a folder name no shell word can hold: rejected). */
function startListCommand(remote: SyncRemote, remoteDir: string, signal: AbortSignal): ReturnType<SyncRemote['exec']> {
  try {
    return remote.exec(execListCommand(remoteDir), { login: false, timeoutMs: 60_000, signal });
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * SFTP again once a session of ours ended: sshd frees the session a moment after its close
 * reaches us, so a refusal for the same limit is tried again, a few times over about 1.5 s.
 */
async function sftpOnceFreed(remote: SyncRemote, signal: AbortSignal | undefined): ReturnType<SyncRemote['sftp']> {
  for (let wait = 50; ; wait *= 2) {
    try {
      return await remote.sftp();
    } catch (e) {
      if (!(e instanceof RemoteError && e.code === 'session-limit') || wait > 800 || signal?.aborted) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** The box's clock, asked once per pass and only when something changed (or known from the listing). */
interface BoxClock {
  now(): Promise<number | undefined>;
  /** What the listing command said, unless the clock was asked already. */
  know(now: number): void;
  set(now: Promise<number | undefined>): void;
}

function boxClock(remote: SyncRemote): BoxClock {
  let clock: Promise<number | undefined> | undefined;
  return {
    now: () =>
      (clock ??= remote.exec(REMOTE_NOW, { login: false, timeoutMs: 30_000 }).then(
        (r) => parseRemoteNow(r.stdout),
        () => undefined,
      )),
    know: (now) => {
      clock ??= Promise.resolve(now);
    },
    set: (now) => {
      clock = now;
    },
  };
}

function emptyReport(): SyncReport {
  return { files: 0, bytes: 0, skipped: [], seconds: 0, verified: 0, unchanged: 0, deleted: [], pulled: [], interrupted: false, byIdentity: 0, kept: [], keptEarlier: 0, replaced: [] };
}

/** What the state file holds, to tell whether the pass changed it. */
const stateSnapshot = (state: Ctx['state']) => JSON.stringify([state.files, state.savedBeside ?? {}]);

/** The SFTP session and the folder's listing (by the box's command if it answers in time, else by SFTP). */
async function listWhileSftpStarts(remote: SyncRemote, remoteDir: string, rules: NameRules, signal: AbortSignal | undefined): Promise<{ sftp: Awaited<ReturnType<SyncRemote['sftp']>>; listing: RemoteListing }> {
  // The folder is listed by one command on the box, started before the SFTP session (whose
  // start takes four round trips): its answer, with the box's clock for the settle check, is
  // usually in by the time SFTP is ready. It gets as long again as SFTP took; later, or not
  // whole, the listing is SFTP's.
  const t0 = monotonicMs();
  const listCommand = new AbortController();
  const byCommand = startListCommand(remote, remoteDir, listCommand.signal).then(
    (r) => parseExecListing(r, MAX_LIST_ENTRIES),
    () => undefined,
  );
  const sftp = await remote.sftp().catch(async (e: unknown) => {
    // A box that allows no more sessions than the command's and what else is open (its
    // MaxSessions): SFTP starts once the command is done.
    if (e instanceof RemoteError && e.code === 'session-limit') {
      await byCommand;
      return sftpOnceFreed(remote, signal);
    }
    listCommand.abort();
    throw e;
  });
  const grace = Math.max(LIST_COMMAND_GRACE_MS, monotonicMs() - t0);
  // Not waited for any longer: the command is stopped (its channel closed), its answer unused.
  const listing = await listRemote(sftp, remoteDir, rules, { byCommand: withinMs(byCommand, grace, signal, () => listCommand.abort()) });
  return { sftp, listing };
}

/** The pass's context: the session, the state read from the local folder, the tallies' hooks. */
async function passContext(remote: SyncRemote, sftp: Ctx['sftp'], opts: SyncOptions, localRoot: string, listing: RemoteListing, report: SyncReport, onProgress: (p: SyncProgress) => void): Promise<Ctx> {
  const source = `${opts.source ?? 'remote'}:${listing.root}`;
  return {
    remote,
    sftp,
    opts,
    compressed: (raw, wire) => {
      const c = (report.compressed ??= { files: 0, rawBytes: 0, wireBytes: 0 });
      c.files++;
      c.rawBytes += raw;
      c.wireBytes += wire;
    },
    localRoot,
    state: await readState(localRoot, source),
    onProgress,
    hasher: new HashBatcher(remote),
    bigSlots: new Semaphore(Math.max(1, opts.concurrency ?? 4)),
    prefetched: new Map(),
    madeDirs: new Map(),
    near: opts.streamGzip !== undefined ? !opts.streamGzip : listing.replyMs !== undefined ? nearBox(listing.replyMs) : nearBoxByProbe(sftp, listing.root),
  };
}

/** Gather the local facts, ask the box's clock only if something changed, plan, adopt. */
async function planAndAdopt(c: Ctx, listing: RemoteListing, settleSeconds: number, clock: BoxClock): Promise<Plan> {
  const opts = c.opts;
  const local = await gatherLocalState(c.localRoot, listing, c.state.files, opts.delete === true);
  const now = settleSeconds > 0 && changedFiles(listing, local).length ? await clock.now() : undefined;
  const p = plan(listing, { ...local, savedBeside: c.state.savedBeside ?? {} }, now, { settleSeconds, keepLast: opts.keepLast, delete: opts.delete, force: opts.force });
  Object.assign(c.state.files, p.adopt);
  for (const rel of Object.keys(p.adopt)) if (c.state.savedBeside) delete c.state.savedBeside[rel];
  c.localStats = local.stats;
  c.listedNames = new Set(listing.files.map((f) => f.rel.toLowerCase()));
  // A file gone from a fully listed box needs no record of a version saved beside it.
  const listed = new Set(listing.files.map((f) => f.rel));
  if (c.state.savedBeside && listing.unlisted.length === 0) for (const rel of Object.keys(c.state.savedBeside)) if (!listed.has(rel)) delete c.state.savedBeside[rel];
  return p;
}

/** Waits out the files still being written, then lists again; the box's clock moves on by the wait. */
async function waitToSettle(p: Plan, c: Ctx, remoteDir: string, rules: NameRules, clock: BoxClock): Promise<RemoteListing> {
  const waitFor = p.skipped.filter((s) => s.reason === 'still-being-written').length;
  c.onProgress({ kind: 'waiting-to-settle', seconds: p.settleWait, files: waitFor });
  const t0 = monotonicMs();
  await sleep(p.settleWait * 1000 + 1000, c.opts.signal);
  const waited = Math.round((monotonicMs() - t0) / 1000);
  const listing = await listRemote(c.sftp, remoteDir, rules);
  const before = await clock.now();
  clock.set(Promise.resolve(before === undefined ? undefined : before + waited));
  return listing;
}

type RecordOutcome = (f: RemoteFile, outcome: Outcome) => void;

/** One file's outcome into the report and the progress. */
function tally(report: SyncReport, onProgress: (p: SyncProgress) => void, f: RemoteFile, outcome: Outcome): void {
  if (outcome.kind === 'pulled') {
    report.files++;
    report.bytes += outcome.bytes;
    if (outcome.byIdentity) report.byIdentity++;
    report.pulled.push(f.rel);
    if (outcome.previous) report.replaced.push({ name: f.rel, previous: outcome.previous });
    onProgress({ kind: 'file-done', name: f.rel, size: f.size, bytes: outcome.bytes, verifiedOnly: false });
  } else if (outcome.kind === 'verified') {
    report.verified++;
    onProgress({ kind: 'file-done', name: f.rel, size: f.size, bytes: 0, verifiedOnly: true });
  } else if (outcome.kind === 'kept') {
    report.bytes += outcome.bytes;
    report.kept.push({ name: f.rel, boxCopy: outcome.boxCopy });
    onProgress({ kind: 'file-done', name: f.rel, size: f.size, bytes: outcome.bytes, verifiedOnly: false, keptAs: outcome.boxCopy });
  } else if (outcome.kind === 'saved-earlier') {
    report.keptEarlier++;
    onProgress({ kind: 'file-done', name: f.rel, size: f.size, bytes: 0, verifiedOnly: true });
  } else if (outcome.kind === 'skipped') {
    report.skipped.push({ name: f.rel, reason: outcome.reason });
    onProgress({ kind: 'skipped', name: f.rel, reason: outcome.reason });
  } else report.interrupted = true;
}

/** Records each outcome and saves the state now and then; `saving()` is the write under way, if any. */
function outcomeRecorder(c: Ctx, report: SyncReport): { record: RecordOutcome; saving: () => Promise<void> | undefined } {
  let lastSave = monotonicMs();
  let saving: Promise<void> | undefined;
  const record: RecordOutcome = (f, outcome) => {
    tally(report, c.onProgress, f, outcome);
    // The state now and then on a long pass (one write at a time), so a crash loses little.
    if (monotonicMs() - lastSave > 10_000 && !saving) {
      lastSave = monotonicMs();
      saving = writeState(c.localRoot, c.state)
        .catch(() => undefined)
        .finally(() => (saving = undefined));
    }
  };
  return { record, saving: () => saving };
}

/** A few files at a time; stop starting new ones after a fatal error or an interrupt. */
async function drain(c: Ctx, queue: readonly RemoteFile[], record: RecordOutcome, report: SyncReport): Promise<void> {
  const opts = c.opts;
  // Small files are latency-bound (two round trips each): 256 at once, so the SFTP
  // session keeps about a thousand requests in flight (at 40 ms RTT, 64 at once left
  // 1000 files at ~3× rsync's time). Big ones are bandwidth-bound: `concurrency` at once,
  // each with its own pipeline of reads.
  const workers = Math.max(1, opts.concurrency ?? 4) * 64;
  const { started } = await forEachLimited(
    queue,
    workers,
    async (f) => {
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
      record(f, outcome);
    },
    () => c.fatal !== undefined || opts.signal?.aborted === true,
  );
  if (opts.signal?.aborted && started < queue.length) report.interrupted = true;
}

/** Pulls the plan's files: new small ones in tar streams, the rest (and what the streams left) one by one. */
async function pullPlanned(c: Ctx, toPull: readonly RemoteFile[], record: RecordOutcome, report: SyncReport): Promise<void> {
  // New small files (nothing at their local path) come down in tar streams alongside the
  // others; what the streams did not deliver follows file by file.
  const streamable = toPull.filter((f) => f.size <= SMALL_FILE && !c.localStats?.has(f.rel));
  const byStream = new Set(streamable.length >= STREAM_MIN_FILES && c.remote.stream ? streamable : []);
  // The box starts hashing every other small file now, in a few big batches, while the
  // transfers run: a small file's answer is there by the time its bytes are. A stream's
  // files are hashed by the stream's own command (stream-small.ts).
  for (const f of toPull) if (f.size <= SMALL_FILE && !byStream.has(f)) c.prefetched!.set(f.rel, c.hasher.full(f.abs, f.size));
  await Promise.all([drain(c, toPull.filter((f) => !byStream.has(f)), record, report), byStream.size ? streamSmall(c, [...byStream], record).then((rest) => drain(c, rest, record, report)) : undefined]);
}

/** After the transfers: a fatal error thrown (a full disk's litter cleared first), --delete applied, the report sorted. */
async function finishPass(c: Ctx, p: Plan, report: SyncReport): Promise<void> {
  const opts = c.opts;
  if (c.fatal?.code === 'local-disk-full') {
    // No litter: the empty .part files the full disk left (a non-empty one is kept to resume from).
    await removeEmptyParts(c.localRoot, p.toPull.map((f) => f.rel));
    const d = c.fatal.detail;
    // Exactly what this pass published before the disk filled.
    throw diskFull(d.name ?? 'a file', d.needBytes, d.freeBytes, [...report.pulled].sort());
  }
  if (c.fatal) throw c.fatal;
  if (opts.delete && !report.interrupted) await applyDeletion({ localRoot: c.localRoot, remoteDir: opts.remoteDir, state: c.state, onProgress: c.onProgress }, p.deletion, report);
  report.skipped.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  report.pulled.sort();
  report.kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  report.replaced.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One pass: list, compare, pull what is new or changed, optionally delete, save state. */
export async function syncOnce(remote: SyncRemote, options: SyncOptions, onProgress: (p: SyncProgress) => void = () => undefined): Promise<SyncReport> {
  const started = monotonicMs();
  const rules: NameRules = { platform: options.platform ?? process.platform };
  const report = emptyReport();
  const localRoot = await ensureLocalRoot(options.localDir, options.within);
  // Taken once the pass is sure to reach the `finally` that lets it go.
  const pass = passSignal(options.signal);
  const opts: SyncOptions = { ...options, signal: pass.signal };
  const settleSeconds = Math.max(0, opts.settleSeconds ?? 5);
  let ctx: Ctx | undefined;
  let stateAsRead = '';
  const clock = boxClock(remote);
  try {
    const remoteDir = remotePathForSftp(opts.remoteDir);
    const first = await listWhileSftpStarts(remote, remoteDir, rules, pass.signal);
    let listing = first.listing;
    if (listing.now !== undefined) clock.know(listing.now);
    ctx = await passContext(remote, first.sftp, opts, localRoot, listing, report, onProgress);
    stateAsRead = stateSnapshot(ctx.state);
    const c = ctx;
    let p = await planAndAdopt(c, listing, settleSeconds, clock);
    if (p.settleWait > 0 && (opts.waitForSettle ?? true) && !opts.signal?.aborted) {
      listing = await waitToSettle(p, c, remoteDir, rules, clock);
      p = await planAndAdopt(c, listing, settleSeconds, clock);
    }
    report.skipped = p.skipped;
    report.unchanged = p.unchanged.length;
    report.keptEarlier = p.savedEarlier.length;
    onProgress({ kind: 'listed', files: listing.files.length, toPull: p.toPull.length });
    for (const s of p.skipped) onProgress({ kind: 'skipped', name: s.name, reason: s.reason });

    const recorder = outcomeRecorder(c, report);
    await pullPlanned(c, p.toPull, recorder.record, report);
    await recorder.saving();
    await finishPass(c, p, report);
    return report;
  } catch (err) {
    throw toSyncError(err);
  } finally {
    pass.done();
    ctx?.hasher.cancel();
    // Nothing changed, nothing written: a no-change pass leaves the disk alone.
    if (ctx && stateSnapshot(ctx.state) !== stateAsRead) await writeState(localRoot, ctx.state).catch(() => undefined);
    report.seconds = Math.round(monotonicMs() - started) / 1000;
  }
}

/** Removes the empty `.part` files of `rels` (a full disk leaves them); anything else is left alone. */
async function removeEmptyParts(localRoot: string, rels: readonly string[]): Promise<void> {
  for (const rel of rels) {
    const part = localPathOf(localRoot, rel) + PART_SUFFIX;
    const st = await fsp.lstat(part).catch(() => undefined);
    if (st?.isFile() && st.size === 0) await fsp.unlink(part).catch(() => undefined);
  }
}
