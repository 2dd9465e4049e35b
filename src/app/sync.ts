// Checkpoint sync as both front ends offer it: the engine's view of a connection, a meter
// that turns the engine's events into files, bytes, speed and a result, the folders an
// instance syncs (asked once, remembered, editable), and the .gitignore hint for a local
// folder inside a git work tree.
import { writeFileAtomic } from './atomicWrite';
import { lstat, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { RemoteConnection } from '../remote/connection';
import { hasGitComponent } from '../core/gitNames';
import type { SyncProgress, SyncRemote, SyncReport } from '../remote/sync';

/** The engine's view of a pooled connection: no login shell needed for sync's own commands. */
export function syncRemote(conn: RemoteConnection): SyncRemote {
  return {
    sftp: () => conn.sftp(),
    exec: (command, opts) => conn.exec(command, { login: opts?.login ?? false, ...(opts?.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}), ...(opts?.stdin ? { stdin: opts.stdin } : {}), ...(opts?.signal ? { signal: opts.signal } : {}) }),
    stream: (command, opts) => conn.execStream(command, { login: false, ...opts }),
  };
}

export interface TransferSnapshot {
  /** Files to pull this pass (known once the box was listed). */
  filesTotal: number | null;
  filesDone: number;
  /** Bytes read from the box so far. */
  bytesDone: number;
  /** Sum of the sizes of the files started so far (the total is known once every file started). */
  bytesStarted: number;
  /** Average since the first byte, bytes per second. */
  bytesPerSecond: number;
  seconds: number;
  /** The file being pulled now. */
  current: string | null;
}

/** Counts what a sync pass moves, from the engine's progress events. */
export class TransferMeter {
  private filesTotal: number | null = null;
  private filesDone = 0;
  private bytesDone = 0;
  private bytesStarted = 0;
  private firstByteAt: number | null = null;
  private current: string | null = null;
  private readonly fileBytes = new Map<string, number>();
  private readonly started: number;

  constructor(private readonly clock: () => number = () => Date.now()) {
    this.started = clock();
  }

  observe(p: SyncProgress): void {
    switch (p.kind) {
      case 'listed':
        this.filesTotal = p.toPull;
        break;
      case 'file-start':
        this.current = p.name;
        this.bytesStarted += p.size - p.from;
        this.fileBytes.set(p.name, 0);
        break;
      case 'bytes': {
        const before = this.fileBytes.get(p.name) ?? 0;
        const delta = Math.max(0, p.done - before);
        if (delta > 0 && this.firstByteAt === null) this.firstByteAt = this.clock();
        this.bytesDone += delta;
        this.fileBytes.set(p.name, p.done);
        break;
      }
      case 'file-done':
        this.filesDone++;
        this.fileBytes.delete(p.name);
        if (this.current === p.name) this.current = null;
        break;
      default:
        break;
    }
  }

  snapshot(): TransferSnapshot {
    const now = this.clock();
    const since = this.firstByteAt ?? now;
    const secs = (now - since) / 1000;
    return {
      filesTotal: this.filesTotal,
      filesDone: this.filesDone,
      bytesDone: this.bytesDone,
      bytesStarted: this.bytesStarted,
      bytesPerSecond: secs > 0 ? this.bytesDone / secs : 0,
      seconds: (now - this.started) / 1000,
      current: this.current,
    };
  }
}

/** A pass's result as data (the CLI's --json, the extension's return value and message). */
export interface SyncSummary {
  files: number;
  bytes: number;
  seconds: number;
  bytesPerSecond: number;
  unchanged: number;
  verified: number;
  /** Of `files`, big ones checked by their unchanged identity on the box (no SHA-256 there). */
  byIdentity: number;
  deleted: string[];
  skipped: { name: string; reason: string }[];
  interrupted: boolean;
  pulled: string[];
  /** Local files changed since the last sync (or never synced) that were kept; the box's version saved beside each. */
  kept: { name: string; boxCopy: string }[];
  /** Such files whose box version was saved beside them on an earlier pass. */
  keptEarlier: number;
  /** Files sync had written, unchanged here, replaced by the box's newer version; the earlier copy moved to `previous` (.gpu-rent-previous/…). */
  replaced: { name: string; previous: string }[];
}

export function summarize(r: SyncReport): SyncSummary {
  return {
    files: r.files,
    bytes: r.bytes,
    seconds: r.seconds,
    bytesPerSecond: r.seconds > 0 ? r.bytes / r.seconds : 0,
    unchanged: r.unchanged,
    verified: r.verified,
    byIdentity: r.byIdentity,
    deleted: [...r.deleted],
    skipped: r.skipped.map((s) => ({ name: s.name, reason: s.reason })),
    interrupted: r.interrupted,
    pulled: [...r.pulled],
    kept: r.kept.map((k) => ({ name: k.name, boxCopy: k.boxCopy })),
    keptEarlier: r.keptEarlier,
    replaced: r.replaced.map((k) => ({ name: k.name, previous: k.previous })),
  };
}

// ── The folders an instance syncs ──────────────────────────────────────────────────────

export type FolderProblem = 'remote-not-absolute' | 'remote-dot-segment' | 'remote-control-char' | 'local-empty' | 'local-control-char' | 'local-needs-workspace' | 'local-in-git';

/** A folder on the box: absolute, no '..', no control characters. */
export function checkRemoteDir(dir: string): FolderProblem | undefined {
  if (!dir.startsWith('/')) return 'remote-not-absolute';
  if (dir.split('/').includes('..')) return 'remote-dot-segment';
   
  if (/[\x00-\x1f\x7f]/.test(dir)) return 'remote-control-char';
  return undefined;
}

/** The `gpuRent.sync.remoteDir` default: AutoDL's data disk. */
export const DEFAULT_SYNC_REMOTE_DIR = '/root/autodl-tmp/checkpoints';

/**
 * The box folder as typed, with `~` and `~/…` as the login's home there (`home`: what the probe
 * read from $HOME; a root login's is /root when it was never probed). Undefined when the text
 * starts with `~` and the home is not known; `~user` is left as typed (and so refused as not absolute).
 */
export function expandRemoteHome(dir: string, home: string | undefined, user?: string): string | undefined {
  const d = dir.trim();
  if (d !== '~' && !d.startsWith('~/')) return d;
  const h = home ?? (user === 'root' ? '/root' : undefined);
  if (!h) return undefined;
  const base = withoutTrailingSlashes(h);
  return d === '~' ? base || '/' : `${base}${d.slice(1)}`;
}

/**
 * The box folder the sync prompt offers: the setting when the user changed it; else, where the
 * last probe found the data folder: a data disk (AutoDL's /root/autodl-tmp, $GPU_RENT_DATA_DIR)
 * or, with no data disk, the login's home: never /root/autodl-tmp on a box that has none.
 */
export function suggestedRemoteDir(setting: string, probe: { home?: string; dataDir?: { path: string; source: 'env' | 'platform' | 'home' } } | undefined): string {
  if (setting !== DEFAULT_SYNC_REMOTE_DIR || !probe?.dataDir) return setting;
  return `${withoutTrailingSlashes(probe.dataDir.path)}/checkpoints`;
}

function withoutTrailingSlashes(p: string): string {
  let end = p.length;
  while (end > 0 && p[end - 1] === '/') end--;
  return p.slice(0, end);
}

/** The local folder: absolute as given, or relative to the workspace folder. */
export function resolveLocalDir(dir: string, workspaceRoot: string | undefined): { ok: true; path: string } | { ok: false; problem: FolderProblem } {
  const d = dir.trim();
  if (!d) return { ok: false, problem: 'local-empty' };
   
  if (/[\x00-\x1f\x7f]/.test(d)) return { ok: false, problem: 'local-control-char' };
  // Files from the box inside .git could run commands at the next `git status` (core/gitNames.ts).
  if (hasGitComponent(d)) return { ok: false, problem: 'local-in-git' };
  if (isAbsolute(d)) return { ok: true, path: resolve(d) };
  if (!workspaceRoot) return { ok: false, problem: 'local-needs-workspace' };
  return { ok: true, path: resolve(workspaceRoot, d) };
}

// ── .gitignore ───────────────────────────────────────────────────────────────────────

export interface GitignoreAdvice {
  /** The git work tree that holds the folder. */
  repoRoot: string;
  /** The folder relative to it, with forward slashes. */
  entry: string;
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

/** The nearest git work tree at or above `dir` (a `.git` folder or file), within `stopAt` when given. */
export async function findRepoRoot(dir: string, stopAt?: string): Promise<string | undefined> {
  let cur = resolve(dir);
  for (;;) {
    const git = await lstat(join(cur, '.git')).catch(() => undefined);
    if (git) return cur;
    const up = dirname(cur);
    if (up === cur || (stopAt && relative(resolve(stopAt), cur).startsWith('..'))) return undefined;
    cur = up;
  }
}

const GITIGNORE_MAX = 1024 * 1024;

/**
 * Whether `localDir` is inside a git work tree and not yet named in its top-level .gitignore
 * (a checkpoint folder would otherwise fill the Source Control view). Only the top-level
 * file's plain entries are read; patterns that might also match are not evaluated.
 */
export async function gitignoreAdvice(localDir: string): Promise<GitignoreAdvice | undefined> {
  const abs = resolve(localDir);
  const start = (await isDir(abs)) ? abs : dirname(abs);
  const root = await findRepoRoot(start);
  if (!root || root === abs) return undefined;
  const entry = relative(root, abs).split(sep).join('/');
  if (!entry || entry.startsWith('..')) return undefined;
  const text = await readFile(join(root, '.gitignore'), 'utf8').catch(() => '');
  const names = new Set(text.slice(0, GITIGNORE_MAX).split(/\r?\n/).map((l) => l.trim().replace(/^\//, '').replace(/\/+(\*\*?)?$/, '')));
  const parts = entry.split('/');
  // The folder or one of its parents is listed.
  for (let i = 1; i <= parts.length; i++) if (names.has(parts.slice(0, i).join('/'))) return undefined;
  return { repoRoot: root, entry };
}

/** Adds `/entry/` to the work tree's .gitignore: written to a temporary file, then renamed. */
export async function addToGitignore(advice: GitignoreAdvice): Promise<string> {
  const path = join(advice.repoRoot, '.gitignore');
  const old = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return '';
    throw e;
  });
  const line = `/${advice.entry}/`;
  const next = `${old}${old && !old.endsWith('\n') ? '\n' : ''}# checkpoints pulled by gpu-rent\n${line}\n`;
  await writeFileAtomic(path, next, { mode: 0o644 });
  return path;
}
