// Lists the remote checkpoint folder: one SFTP readdir per directory (all directories of a
// level in flight at once), every name checked before it can become a local path, links
// followed only when they stay inside the folder. The box is not trusted: the walk has a cap on
// entries in all (an endless tree or folder ends in a clear error, not in memory) and on depth,
// and a bounded number of requests in flight.
import type { FileEntry, SFTPWrapper } from 'ssh2';
import { mapLimited } from '../util/limit';
import type { ExecListing } from './list-exec';
import { caseInsensitivePlatform, checkPulledComponent, PREVIOUS_DIR, STATE_FILE, type NameRules, type SkipReason } from './names';
import { closeHandle, kindOf, realpath, sftpCode, sftpRequest, SFTP_EOF, SFTP_NO_SUCH_FILE, stat } from './sftp-util';

/** Entries (files, folders, links, anything) one listing may hold in all. */
export const MAX_LIST_ENTRIES = 100_000;
/** Directory reads (and link checks) in flight at once. */
const LIST_CONCURRENCY = 64;

export interface ListLimits {
  maxEntries?: number;
  /**
   * The folder as one command on the box listed it (list-exec.ts), started before the SFTP
   * session: where it answers whole, the walk reads its names instead of asking SFTP folder by
   * folder; where it does not (undefined), SFTP lists as before.
   */
  byCommand?: Promise<ExecListing | 'too-many' | undefined>;
}

/** The one SFTP request wrapper (sftp-util), here too for the modules that import it from the listing. */
export { sftpRequest };

type ReaddirReply = { list: FileEntry[] | false; err?: undefined } | { list?: undefined; err: unknown };

/**
 * Reads one folder reply by reply, charging each entry to the listing's budget (so one endless
 * folder stops too). Two reads are in flight at once: the box answers them in order, so a
 * folder that fits in one reply (OpenSSH sends up to 100 names) ends one round trip sooner,
 * with its end already on the way, instead of asking for it after the names came.
 */
async function readdirBounded(
  sftp: SFTPWrapper,
  path: string,
  budget: { left: number; replyMs?: number },
  tooMany: () => Error,
): Promise<FileEntry[]> {
  const handle = await sftpRequest<Buffer>(sftp, 'opendir', (cb) => sftp.opendir(path, cb));
  const out: FileEntry[] = [];
  const ask = (): Promise<ReaddirReply> => {
    const asked = process.hrtime.bigint();
    const timed = () => {
      const ms = Number(process.hrtime.bigint() - asked) / 1e6;
      if (budget.replyMs === undefined || ms < budget.replyMs) budget.replyMs = ms;
    };
    return sftpRequest<FileEntry[] | false>(sftp, 'readdir', (cb) => sftp.readdir(handle, cb)).then(
      (list) => (timed(), { list }),
      (err: unknown) => (timed(), { err }),
    );
  };
  try {
    let next = ask();
    let ahead = ask();
    for (;;) {
      const reply = await next;
      if (reply.err !== undefined) {
        if (sftpCode(reply.err) === SFTP_EOF) break;
        throw reply.err;
      }
      const list = reply.list;
      if (!list || list.length === 0) break;
      next = ahead;
      ahead = ask();
      budget.left -= list.length;
      if (budget.left < 0) throw tooMany();
      for (const e of list) out.push(e);
    }
  } finally {
    // Not waited for: it goes out in order before the next request, and its answer changes
    // nothing here (one round trip less per folder listed: 40 ms each through a 40 ms link).
    void closeHandle(sftp, handle);
  }
  return out;
}

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
  /**
   * The quickest answer to one directory read, in milliseconds: the last read of a folder (its
   * end) costs the box next to nothing, so this is about one round trip to the box. Absent
   * when the names came from the listing command.
   */
  replyMs?: number;
  /** The box's clock when the listing command ran (seconds), where the names came from it. */
  now?: number;
}

export class RemoteFolderError extends Error {
  /** Set when the listing stopped at its entry cap. */
  tooManyEntries?: number;
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

/** The folder's real path and its own names over SFTP, in one round trip; why not, as a RemoteFolderError. */
async function sftpTop(sftp: SFTPWrapper, folder: string, budget: { left: number; replyMs?: number }, tooMany: () => Error): Promise<{ root: string; entries: FileEntry[] }> {
  const [rootR, firstR] = await Promise.allSettled([realpath(sftp, folder), readdirBounded(sftp, folder, budget, tooMany)]);
  if (rootR.status === 'rejected') {
    const err: unknown = rootR.reason;
    if (isTransport(err)) throw err;
    throw new RemoteFolderError(sftpCode(err) === SFTP_NO_SUCH_FILE ? 'remote-missing' : 'remote-unreadable', folder, (err as Error).message);
  }
  const root = rootR.value;
  if (firstR.status === 'rejected') {
    const err: unknown = firstR.reason;
    if (err instanceof RemoteFolderError || isTransport(err)) throw err;
    const st = await stat(sftp, root).catch((e: unknown) => {
      if (isTransport(e)) throw e;
      return undefined;
    });
    if (!st) throw new RemoteFolderError('remote-missing', folder);
    if (!st.isDirectory()) throw new RemoteFolderError('remote-not-directory', folder);
    throw new RemoteFolderError('remote-unreadable', folder, (err as Error).message);
  }
  return { root, entries: firstR.value };
}

/** A link's target, if it is a file inside the listed tree: listed under the link's name; anything else skipped with why. */
async function followLink(sftp: SFTPWrapper, rel: string, abs: string, inTree: (p: string) => boolean, files: RemoteFile[], skipped: Skip[]): Promise<void> {
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
}

/** One folder's names: the top's as already read, else the listing command's, else SFTP's; a sub-folder that cannot be read is skipped and left unlisted. */
async function readLevelDir(
  dir: { rel: string; abs: string },
  w: { sftp: SFTPWrapper; folder: string; firstListing: FileEntry[]; byCommand: ExecListing | undefined; budget: { left: number; replyMs?: number }; tooMany: () => Error; skipped: Skip[]; unlisted: string[] },
): Promise<FileEntry[]> {
  try {
    if (dir.rel === '') return w.firstListing;
    const listed = w.byCommand?.dirs.get(dir.rel);
    if (listed) return listed;
    return await readdirBounded(w.sftp, dir.abs, w.budget, w.tooMany);
  } catch (err) {
    if (err instanceof RemoteFolderError || isTransport(err)) throw err;
    if (dir.rel === '') throw new RemoteFolderError('remote-unreadable', w.folder, (err as Error).message);
    w.skipped.push({ name: dir.rel, reason: 'unreadable' });
    w.unlisted.push(dir.rel);
    return [] as FileEntry[];
  }
}

export async function listRemote(sftp: SFTPWrapper, folder: string, rules: NameRules, limits: ListLimits = {}): Promise<RemoteListing> {
  const maxEntries = limits.maxEntries ?? MAX_LIST_ENTRIES;
  const budget: { left: number; replyMs?: number } = { left: maxEntries };
  const tooMany = () => {
    const e = new RemoteFolderError('remote-unreadable', folder, `the folder on the box has more than ${maxEntries} entries (files and folders in all); sync a sub-folder with fewer`);
    e.tooManyEntries = maxEntries;
    return e;
  };
  const byCommand = limits.byCommand ? await limits.byCommand.catch(() => undefined) : undefined;
  if (byCommand === 'too-many') throw tooMany();
  const { root, entries: firstListing } = byCommand ? { root: byCommand.root, entries: byCommand.dirs.get('')! } : await sftpTop(sftp, folder, budget, tooMany);

  const files: RemoteFile[] = [];
  const skipped: Skip[] = [];
  const unlisted: string[] = [];
  const seenFolded = new Set<string>();
  const foldCase = caseInsensitivePlatform(rules.platform);
  const inTree = (p: string) => p === root || p.startsWith(root.endsWith('/') ? root : root + '/');

  let level: Array<{ rel: string; abs: string }> = [{ rel: '', abs: root }];
  for (let depth = 0; level.length && depth <= MAX_DEPTH; depth++) {
    const listed = await mapLimited(level, LIST_CONCURRENCY, async (dir) => ({ dir, entries: await readLevelDir(dir, { sftp, folder, firstListing, byCommand, budget, tooMany, skipped, unlisted }) }));
    const next: Array<{ rel: string; abs: string }> = [];
    const links: Array<() => Promise<void>> = [];
    for (const { dir, entries } of listed) {
      // Sorted so collisions and the skipped list come out the same way every time.
      entries.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
      for (const e of entries) {
        const name = e.filename;
        const rel = shown(dir.rel, name);
        const reason = checkPulledComponent(name, rules) ?? (dir.rel === '' && (name === STATE_FILE || name === PREVIOUS_DIR) ? 'reserved-name' : undefined);
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
        else links.push(() => followLink(sftp, rel, abs, inTree, files, skipped));
      }
    }
    await mapLimited(links, LIST_CONCURRENCY, (check) => check());
    level = next;
  }
  for (const dir of level) {
    skipped.push({ name: dir.rel, reason: 'too-long' });
    unlisted.push(dir.rel);
  }
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  skipped.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { root, files, skipped, unlisted, ...(budget.replyMs !== undefined ? { replyMs: budget.replyMs } : {}), ...(byCommand ? { now: byCommand.now } : {}) };
}
