// What a launch pushes and resumes from: the workdir as git sees it (files .gitignore leaves
// out are not pushed, nor .git itself) and the newest checkpoint in the local checkpoint folder.
import { execFile } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { listLocalTree } from '../../remote/sync/push';

const MAX_GIT_OUTPUT = 64 * 1024 * 1024;

function git(dir: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['-C', dir, ...args], { maxBuffer: MAX_GIT_OUTPUT, encoding: 'buffer', timeout: 60000 }, (err, stdout) => resolve(err ? undefined : (stdout as Buffer).toString('utf8')));
  });
}

export interface WorkdirExclusions {
  /** Paths below the workdir (as the push names them, '/'-separated) to leave out. */
  exclude: string[];
  /** How the list was made: git's own rules, or none (not a git folder, or git missing). */
  by: 'git' | 'none';
  ignored: number;
}

/**
 * The files under `dir` that .gitignore (and .git/info/exclude, the global excludes) leaves out,
 * and everything under .git and `alsoUnder` (the checkpoint home, data pushed on its own): asked of git itself (`git ls-files --others --ignored
 * --exclude-standard`), so its rules are git's. Not a git folder: only .git is left out.
 */
export async function workdirExclusions(dir: string, alsoUnder: readonly string[] = []): Promise<WorkdirExclusions> {
  const listed = await listLocalTree(dir);
  const under = ['.git', ...alsoUnder.filter((p) => p && p !== '.' && !p.startsWith('..'))];
  const inGit = (rel: string) => under.some((u) => rel === u || rel.startsWith(`${u}/`));
  const top = (await git(dir, ['rev-parse', '--show-prefix'])) !== undefined;
  let ignored = new Set<string>();
  let by: WorkdirExclusions['by'] = 'none';
  if (top) {
    const out = await git(dir, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', '.']);
    if (out !== undefined) {
      by = 'git';
      ignored = new Set(out.split('\0').filter(Boolean));
    }
  }
  const exclude = listed.files.map((f) => f.rel).filter((rel) => inGit(rel) || ignored.has(rel));
  return { exclude, by, ignored: exclude.filter((r) => !inGit(r)).length };
}

/**
 * The newest top-level entry (file or folder) in the local checkpoint folder, by modification
 * time (a folder counts by its newest file): the checkpoint a resume starts from. The `.gpu-rent`
 * state and partial files are not checkpoints, nor the entries in `leaveOut` (not all home yet).
 */
export async function newestCheckpoint(localDir: string, leaveOut: ReadonlySet<string> = new Set()): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(localDir);
  } catch {
    return undefined;
  }
  let best: { name: string; mtime: number } | undefined;
  for (const name of names) {
    if (leaveOut.has(name) || name.startsWith('.gpu-rent') || name.endsWith('.part') || name.includes('.gpu-rent-')) continue;
    const st = await lstat(join(localDir, name)).catch(() => undefined);
    if (!st || st.isSymbolicLink()) continue;
    let mtime = st.mtimeMs;
    if (st.isDirectory()) mtime = await newestIn(join(localDir, name), 3).then((m) => m ?? st.mtimeMs);
    if (!best || mtime > best.mtime || (mtime === best.mtime && name > best.name)) best = { name, mtime };
  }
  return best?.name;
}

async function newestIn(dir: string, depth: number): Promise<number | undefined> {
  let newest: number | undefined;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries.slice(0, 10000)) {
    const p = join(dir, e.name);
    if (e.isFile()) {
      const st = await lstat(p).catch(() => undefined);
      if (st && (newest === undefined || st.mtimeMs > newest)) newest = st.mtimeMs;
    } else if (e.isDirectory() && depth > 0) {
      const m = await newestIn(p, depth - 1);
      if (m !== undefined && (newest === undefined || m > newest)) newest = m;
    }
  }
  return newest;
}

/** `rel` as a '/'-separated path (what the push and the box use). */
export function posixRel(from: string, to: string): string {
  return relative(from, to).split(sep).join('/');
}
