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
  | 'local-in-git' // the local folder is a .git folder or inside one
  | 'local-outside' // the local folder leads (by a link) outside the folder it must stay in
  | 'local-io';

export class SyncError extends Error {
  constructor(
    readonly code: SyncErrorCode,
    message: string,
    readonly detail: { name?: string; needBytes?: number; freeBytes?: number; published?: readonly string[] } = {},
  ) {
    super(message);
    this.name = 'SyncError';
  }
}

export function isDiskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** How many published names the message lists; the rest are counted. */
const NAMES_IN_MESSAGE = 10;

/**
 * `published`: what this pass published before the disk filled (the engine knows; a single
 * file's pull does not, and says only that this file was not published).
 */
export function diskFull(name: string, need?: number, free?: number, published?: readonly string[]): SyncError {
  const figures = need !== undefined && free !== undefined ? ` (needs ${need} more bytes, ${free} free)` : '';
  const what =
    published === undefined
      ? `${name} was not published`
      : published.length === 0
        ? 'nothing was published'
        : `${name} was not published; published and verified before it: ${published.length} file${published.length === 1 ? '' : 's'} (${published.slice(0, NAMES_IN_MESSAGE).join(', ')}${published.length > NAMES_IN_MESSAGE ? `, and ${published.length - NAMES_IN_MESSAGE} more` : ''})`;
  return new SyncError('local-disk-full', `local disk full while saving ${name}${figures}; ${what}; free space and run again to resume`, {
    name,
    needBytes: need,
    freeBytes: free,
    ...(published ? { published: [...published] } : {}),
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
