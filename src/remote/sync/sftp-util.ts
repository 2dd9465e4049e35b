// Promise forms of the few SFTP calls sync uses, with errors that keep the server's code.
import type { Attributes, FileEntry, SFTPWrapper, Stats } from 'ssh2';

export const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFLNK = 0o120000;

/** SFTP status codes (draft-ietf-secsh-filexfer-02). */
export const SFTP_EOF = 1;
export const SFTP_NO_SUCH_FILE = 2;
export const SFTP_PERMISSION_DENIED = 3;

export type FileKind = 'file' | 'dir' | 'link' | 'other';

export function kindOf(attrs: Attributes): FileKind {
  const t = (attrs.mode ?? 0) & S_IFMT;
  if (t === S_IFREG) return 'file';
  if (t === S_IFDIR) return 'dir';
  if (t === S_IFLNK) return 'link';
  return 'other';
}

export function readdir(sftp: SFTPWrapper, path: string): Promise<FileEntry[]> {
  return new Promise((res, rej) => sftp.readdir(path, (err, list) => (err ? rej(err) : res(list))));
}

export function realpath(sftp: SFTPWrapper, path: string): Promise<string> {
  return new Promise((res, rej) => sftp.realpath(path, (err, abs) => (err ? rej(err) : res(abs))));
}

export function stat(sftp: SFTPWrapper, path: string): Promise<Stats> {
  return new Promise((res, rej) => sftp.stat(path, (err, st) => (err ? rej(err) : res(st))));
}

export function openRead(sftp: SFTPWrapper, path: string): Promise<Buffer> {
  return new Promise((res, rej) => sftp.open(path, 'r', (err, handle) => (err ? rej(err) : res(handle))));
}

export function fstat(sftp: SFTPWrapper, handle: Buffer): Promise<Stats> {
  return new Promise((res, rej) => sftp.fstat(handle, (err, st) => (err ? rej(err) : res(st))));
}

export function closeHandle(sftp: SFTPWrapper, handle: Buffer): Promise<void> {
  return new Promise((res) => {
    try {
      sftp.close(handle, () => res());
    } catch {
      res(); // the channel is already gone
    }
  });
}

/** The SFTP status code of an error from ssh2 (undefined for transport errors). */
export function sftpCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
