// Lists the remote checkpoint folder: one SFTP readdir per directory (all directories of a
// level in flight at once), every name checked before it can become a local path, links
// followed only when they stay inside the folder.
import type { SFTPWrapper } from 'ssh2';
import { caseInsensitivePlatform, checkComponent, STATE_FILE, type NameRules, type SkipReason } from './names';
import { kindOf, readdir, realpath, sftpCode, SFTP_NO_SUCH_FILE, stat } from './sftp-util';

export interface RemoteFile {
  /** Path relative to the synced folder, "/"-separated, every component checked. */
  rel: string;
  /** Absolute remote path to read (for a link inside the tree: the link itself). */
  abs: string;
  size: number;
  /** Whole seconds (SFTP v3). */
  mtime: number;
}

export interface Skip {
  name: string;
  reason: SkipReason;
}

export interface RemoteListing {
  /** The folder's real path on the box. */
  root: string;
  files: RemoteFile[];
  skipped: Skip[];
  /** Sub-folders that could not be listed: nothing below them may be deleted locally. */
  unlisted: string[];
}

export class RemoteFolderError extends Error {
  constructor(
    readonly code: 'remote-missing' | 'remote-not-directory' | 'remote-unreadable',
    readonly path: string,
    detail?: string,
  ) {
    super(
      code === 'remote-missing'
        ? `remote folder ${path} does not exist`
        : code === 'remote-not-directory'
          ? `remote path ${path} is not a folder`
          : `remote folder ${path} cannot be read${detail ? `: ${detail}` : ''}`,
    );
    this.name = 'RemoteFolderError';
  }
}

const MAX_DEPTH = 64;

/** A printable form of a hostile name for the skipped list (JSON keeps it exact anyway). */
function shown(parentRel: string, name: string): string {
  return parentRel ? `${parentRel}/${name}` : name;
}

function isTransport(err: unknown): boolean {
  return sftpCode(err) === undefined;
}

export async function listRemote(sftp: SFTPWrapper, folder: string, rules: NameRules): Promise<RemoteListing> {
  // The folder's real path and its first listing in one round trip.
  const [rootR, firstR] = await Promise.allSettled([realpath(sftp, folder), readdir(sftp, folder)]);
  if (rootR.status === 'rejected') {
    const err: unknown = rootR.reason;
    if (isTransport(err)) throw err;
    throw new RemoteFolderError(sftpCode(err) === SFTP_NO_SUCH_FILE ? 'remote-missing' : 'remote-unreadable', folder, (err as Error).message);
  }
  const root = rootR.value;
  if (firstR.status === 'rejected') {
    const err: unknown = firstR.reason;
    if (isTransport(err)) throw err;
    const st = await stat(sftp, root).catch((e: unknown) => {
      if (isTransport(e)) throw e;
      return undefined;
    });
    if (!st) throw new RemoteFolderError('remote-missing', folder);
    if (!st.isDirectory()) throw new RemoteFolderError('remote-not-directory', folder);
    throw new RemoteFolderError('remote-unreadable', folder, (err as Error).message);
  }
  const firstListing = firstR.value;

  const files: RemoteFile[] = [];
  const skipped: Skip[] = [];
  const unlisted: string[] = [];
  const seenFolded = new Set<string>();
  const foldCase = caseInsensitivePlatform(rules.platform);
  const inTree = (p: string) => p === root || p.startsWith(root.endsWith('/') ? root : root + '/');

  let level: Array<{ rel: string; abs: string }> = [{ rel: '', abs: root }];
  for (let depth = 0; level.length && depth <= MAX_DEPTH; depth++) {
    const listed = await Promise.all(
      level.map(async (dir) => {
        try {
          if (dir.rel === '') return { dir, entries: firstListing };
          return { dir, entries: await readdir(sftp, dir.abs) };
        } catch (err) {
          if (isTransport(err)) throw err;
          if (dir.rel === '') throw new RemoteFolderError('remote-unreadable', folder, (err as Error).message);
          skipped.push({ name: dir.rel, reason: 'unreadable' });
          unlisted.push(dir.rel);
          return { dir, entries: [] };
        }
      }),
    );
    const next: Array<{ rel: string; abs: string }> = [];
    const links: Array<Promise<void>> = [];
    for (const { dir, entries } of listed) {
      // Sorted so collisions and the skipped list come out the same way every time.
      entries.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
      for (const e of entries) {
        const name = e.filename;
        const rel = shown(dir.rel, name);
        const reason = checkComponent(name, rules) ?? (dir.rel === '' && name === STATE_FILE ? 'reserved-name' : undefined);
        if (reason) {
          skipped.push({ name: rel, reason });
          continue;
        }
        if (foldCase) {
          const folded = rel.toLowerCase();
          if (seenFolded.has(folded)) {
            skipped.push({ name: rel, reason: 'case-collision' });
            continue;
          }
          seenFolded.add(folded);
        }
        const abs = `${dir.abs === '/' ? '' : dir.abs}/${name}`;
        const kind = kindOf(e.attrs);
        if (kind === 'dir') next.push({ rel, abs });
        else if (kind === 'file') files.push({ rel, abs, size: e.attrs.size, mtime: e.attrs.mtime });
        else if (kind === 'other') skipped.push({ name: rel, reason: 'special-file' });
        else
          links.push(
            (async () => {
              let target: string;
              try {
                target = await realpath(sftp, abs);
              } catch (err) {
                if (isTransport(err)) throw err;
                skipped.push({ name: rel, reason: 'symlink-dangling' });
                return;
              }
              if (!inTree(target)) {
                skipped.push({ name: rel, reason: 'symlink-outside' });
                return;
              }
              try {
                const st = await stat(sftp, target);
                if (st.isDirectory()) skipped.push({ name: rel, reason: 'symlink-to-directory' });
                else if (st.isFile()) files.push({ rel, abs: target, size: st.size, mtime: st.mtime });
                else skipped.push({ name: rel, reason: 'special-file' });
              } catch (err) {
                if (isTransport(err)) throw err;
                skipped.push({ name: rel, reason: 'symlink-dangling' });
              }
            })(),
          );
      }
    }
    await Promise.all(links);
    level = next;
  }
  for (const dir of level) {
    skipped.push({ name: dir.rel, reason: 'too-long' });
    unlisted.push(dir.rel);
  }
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  skipped.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { root, files, skipped, unlisted };
}
