// The local tree a push uploads, listed once: the root resolved (a root given as a link is the
// folder it points to, for the listing and for every read after it), regular files with their
// size and mtime, names checked as the box (POSIX) needs them; links inside the tree and special
// files are listed as skipped, never followed. The secret scan checks exactly `files`, so what it
// passes is what goes up (src/app/push.ts).
import { lstatSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { SyncError } from './errors';
import { checkComponent, PREVIOUS_DIR, STATE_FILE, type SkipReason } from './names';

export type LocalSkipReason = SkipReason | 'local-link';

export interface LocalFile {
  /** POSIX path below the root, as on the box. */
  rel: string;
  /** Absolute path under the resolved root. */
  path: string;
  size: number;
  /** Whole seconds. */
  mtime: number;
}

export interface LocalTree {
  /** The folder given, resolved (realpath). */
  root: string;
  /** Sorted by `rel`. */
  files: LocalFile[];
  skipped: Array<{ name: string; reason: LocalSkipReason }>;
}

const MAX_DEPTH = 64;

function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Lists `dir` for a push; throws SyncError('local-not-directory') when it is not a readable folder. */
export async function listLocalTree(dir: string): Promise<LocalTree> {
  let root: string;
  try {
    root = await fsp.realpath(dir);
    if (!(await fsp.stat(root)).isDirectory()) throw new SyncError('local-not-directory', `local path ${dir} is not a folder`);
  } catch (e) {
    if (e instanceof SyncError) throw e;
    throw new SyncError('local-not-directory', `local folder ${dir} cannot be read: ${(e as Error).message}`);
  }
  const files: LocalFile[] = [];
  const skipped: LocalTree['skipped'] = [];
  const walk = async (abs: string, rel: string, depth: number): Promise<void> => {
    const entries = await fsp.readdir(abs, { withFileTypes: true });
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const own = rel === '' && (e.name === STATE_FILE || e.name === PREVIOUS_DIR);
      const reason = checkComponent(e.name, { platform: 'linux' }) ?? (own ? 'reserved-name' : undefined);
      if (reason) {
        // Our own files (the state, the earlier versions a pull set aside) are not worth a line.
        if (!(reason === 'reserved-name' && own)) skipped.push({ name: r, reason });
        continue;
      }
      const p = join(abs, e.name);
      let kind: 'link' | 'dir' | 'file' | 'other' = e.isSymbolicLink() ? 'link' : e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other';
      if (kind === 'other' && !e.isFIFO() && !e.isSocket() && !e.isBlockDevice() && !e.isCharacterDevice()) {
        // The file system gave no type: ask.
        const st = await fsp.lstat(p).catch(() => undefined);
        kind = !st ? 'other' : st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
      }
      if (kind === 'link') skipped.push({ name: r, reason: 'local-link' });
      else if (kind === 'dir') {
        if (depth >= MAX_DEPTH) skipped.push({ name: r, reason: 'too-long' });
        else await walk(p, r, depth + 1);
      } else if (kind === 'file') {
        // A plain system call on this thread: a trip through the thread pool per file cost
        // ~0.2 ms each here (1000 files: 0.2 s before a push could start).
        const st = lstatOrUndefined(p);
        // Replaced by a link or removed since the listing: not sent.
        if (!st?.isFile()) skipped.push({ name: r, reason: st?.isSymbolicLink() ? 'local-link' : 'special-file' });
        else files.push({ rel: r, path: p, size: st.size, mtime: Math.floor(st.mtimeMs / 1000) });
      } else skipped.push({ name: r, reason: 'special-file' });
    }
  };
  await walk(root, '', 0);
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return { root, files, skipped };
}
