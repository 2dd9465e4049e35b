// One planned file of a push, carried out: its bytes go to NAME.part on the box (through the
// box's gzip as far as that pays, then SFTP; a .part left by a cut resumed when the box's hash
// of it equals the hash of the same local prefix), hashed as they are read; the .part is
// published only once the box's hash of it equals ours, renamed into place with the local
// mtime, and never over a file on the box newer than ours unless `force`.
import { promises as fsp } from 'node:fs';
import type { SFTPWrapper } from 'ssh2';
import { SyncError } from './errors';
import { remoteHash, type HashBatcher } from './hash-batch';
import type { HashAnswer } from './remote-hash';
import { hashLocalRange, sha256, type Sha256 } from './local-hash';
import { PART_SUFFIX } from './names';
import type { LocalFile } from './local-tree';
import { closeRemote, mkdirRemote, openWrite, removeRemote, renameOver, setMtime, UploadError, uploadRange } from './push-sftp';
import { lstatRemote, sftpCode } from './sftp-util';
import type { SyncProgress, SyncRemote } from './types';
import { SAMPLE_BYTES, worthCompressing } from './compress';
import { pushGzipped, type GzipPushResult } from './push-gzip';
import { BIG_FILE, type PushSend, type PushSkipReason } from './push-plan';

export type PushProgress = Exclude<SyncProgress, { kind: 'skipped' }> | { kind: 'skipped'; name: string; reason: PushSkipReason };

export type Outcome = { kind: 'pushed'; bytes: number } | { kind: 'skipped'; reason: PushSkipReason } | { kind: 'interrupted' };

/** What one file's transfer needs of the pass. */
export interface FileCtx {
  remote: SyncRemote;
  sftp: SFTPWrapper;
  opts: { force?: boolean; inFlight?: number; stallMs?: number; signal?: AbortSignal; log?: (line: string) => void };
  /** The box's folder (its real path). */
  root: string;
  hasher: HashBatcher;
  madeDirs: Set<string>;
  onProgress: (p: PushProgress) => void;
  compressed: (raw: number, wire: number) => void;
  /** The box's folder was made by this pass: no .part can be in it. */
  newRoot?: boolean;
}

export interface Sent {
  kind: 'sent';
  digest: string;
  bytes: number;
  part: string;
  target: string;
  /** The box's hash of the .part, said by the compressed upload's last segment. */
  box?: HashAnswer;
}

export const lost = (e: unknown, name: string) => new SyncError('connection-lost', `connection lost while pushing ${name}: ${(e as Error).message}`, { name });

/** Uploads one file to its .part on the box, hashing it as it is read. */
export async function sendPart(c: FileCtx, s: PushSend<LocalFile>, attempt: number): Promise<Sent | Outcome> {
  const { sftp, opts } = c;
  const f = s.file;
  const target = `${c.root}/${f.rel}`;
  const part = target + PART_SUFFIX;
  try {
    await mkdirRemote(sftp, s.dir ? `${c.root}/${s.dir}` : c.root, c.madeDirs);
  } catch (e) {
    if (sftpCode(e) === undefined) throw lost(e, f.rel);
    return { kind: 'skipped', reason: 'remote-conflict' };
  }
  // A .part from an earlier cut: trusted only if the box's hash of it equals our prefix's.
  let from = 0;
  let hash: Sha256 = sha256();
  // A .part on the box where this pass did not make the folder: resumed where the box's hash of
  // it equals ours of that prefix (else rewritten from the start: the compressed upload's first
  // segment replaces it, SFTP truncates it).
  if (f.size > BIG_FILE && attempt === 1 && c.newRoot !== true) {
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
  const onBytes = (n: number) => {
    done += n;
    c.onProgress({ kind: 'bytes', name: f.rel, done, size: f.size });
  };
  // Compressible: as much as pays goes through the box's zstd or gzip; the rest over SFTP below.
  if (s.gzip && from < f.size && (await sampleWorthIt(f))) {
    const g = await pushGzipped(c.remote, f.path, part, { from, size: f.size, hash, signal: opts.signal, onBytes }).catch((): GzipPushResult => ({ raw: 0, wire: 0, stopped: 'failed' }));
    if (g.stopped === 'aborted') return { kind: 'interrupted' };
    if (g.raw > 0) c.compressed(g.raw, g.wire);
    bytes += g.raw;
    from += g.raw;
    if (g.stopped === 'failed') c.opts.log?.(`push: ${f.rel}: the compressed upload stopped at ${from} bytes; the rest goes uncompressed over SFTP`);
    if (from >= f.size) return finishSent(f, hash, bytes, part, target, g.box);
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
    bytes += await uploadRange(sftp, handle, f.path, { from, size: f.size, hash, inFlight: opts.inFlight, stallMs: opts.stallMs, signal: opts.signal, onBytes });
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
async function finishSent(f: LocalFile, hash: Sha256, bytes: number, part: string, target: string, box?: HashAnswer): Promise<Sent | Outcome> {
  const now = await fsp.lstat(f.path).catch(() => undefined);
  if (!now || now.size !== f.size || Math.floor(now.mtimeMs / 1000) !== f.mtime) return { kind: 'skipped', reason: 'local-changed' };
  return { kind: 'sent', digest: await hash.digest(), bytes, part, target, ...(box ? { box } : {}) };
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

/**
 * Publishes a sent .part once the box's hash of it equals ours (equal hashes mean equal
 * bytes, length included; a box without a hash tool gets the size checked instead). The
 * target is looked at again meanwhile (written since the plan, now newer than ours?) and the
 * .part gets the local mtime. A mismatch is sent once more, then skipped.
 */
export async function publish(c: FileCtx, s: PushSend<LocalFile>, sent: Sent, boxHash: HashAnswer | Promise<HashAnswer>, attempt: number): Promise<Outcome> {
  const { sftp, opts } = c;
  const f = s.file;
  const { part, target } = sent;
  // The target's look and the .part's mtime go out while the box is still hashing: one round
  // trip less per file than after the hash (the hash reads the bytes, the mtime is not in it).
  const [cur, timed, box] = await Promise.all([
    lstatRemote(sftp, target),
    setMtime(sftp, part, f.mtime).then(
      () => true,
      (e: unknown) => {
        if (sftpCode(e) === undefined) throw lost(e, f.rel);
        return false;
      },
    ),
    boxHash,
  ]);
  if (box.full === undefined || !timed) return { kind: 'skipped', reason: 'remote-unwritable' };
  const sizeOk = box.full !== null || (await lstatRemote(sftp, part))?.size === f.size;
  if ((box.full !== null && box.full !== sent.digest) || !sizeOk) {
    await removeRemote(sftp, part);
    if (attempt === 1) return pushFile(c, s, 2);
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
  return { kind: 'pushed', bytes: sent.bytes };
}

/** Sends, verifies and publishes one file (a big one is hashed on the box alone, a small one in a batch). */
export async function pushFile(c: FileCtx, s: PushSend<LocalFile>, attempt = 1): Promise<Outcome> {
  const sent = await sendPart(c, s, attempt);
  if (sent.kind !== 'sent') return sent;
  const box = sent.box ?? (s.file.size >= BIG_FILE ? remoteHash(c.remote, sent.part, s.file.size) : c.hasher.full(sent.part, s.file.size));
  return publish(c, s, sent, box, attempt);
}
