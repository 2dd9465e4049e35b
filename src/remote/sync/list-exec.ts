// The remote folder listed by one command on the box (GNU find -printf), started beside the
// SFTP session's start: its answer is in before SFTP is ready to ask, where SFTP's own listing
// costs two round trips for the folder and one more per level below it (80 ms and more through
// a 40 ms link). The same walk (list.ts) reads the answer as it reads SFTP's, every name checked
// the same way; links are still looked up by SFTP. The box is not trusted: anything unexpected
// (no GNU find, an unreadable sub-folder, a record that does not parse, output over its cap)
// makes the answer unusable and the listing is SFTP's, as before.
import type { FileEntry } from 'ssh2';
import { shQuote } from '../shell';
import { S_IFDIR, S_IFLNK, S_IFREG } from './sftp-util';

/** Levels below the folder whose names the walk reads (list.ts MAX_DEPTH + 1). */
export const EXEC_LIST_DEPTH = 65;
/** The command's first record: what follows is its answer (not a login banner's text). */
export const EXEC_LIST_MAGIC = 'gpu-rent-list1';
/** Any other kind of entry: what SFTP's mode bits would call neither file, folder nor link. */
const S_IFIFO = 0o010000;

/**
 * The command: the folder's real path and the box's clock, then one record per entry,
 * "<type> <size> <mtime> <path below the folder>", each ended by a NUL (names may hold newlines).
 */
export function execListCommand(folder: string): string {
  return `cd -P -- ${shQuote(folder)} 2>/dev/null || exit 90; ${EXEC_LIST_HERE}`;
}

/** The listing of the shell's current folder (entered with `cd -P`): the answer's header, then `exec find`. */
export const EXEC_LIST_HERE =
  `printf '${EXEC_LIST_MAGIC}\\0%s\\0%s\\0' "$(date +%s)" "$PWD" && ` +
  `LC_ALL=C exec find . -mindepth 1 -maxdepth ${EXEC_LIST_DEPTH} -printf '%y %s %T@ %P\\0' 2>/dev/null`;

export interface ExecListing {
  /** The folder's real path on the box. */
  root: string;
  /** The box's clock when the listing began (seconds). */
  now: number;
  /** Each folder the command read, by its path below the root ('' for the root): its entries. */
  dirs: Map<string, FileEntry[]>;
}

const RECORD = /^([fdlpscbD]) (\d{1,16}) (-?\d{1,12})(?:\.\d{1,10})? ([^\0]+)$/s;

/**
 * The command's answer, or undefined where it is not a whole, well-formed one (then SFTP lists).
 * 'too-many' past `maxEntries` entries in all, as SFTP's walk would end.
 */
export function parseExecListing(r: { code: number | null; stdout: string; truncated?: { stdout: number }; outputLimited?: boolean }, maxEntries: number): ExecListing | 'too-many' | undefined {
  if (r.code !== 0 || r.outputLimited || (r.truncated?.stdout ?? 0) > 0) return undefined;
  const parts = r.stdout.split('\0');
  // Every record ends with a NUL: the last piece is empty, or the output was cut.
  if (parts.length < 4 || parts[0] !== EXEC_LIST_MAGIC || parts[parts.length - 1] !== '') return undefined;
  const now = Number(parts[1]);
  const root = parts[2]!;
  if (!/^\d{1,12}$/.test(parts[1]!) || !Number.isSafeInteger(now) || !root.startsWith('/')) return undefined;
  const records = parts.length - 4;
  if (records > maxEntries) return 'too-many';
  const dirs = new Map<string, FileEntry[]>([['', []]]);
  for (let i = 3; i < parts.length - 1; i++) {
    const m = RECORD.exec(parts[i]!);
    if (!m) return undefined;
    const [, type, sizeText, mtimeText, path] = m as unknown as [string, string, string, string, string];
    const size = Number(sizeText);
    if (!Number.isSafeInteger(size)) return undefined;
    const cut = path.lastIndexOf('/');
    const parent = cut < 0 ? '' : path.slice(0, cut);
    const filename = path.slice(cut + 1);
    const entries = dirs.get(parent);
    // find prints a folder before what is in it: anything else is not its answer.
    if (filename === '' || !entries) return undefined;
    const kind = type === 'f' ? S_IFREG : type === 'd' ? S_IFDIR : type === 'l' ? S_IFLNK : S_IFIFO;
    const mtime = Number(mtimeText);
    entries.push({ filename, longname: '', attrs: { mode: kind | 0o644, size, mtime, atime: mtime, uid: 0, gid: 0 } } as FileEntry);
    // A folder deep enough that find stopped short of its names is left to SFTP (not in the map).
    if (type === 'd' && path.split('/').length < EXEC_LIST_DEPTH && !dirs.has(path)) dirs.set(path, []);
  }
  return { root, now, dirs };
}
