// Promise forms of the few SFTP calls sync uses, with errors that keep the server's code.
import type { Attributes, FileEntry, SFTPWrapper, Stats } from 'ssh2';
import { sftpChannelOpen } from '../ssh2-internals';

export const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFLNK = 0o120000;

/** SFTP status codes (draft-ietf-secsh-filexfer-02). */
export const SFTP_EOF = 1;
export const SFTP_NO_SUCH_FILE = 2;

export type FileKind = 'file' | 'dir' | 'link' | 'other';

export function kindOf(attrs: Attributes): FileKind {
  const t = (attrs.mode ?? 0) & S_IFMT;
  if (t === S_IFREG) return 'file';
  if (t === S_IFDIR) return 'dir';
  if (t === S_IFLNK) return 'link';
  return 'other';
}

/** Thrown when the SFTP channel is gone: ssh2 drops requests sent on a closed channel without ever calling back. */
export class SftpGoneError extends Error {
  constructor(what: string) {
    super(`SFTP session closed (${what})`);
    this.name = 'SftpGoneError';
  }
}

const channelOpen = sftpChannelOpen;

/** Every request gets a deadline, and none is sent on a closed channel. */
const REQUEST_DEADLINE_MS = 30_000;

// One 'close'/'end' watcher per session (not one per request: listings send hundreds).
const pendingBySession = new WeakMap<SFTPWrapper, Set<(err: Error) => void>>();

function pendingOf(sftp: SFTPWrapper): Set<(err: Error) => void> {
  let set = pendingBySession.get(sftp);
  if (!set) {
    const created = new Set<(err: Error) => void>();
    set = created;
    pendingBySession.set(sftp, created);
    const onGone = () => {
      for (const fail of [...created]) fail(new SftpGoneError('the channel closed'));
    };
    sftp.once('close', onGone);
    sftp.once('end', onGone);
  }
  return set;
}

/** Calls `fn` once if the session closes; returns the unsubscribe. */
export function onSessionGone(sftp: SFTPWrapper, fn: () => void): () => void {
  const pending = pendingOf(sftp);
  const cb = () => fn();
  pending.add(cb);
  return () => pending.delete(cb);
}

/**
 * The one promise form of an SFTP request (sync, push, listings): a deadline, never sent on a
 * closed channel, rejected when the session goes; the server's error passes through with its code.
 */
export function sftpRequest<T>(sftp: SFTPWrapper, what: string, send: (cb: (err: Error | null | undefined, v: T) => void) => void, deadlineMs = REQUEST_DEADLINE_MS): Promise<T> {
  return new Promise<T>((res, rej) => {
    if (!channelOpen(sftp)) return rej(new SftpGoneError(what));
    const pending = pendingOf(sftp);
    let done = false;
    const finish = (err: Error | null | undefined, v?: T) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      pending.delete(onGone);
      if (err) rej(err);
      else res(v as T);
    };
    const onGone = (err: Error) => finish(err);
    const timer = setTimeout(() => finish(new SftpGoneError(`${what}: no reply in ${Math.round(deadlineMs / 1000)} s`)), deadlineMs);
    pending.add(onGone);
    try {
      send((err, v) => finish(err, v));
    } catch (e) {
      finish(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

/**
 * The path's own attributes on the box (a link is not followed). The one lstat of sync, with
 * these semantics: undefined when the server answers with an SFTP status (no such file,
 * permission denied, …: the path cannot be had); thrown when there is no answer at all (the
 * channel is gone, or no reply within the deadline), since that is a lost connection and not
 * a missing file. A caller for which both mean the same says so with its own catch.
 */
export function lstatRemote(sftp: SFTPWrapper, path: string): Promise<Stats | undefined> {
  return sftpRequest<Stats>(sftp, 'lstat', (cb) => sftp.lstat(path, cb)).catch((e: unknown) => {
    if (sftpCode(e) === undefined) throw e;
    return undefined;
  });
}

export function readdir(sftp: SFTPWrapper, path: string): Promise<FileEntry[]> {
  return sftpRequest(sftp, 'readdir', (cb) => sftp.readdir(path, cb));
}

export function realpath(sftp: SFTPWrapper, path: string): Promise<string> {
  return sftpRequest(sftp, 'realpath', (cb) => sftp.realpath(path, cb));
}

export function stat(sftp: SFTPWrapper, path: string): Promise<Stats> {
  return sftpRequest(sftp, 'stat', (cb) => sftp.stat(path, cb));
}

export function openRead(sftp: SFTPWrapper, path: string): Promise<Buffer> {
  return sftpRequest(sftp, 'open', (cb) => sftp.open(path, 'r', cb));
}

export function fstat(sftp: SFTPWrapper, handle: Buffer): Promise<Stats> {
  return sftpRequest(sftp, 'fstat', (cb) => sftp.fstat(handle, cb));
}

export async function closeHandle(sftp: SFTPWrapper, handle: Buffer): Promise<void> {
  // A close that gets no answer costs the server a handle, not us a hang.
  await sftpRequest(sftp, 'close', (cb) => sftp.close(handle, (err) => cb(err, undefined)), 3000).catch(() => undefined);
}

export function isChannelOpen(sftp: SFTPWrapper): boolean {
  return channelOpen(sftp);
}

/** The SFTP status code of an error from ssh2 (undefined for transport errors). */
export function sftpCode(err: unknown): number | undefined {
  if (err instanceof SftpGoneError) return undefined;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
