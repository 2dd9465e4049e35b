// Sync's own errors (codes for the CLI and the extension to put into words), and the mapping
// of everything else that can go wrong during a pass onto them.
import { RemoteFolderError } from './list';

export type SyncErrorCode =
  | 'remote-missing'
  | 'remote-not-directory'
  | 'remote-unreadable'
  | 'connection-lost'
  | 'local-disk-full'
  | 'local-not-directory'
  | 'local-io';

export class SyncError extends Error {
  constructor(
    readonly code: SyncErrorCode,
    message: string,
    readonly detail: { name?: string; needBytes?: number; freeBytes?: number } = {},
  ) {
    super(message);
    this.name = 'SyncError';
  }
}

export function isDiskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

export function diskFull(name: string, need?: number, free?: number): SyncError {
  const figures = need !== undefined && free !== undefined ? ` (needs ${need} more bytes, ${free} free)` : '';
  return new SyncError('local-disk-full', `local disk full while saving ${name}${figures}; nothing was published, free space and run again to resume`, {
    name,
    needBytes: need,
    freeBytes: free,
  });
}

export function toSyncError(err: unknown): unknown {
  if (err instanceof SyncError) return err;
  if (err instanceof RemoteFolderError) return new SyncError(err.code, err.message);
  if (isDiskFull(err)) return diskFull(String((err as NodeJS.ErrnoException).path ?? 'a file'));
  // ssh2 transport errors carry no code at all (SFTP statuses are numbers; RemoteError and
  // Node's errors have string codes and pass through unchanged).
  if (err instanceof Error && (err as { code?: unknown }).code === undefined) {
    return new SyncError('connection-lost', `connection lost: ${err.message}`);
  }
  return err;
}
