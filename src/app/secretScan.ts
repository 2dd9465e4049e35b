// The secret scan for both front ends: one walker over core's rules (src/core/guards/secrets.ts).
// Reads .git/config and the other small text files in .git (a remote URL can carry a token) but
// not its object stores; generated folders (node_modules, venvs) by name only; never follows a
// link; stops at a file cap and a byte cap and says so in the result. Async, cancellable.
// A root given as a link is resolved first. Push does not walk here: it lists its tree once
// (src/remote/sync/local-tree.ts) and scanTree checks exactly that list.
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import {
  MAX_SCAN_CHARS,
  SCAN_MAX_BYTES,
  SCAN_MAX_FILES,
  scanDirRule,
  scanFile,
  shouldReadContent,
  skipGitFile,
  type SecretFinding,
} from '../core/guards/secrets';

export type { SecretFinding, SecretKind } from '../core/guards/secrets';

export interface ScanProgress {
  /** Files looked at so far (by name or content). */
  filesSeen: number;
  bytesRead: number;
  /** The path (as shown in findings) being looked at. */
  path: string;
}

export interface SecretScanOptions {
  /** Stop after this many files (default 200 000). */
  maxFiles?: number;
  /** Stop before reading more than this many bytes of content (default 512 MiB). */
  maxBytes?: number;
  /** Abort: the scan rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called every few hundred files and once at the end. */
  onProgress?: (p: ScanProgress) => void;
  /**
   * Paths in findings are relative to this folder (the CLI passes the working folder). Without
   * it they are relative to the root scanned (a file root is shown by its name).
   */
  relativeTo?: string;
}

export interface SecretScanResult {
  findings: SecretFinding[];
  /** Files looked at. */
  files: number;
  /** Of those, files whose content was read. */
  contentFiles: number;
  bytesRead: number;
  /** Why the scan stopped early, and after how many files; null when it saw everything. */
  truncated: { reason: 'maxFiles' | 'maxBytes'; filesSeen: number; limit: number } | null;
  /** Paths that could not be read (at most 100 listed). */
  unreadable: string[];
  unreadableCount: number;
  /** Links met and not followed. */
  skippedLinks: number;
  /**
   * Files whose content was due to be read but was not, because the scan stopped at a cap
   * (scanTree: their names were still checked). 0 when `truncated` is null.
   */
  unscanned: number;
}

class Stop extends Error {}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const PROGRESS_EVERY = 250;

const toPosix = (p: string) => (sep === '/' ? p : p.split(sep).join('/'));

/** Scans files and folders for likely secrets. */
export async function scanSecrets(roots: string | readonly string[], opts: SecretScanOptions = {}): Promise<SecretScanResult> {
  const maxFiles = opts.maxFiles ?? SCAN_MAX_FILES;
  const maxBytes = opts.maxBytes ?? SCAN_MAX_BYTES;
  const r: SecretScanResult = { findings: [], files: 0, contentFiles: 0, bytesRead: 0, truncated: null, unreadable: [], unreadableCount: 0, skippedLinks: 0, unscanned: 0 };
  const unreadable = (shown: string) => {
    r.unreadableCount++;
    if (r.unreadable.length < 100) r.unreadable.push(shown);
  };
  const progress = (path: string) => opts.onProgress?.({ filesSeen: r.files, bytesRead: r.bytesRead, path });
  const child = (shown: string, name: string) => (shown === '.' || shown === '' ? name : `${shown}/${name}`);

  const readHead = async (abs: string, shown: string): Promise<string | undefined> => {
    const c = await readScanHead(abs, shown, r, (want) => (r.bytesRead + want > maxBytes ? { reason: 'maxBytes', filesSeen: r.files, limit: maxBytes } : null));
    if (c === CAPPED) throw new Stop();
    return c;
  };

  const file = async (abs: string, shown: string, nameOnly: boolean): Promise<void> => {
    if (r.files >= maxFiles) {
      r.truncated = { reason: 'maxFiles', filesSeen: r.files, limit: maxFiles };
      throw new Stop();
    }
    r.files++;
    if (r.files % PROGRESS_EVERY === 0) progress(shown);
    const content = nameOnly ? undefined : await readHead(abs, shown);
    r.findings.push(...scanFile(content === undefined ? { path: shown } : { path: shown, content }));
  };

  const dir = async (abs: string, shown: string, nameOnly: boolean, insideGit: boolean): Promise<void> => {
    opts.signal?.throwIfAborted();
    const entries = await readdir(abs, { withFileTypes: true }).catch(() => undefined);
    if (!entries) return unreadable(shown);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      opts.signal?.throwIfAborted();
      const p = join(abs, e.name);
      const s = child(shown, e.name);
      let kind: 'link' | 'dir' | 'file' | 'other' = e.isSymbolicLink() ? 'link' : e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other';
      if (kind === 'other' && !e.isFIFO() && !e.isSocket() && !e.isBlockDevice() && !e.isCharacterDevice()) {
        // The file system gave no type: ask.
        const st = await lstat(p).catch(() => undefined);
        kind = !st ? 'other' : st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
      }
      if (kind === 'link') r.skippedLinks++;
      else if (kind === 'dir') {
        const gitHere = insideGit || e.name === '.git';
        const rule = scanDirRule(e.name, insideGit);
        if (rule !== 'skip') await dir(p, s, nameOnly || rule === 'nameOnly', gitHere);
      } else if (kind === 'file' && !(insideGit && skipGitFile(e.name))) await file(p, s, nameOnly);
    }
  };

  try {
    for (const root of typeof roots === 'string' ? [roots] : roots) {
      opts.signal?.throwIfAborted();
      // A root given as a link is the folder or file it points to (push resolves it the same way).
      const real = await realpath(root).catch(() => root);
      const st = await lstat(real).catch(() => undefined);
      const shown = opts.relativeTo !== undefined ? toPosix(relative(opts.relativeTo, root)) || '.' : st?.isDirectory() ? '.' : basename(root);
      if (!st) unreadable(shown);
      else if (st.isDirectory()) await dir(real, shown, false, basename(real) === '.git');
      else if (st.isFile()) await file(real, shown, false);
    }
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  progress('');
  return r;
}

/** A file as push lists it (src/remote/sync/local-tree.ts): its path below the root, and where it is. */
export interface ListedFile {
  rel: string;
  path: string;
  /** As listed; a file too big or too binary to read is not counted as unscanned at a cap. */
  size?: number;
}

/**
 * How the scan treats one listed file by its path: 'content' (read it), or 'name' (generated
 * folders, .git's object stores and bookkeeping: name checked only). Push uploads all of them,
 * so every one is at least checked by name.
 */
export function listedFileRule(rel: string): 'content' | 'name' {
  const parts = rel.split('/');
  let insideGit = false;
  for (const part of parts.slice(0, -1)) {
    if (scanDirRule(part, insideGit) !== 'walk') return 'name';
    insideGit ||= part === '.git';
  }
  return insideGit && skipGitFile(parts[parts.length - 1]!) ? 'name' : 'content';
}

/**
 * Checks exactly the files push is about to upload: every name, and the content of each file
 * the rules read, until a cap. At a cap the content reads stop (`truncated`, `unscanned`), the
 * names are still all checked. Findings name files by `rel`. `realRoot`: the listed root's real
 * path (links resolved), so a pushed link to ~/.docker is judged as `.docker/config.json`.
 */
export async function scanTree(files: readonly ListedFile[], opts: Omit<SecretScanOptions, 'relativeTo'> & { realRoot?: string } = {}): Promise<SecretScanResult> {
  const maxFiles = opts.maxFiles ?? SCAN_MAX_FILES;
  const maxBytes = opts.maxBytes ?? SCAN_MAX_BYTES;
  const r: SecretScanResult = { findings: [], files: 0, contentFiles: 0, bytesRead: 0, truncated: null, unreadable: [], unreadableCount: 0, skippedLinks: 0, unscanned: 0 };
  for (const f of files) {
    opts.signal?.throwIfAborted();
    r.files++;
    if (r.files % PROGRESS_EVERY === 0) opts.onProgress?.({ filesSeen: r.files, bytesRead: r.bytesRead, path: f.rel });
    let content: string | undefined;
    if (listedFileRule(f.rel) === 'content') {
      if (r.truncated) r.unscanned += f.size === undefined || shouldReadContent(f.rel, f.size) ? 1 : 0;
      // A size that rules the content out (too big) needs no open: the name is still checked.
      else if (f.size === undefined || shouldReadContent(f.rel, f.size)) content = await readListed(f, r, maxFiles, maxBytes);
    }
    // Name rules see the file by its real path too: `kube -> ~/.kube` holds `.kube/config`.
    const path = opts.realRoot ? `${toPosix(opts.realRoot)}/${f.rel}` : f.rel;
    r.findings.push(...scanFile(content === undefined ? { path } : { path, content }).map((x) => ({ ...x, path: f.rel })));
  }
  opts.onProgress?.({ filesSeen: r.files, bytesRead: r.bytesRead, path: '' });
  return r;
}

/** Reads the head of one listed file for the scan (never through a link); records a cap it meets. */
async function readListed(f: ListedFile, r: SecretScanResult, maxFiles: number, maxBytes: number): Promise<string | undefined> {
  const c = await readScanHead(f.path, f.rel, r, (want) =>
    r.contentFiles >= maxFiles ? { reason: 'maxFiles', filesSeen: r.files - 1, limit: maxFiles } : r.bytesRead + want > maxBytes ? { reason: 'maxBytes', filesSeen: r.files - 1, limit: maxBytes } : null,
  );
  if (c !== CAPPED) return c;
  r.unscanned++;
  return undefined;
}

const CAPPED = Symbol('capped');

/**
 * The head of one file for the scan, opened without following a link (an unreadable one is
 * counted). `capOf(want)` says whether reading `want` more bytes passes a cap: then nothing is
 * read, the cap is recorded in `r.truncated` and CAPPED returned.
 */
async function readScanHead(path: string, rel: string, r: SecretScanResult, capOf: (want: number) => SecretScanResult['truncated']): Promise<string | typeof CAPPED | undefined> {
  const fh = await open(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK).catch(() => undefined);
  if (!fh) {
    r.unreadableCount++;
    if (r.unreadable.length < 100) r.unreadable.push(rel);
    return undefined;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || !shouldReadContent(rel, st.size)) return undefined;
    const want = Math.min(st.size, MAX_SCAN_CHARS);
    const cap = capOf(want);
    if (cap) {
      r.truncated = cap;
      return CAPPED;
    }
    const buf = Buffer.alloc(want);
    const { bytesRead } = await fh.read(buf, 0, want, 0);
    r.bytesRead += bytesRead;
    r.contentFiles++;
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}
