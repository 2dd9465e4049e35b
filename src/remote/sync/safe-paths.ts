// The real-path checks of a pull. Names are checked as text when listed (names.ts); these check
// what the paths are on disk at the moment of use:
// - locally, the folders above a file are made one by one and none may be a link or resolve
//   outside the local root (a `sub -> /elsewhere` link already in the folder is not followed);
// - on the box, the opened handle must be the regular file that was listed, and the path must
//   still be that file and not a link (a file swapped for a link to /etc/passwd after listing,
//   even with size and mtime matched, is refused).
import { promises as fsp } from 'node:fs';
import { dirname, join, relative, sep, isAbsolute } from 'node:path';
import type { Stats } from 'ssh2';
import type { RemoteFile } from './list';
import { kindOf } from './sftp-util';

/** True when `path` is `root` or below it (both already real paths). */
export function isInside(root: string, path: string): boolean {
  const r = relative(root, path);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r) && r.split(sep)[0] !== '..');
}

/**
 * Makes the folders above `rel` inside `root`, refusing any existing component that is not a
 * real folder (a link, a file), then checks the parent's real path is inside the root's. Returns
 * the parent folder, or null when it is not safe to write there. Disk errors (ENOSPC) are thrown.
 */
export async function safeLocalParent(root: string, rel: string): Promise<string | null> {
  const parts = rel.split('/').slice(0, -1);
  let dir = root;
  for (const part of parts) {
    dir = join(dir, part);
    let st = await fsp.lstat(dir).catch(() => undefined);
    if (!st) {
      try {
        await fsp.mkdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      st = await fsp.lstat(dir).catch(() => undefined);
    }
    if (!st || st.isSymbolicLink() || !st.isDirectory()) return null;
  }
  const [realRoot, realParent] = await Promise.all([fsp.realpath(root), fsp.realpath(dirname(join(root, ...rel.split('/'))))]).catch(() => [null, null]);
  if (realRoot === null || realParent === null || !isInside(realRoot, realParent)) return null;
  return dirname(join(root, ...rel.split('/')));
}

/**
 * Whether an opened remote file is still the one listed: the handle (`opened`, its fstat) is a
 * regular file of the listed size, and the path (`atPath`, its lstat, sent alongside the open so
 * it costs no round trip) is a regular file with the handle's size, mtime, mode and owner.
 */
export function openedIsListed(f: RemoteFile, opened: Stats, atPath: Stats | undefined): boolean {
  if (kindOf(opened) !== 'file' || opened.size !== f.size) return false;
  if (!atPath || kindOf(atPath) !== 'file') return false;
  return atPath.size === opened.size && atPath.mtime === opened.mtime && atPath.mode === opened.mode && atPath.uid === opened.uid && atPath.gid === opened.gid;
}
