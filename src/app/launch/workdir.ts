// What a launch pushes and resumes from: the workdir as git sees it (files .gitignore leaves
// out are not pushed, nor .git itself). The newest checkpoint is core/checkpoints.ts's, walked in checkpoints.ts.
import { execFile } from 'node:child_process';
import { lstat, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { isGitDirName } from '../../core/gitNames';
import { listLocalTree } from '../../remote/sync/push';

const MAX_GIT_OUTPUT = 64 * 1024 * 1024;

/**
 * Git as a cloned repository cannot steer it: no hooks, no fsmonitor (a command git runs), no
 * bare repository found by walking (a committed HEAD/objects/refs layout), no system config, and
 * never above `ceiling`. Settings on the command line win over every config file.
 */
const HARDENED = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'safe.bareRepository=explicit', '-c', 'core.untrackedCache=false', '-c', 'core.sshCommand=false', '-c', 'protocol.allow=never'];

function gitEnv(ceiling: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_CEILING_DIRECTORIES: ceiling ?? '' };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_INDEX_FILE', 'GIT_CONFIG', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_EXTERNAL_DIFF']) delete env[k];
  return env;
}

function git(dir: string, args: string[], ceiling: string | undefined): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', [...HARDENED, '-C', dir, ...args], { maxBuffer: MAX_GIT_OUTPUT, encoding: 'buffer', timeout: 60000, env: gitEnv(ceiling) }, (err, stdout) => resolve(err ? undefined : (stdout as Buffer).toString('utf8')));
  });
}

/** A workdir git would take for a repository of its own (its config read, its fsmonitor run): refused. */
export class WorkdirIsGitDir extends Error {
  constructor(readonly dir: string) {
    super(`the workdir ${dir} is a git folder (.git, or HEAD, objects/ and refs/ as a bare repository has): refused, as git would read its config; name the project folder instead`);
    this.name = 'WorkdirIsGitDir';
  }
}

/** True when `dir` is `.git` or has the layout git takes for a bare repository. */
export async function looksLikeGitDir(dir: string): Promise<boolean> {
  if (isGitDirName(basename(dir))) return true;
  const [head, objects, refs] = await Promise.all(['HEAD', 'objects', 'refs'].map((n) => lstat(join(dir, n)).catch(() => undefined)));
  return !!head && !head.isDirectory() && !!objects?.isDirectory() && !!refs?.isDirectory();
}

/**
 * The top folder of the git work tree that holds `projectRoot` (the task file's folder), asked
 * from there and never from a folder the task names; not above the home folder's parent.
 */
async function workTreeTop(projectRoot: string): Promise<string | undefined> {
  const root = await realpath(projectRoot).catch(() => undefined);
  if (!root || (await looksLikeGitDir(root))) return undefined;
  const home = await realpath(homedir()).catch(() => homedir());
  const ceiling = root.startsWith(home + sep) || root === home ? dirname(home) : undefined;
  const out = await git(root, ['rev-parse', '--show-toplevel'], ceiling);
  const top = out?.replace(/\n$/, '');
  return top ? realpath(top).catch(() => undefined) : undefined;
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
 * and everything under .git and `alsoUnder` (the checkpoint home, data pushed on its own): asked of
 * git itself (`git ls-files --others --ignored --exclude-standard`), so its rules are git's. Git
 * runs hardened, in the work tree that holds `projectRoot` (the task file's folder; default `dir`),
 * never in `dir` itself: a committed bare-repository layout there has a config git would obey. A
 * `dir` that is such a layout, or `.git`, is refused (WorkdirIsGitDir). Not a git folder: only
 * .git is left out.
 */
export async function workdirExclusions(dir: string, alsoUnder: readonly string[] = [], projectRoot: string = dir): Promise<WorkdirExclusions> {
  const real = await realpath(dir).catch(() => dir);
  if ((await looksLikeGitDir(dir)) || (await looksLikeGitDir(real))) throw new WorkdirIsGitDir(dir);
  const listed = await listLocalTree(dir);
  const under = ['.git', ...alsoUnder.filter((p) => p && p !== '.' && !p.startsWith('..'))];
  const inGit = (rel: string) => under.some((u) => rel === u || rel.startsWith(`${u}/`));
  const top = await workTreeTop(projectRoot);
  let ignored = new Set<string>();
  let by: WorkdirExclusions['by'] = 'none';
  const below = top === undefined ? undefined : relative(top, real);
  if (top !== undefined && below !== undefined && !below.startsWith('..') && !below.startsWith(sep) && !(await looksLikeGitDir(top))) {
    const prefix = below === '' ? '' : `${below.split(sep).join('/')}/`;
    const out = await git(top, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', prefix === '' ? '.' : prefix], dirname(top));
    if (out !== undefined) {
      by = 'git';
      ignored = new Set(out.split('\0').filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)));
    }
  }
  const exclude = listed.files.map((f) => f.rel).filter((rel) => inGit(rel) || ignored.has(rel));
  return { exclude, by, ignored: exclude.filter((r) => !inGit(r)).length };
}

/** `rel` as a '/'-separated path (what the push and the box use). */
export function posixRel(from: string, to: string): string {
  return relative(from, to).split(sep).join('/');
}

/**
 * The first of the task's local paths (`paths`: as the task file says them, with what they
 * resolve to) whose real path (links followed) is outside the real project folder, e.g. a
 * committed `ck -> ~/.ssh` or `kube -> ~/.kube`; a path that does not exist yet counts by its
 * nearest existing folder. Undefined when all stay inside.
 */
export async function pathLeavingProject(projectRoot: string, paths: ReadonlyArray<{ said: string; abs: string }>): Promise<{ said: string; real: string } | undefined> {
  const root = await realpath(projectRoot).catch(() => projectRoot);
  for (const p of paths) {
    const real = await realOfNearest(p.abs);
    const r = relative(root, real);
    if (r.startsWith('..') || r.startsWith(sep) || /^[A-Za-z]:/.test(r)) return { said: p.said, real };
  }
  return undefined;
}

async function realOfNearest(path: string): Promise<string> {
  const rest: string[] = [];
  for (let p = path; ; ) {
    const real = await realpath(p).catch(() => undefined);
    if (real !== undefined) return join(real, ...rest.reverse());
    const up = dirname(p);
    if (up === p) return path;
    rest.push(basename(p));
    p = up;
  }
}
