// The SFTP side of push: promise forms of the write-side calls (each with a deadline, none
// sent on a closed channel), and a pipelined upload of a local file into an open remote
// handle that hashes the bytes as they are read (one read of the local file, no second
// pass) and keeps dozens of writes in flight. sftp-server applies writes in order, so what
// is on the box after a cut is a true prefix, which the next push verifies and resumes.
import { createReadStream } from 'node:fs';
import type { SFTPWrapper } from 'ssh2';
import { isChannelOpen, lstatRemote, onSessionGone, sftpCode, sftpRequest } from './sftp-util';
import { corkableSocketOf, sftpHasExtension } from '../ssh2-internals';

// The requests are sftp-util's sftpRequest, the one promise form (the same 30 s deadline, the
// same refusal on a closed channel, the same SftpGoneError when the session goes).

export const openWrite = (sftp: SFTPWrapper, path: string, resume: boolean) =>
  sftpRequest<Buffer>(sftp, 'open', (cb) => sftp.open(path, resume ? 'r+' : 'w', 0o644, cb));

export const closeRemote = (sftp: SFTPWrapper, handle: Buffer) => sftpRequest<void>(sftp, 'close', (cb) => sftp.close(handle, (e) => cb(e, undefined)), 10_000);

export const setMtime = (sftp: SFTPWrapper, path: string, mtime: number) => sftpRequest<void>(sftp, 'setstat', (cb) => sftp.utimes(path, mtime, mtime, (e) => cb(e, undefined)));

export const removeRemote = (sftp: SFTPWrapper, path: string) =>
  sftpRequest<void>(sftp, 'remove', (cb) => sftp.unlink(path, (e) => cb(e, undefined))).catch((e: unknown) => {
    if (sftpCode(e) === undefined) throw e;
  });

/** Renames over an existing file atomically where the server offers posix-rename (OpenSSH does). */
export async function renameOver(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
  if (sftpHasExtension(sftp, 'posix-rename@openssh.com')) {
    await sftpRequest<void>(sftp, 'rename', (cb) => sftp.ext_openssh_rename(from, to, (e) => cb(e, undefined)));
    return;
  }
  await removeRemote(sftp, to);
  await sftpRequest<void>(sftp, 'rename', (cb) => sftp.rename(from, to, (e) => cb(e, undefined)));
}

/** mkdir -p on the box, one component at a time (existing folders are fine). */
export async function mkdirRemote(sftp: SFTPWrapper, dir: string, made: Set<string>): Promise<void> {
  if (made.has(dir) || dir === '' || dir === '/' || dir === '.') return;
  const st = await lstatRemote(sftp, dir);
  if (st?.isDirectory()) {
    made.add(dir);
    return;
  }
  if (st) throw Object.assign(new Error(`${dir} on the box is not a folder`), { code: 4 });
  const i = dir.lastIndexOf('/');
  if (i > 0) await mkdirRemote(sftp, dir.slice(0, i), made);
  await sftpRequest<void>(sftp, 'mkdir', (cb) => sftp.mkdir(dir, { mode: 0o755 }, (e) => cb(e, undefined))).catch(async (e: unknown) => {
    if (sftpCode(e) === undefined) throw e;
    if (!(await lstatRemote(sftp, dir))?.isDirectory()) throw e;
  });
  made.add(dir);
}

export interface UploadOptions {
  from: number;
  size: number;
  /** Fed every local byte from `from` on, in order, as it is read. */
  hash: { update(data: Buffer): void };
  inFlight?: number;
  stallMs?: number;
  signal?: AbortSignal;
  onBytes?: (n: number) => void;
}

export type UploadFailure = { kind: 'transport' | 'remote-io' | 'local-io' | 'stalled' | 'aborted' | 'local-changed'; message: string };

export class UploadError extends Error {
  constructor(readonly failure: UploadFailure) {
    super(failure.message);
    this.name = 'UploadError';
  }
}

/** 32 KiB channel packets: the write request's header (about 30 bytes) fits with the data. */
const WRITE_CHUNK = 32 * 1024 - 64;

/** Writes local bytes [from, size) into the open remote handle at the same offsets. */
export function uploadRange(sftp: SFTPWrapper, handle: Buffer, localPath: string, opts: UploadOptions): Promise<number> {
  const maxInFlight = opts.inFlight ?? 64;
  const stallMs = opts.stallMs ?? 60_000;
  const sock = corkableSocketOf(sftp);
  return new Promise<number>((resolve, reject) => {
    if (opts.from >= opts.size) return resolve(0);
    let inFlight = 0;
    let sent = opts.from;
    let acked = 0;
    let ended = false;
    let failure: UploadFailure | undefined;
    let settled = false;
    let lastProgress = Date.now();
    const stream = createReadStream(localPath, { start: opts.from, end: opts.size - 1, highWaterMark: 1024 * 1024 });
    const timer = setInterval(() => {
      if (Date.now() - lastProgress > stallMs) fail({ kind: 'stalled', message: `no progress for ${Math.round(stallMs / 1000)} s` });
    }, Math.min(1000, Math.max(50, stallMs / 4)));
    const onAbort = () => fail({ kind: 'aborted', message: 'interrupted' });
    opts.signal?.addEventListener('abort', onAbort);
    const unsubscribe = onSessionGone(sftp, () => fail({ kind: 'transport', message: 'SFTP channel closed' }));
    const finish = () => {
      if (settled) return;
      if (!failure && !(ended && inFlight === 0)) return;
      if (failure && inFlight > 0 && failure.kind === 'remote-io') return; // let the others land
      settled = true;
      clearInterval(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      unsubscribe();
      stream.destroy();
      if (failure) reject(new UploadError(failure));
      else if (sent !== opts.size) reject(new UploadError({ kind: 'local-changed', message: 'the local file changed size during the upload' }));
      else resolve(acked);
    };
    function fail(f: UploadFailure) {
      failure ??= f;
      stream.destroy();
      finish();
    }
    stream.on('data', (chunk: string | Buffer) => {
      const data = chunk as Buffer;
      if (failure) return;
      opts.hash.update(data);
      if (!isChannelOpen(sftp)) return fail({ kind: 'transport', message: 'SFTP channel closed' });
      sock?.cork();
      try {
        for (let off = 0; off < data.length; off += WRITE_CHUNK) {
          const len = Math.min(WRITE_CHUNK, data.length - off);
          const at = sent;
          sent += len;
          inFlight++;
          sftp.write(handle, data, off, len, at, (err) => {
            inFlight--;
            if (err) return fail({ kind: sftpCode(err) === undefined ? 'transport' : 'remote-io', message: err.message });
            lastProgress = Date.now();
            acked += len;
            opts.onBytes?.(len);
            if (inFlight < maxInFlight / 2 && stream.isPaused()) stream.resume();
            finish();
          });
        }
      } catch (e) {
        fail({ kind: 'transport', message: e instanceof Error ? e.message : String(e) });
      } finally {
        sock?.uncork();
      }
      if (inFlight >= maxInFlight) stream.pause();
    });
    stream.on('end', () => {
      ended = true;
      finish();
    });
    stream.on('error', (e) => fail({ kind: 'local-io', message: e.message }));
  });
}
