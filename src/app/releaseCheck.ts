// What a release checks before it deletes a box (issue 41 bug 4): the folders the box's
// checkpoints really go to — each launch's `checkpoints.remote` on that box (its task file read
// again, the folder resolved as the launch resolves it) and the instance's chosen sync folders —
// not a default that nothing writes to. Each folder is compared with its local copy; a folder
// the login cannot read is named as such ("cannot read"), apart from a box that cannot be
// reached at all ("cannot reach"). Used by both release commands of the extension.
import { taskOrSweepRun } from '../core/task/sweep';
import { readdir } from 'node:fs/promises';
import { posix, resolve } from 'node:path';
import { findCheckpoints, newestFirst } from '../core/checkpoints';
import type { Instance } from '../core/instances';
import type { LaunchBox, LaunchState } from '../core/task/launch';
import type { RemoteConnection } from '../remote/connection';
import { RemoteFolderError } from '../remote/sync/list';
import { launchesDir, readState } from './launch/store';
import { onBox } from './launch/rules';
import { readTaskFile } from './launch/taskFile';
import { releaseRisk, type ReleaseRisk } from './release';

/** One folder on the box to compare, with where its checkpoints come home. */
export interface CheckFolder {
  /** Absolute, or `~/…` (the login's home: SFTP resolves it there). */
  remoteDir: string;
  /** The local copy; undefined when none is known (then every file on the box counts as unsynced). */
  localDir: string | undefined;
  /** `launch`: a launch's checkpoints folder on this box; `sync`: the instance's chosen sync folders; `default`: the settings' default, when nothing else is known. */
  source: 'launch' | 'sync' | 'default';
  /** The task of a `launch` folder. */
  task?: string;
  /** The task's `checkpoints.pattern` (what counts as a checkpoint there); absent: the common layouts. */
  patterns?: string[];
}

/** At most this many launch states are read per release check (a launches folder is small). */
const MAX_LAUNCH_STATES = 200;

/**
 * Whether a launch box is this instance: the same platform instance id (a CLI launch may name the
 * account by another id than the extension does; an instance id is the platform's own, and a
 * wrong match only adds a folder to check, never drops one), or the same SSH login.
 */
export function boxIsInstance(b: Pick<LaunchBox, 'kind' | 'label' | 'account' | 'ref'>, inst: Pick<Instance, 'platformRef' | 'login'>): boolean {
  if (b.kind === 'platform') return !!inst.platformRef && b.ref === inst.platformRef.ref;
  const l = inst.login;
  return b.label === `${l.user}@${l.host}:${l.port}` || (!l.user && b.label === `${l.host}:${l.port}`);
}

/** Whether a launch ever held this instance (its current box, its nodes, the boxes it left). */
export function launchUsedInstance(s: Pick<LaunchState, 'box' | 'nodes' | 'boxes'>, inst: Pick<Instance, 'platformRef' | 'login'>): boolean {
  return [...(s.box ? [s.box] : []), ...(s.nodes ?? []), ...s.boxes].some((b) => boxIsInstance(b, inst));
}

/**
 * A task's checkpoints folder on the box as the launch resolves it (app/launch/acquire's
 * `onBox`), written against the login's home as `~/…` where it is relative: the launch's
 * `~/gpu-rent/lora-pro/ckpt` for `remoteWorkdir: ~/gpu-rent/lora-pro` and `checkpoints.remote: ckpt`.
 */
export function taskCheckpointDir(remoteWorkdir: string, checkpointsRemote: string): string {
  return onBox(checkpointsRemote, '~', onBox(remoteWorkdir, '~'));
}

/** The checkpoints folders of every launch (in `configHome`) that held this instance, read from their task files. */
export async function launchFoldersOf(inst: Pick<Instance, 'platformRef' | 'login'>, configHome: string, log: (line: string) => void = () => undefined): Promise<CheckFolder[]> {
  const dir = launchesDir(configHome);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).slice(0, MAX_LAUNCH_STATES);
  } catch {
    return [];
  }
  const out: CheckFolder[] = [];
  for (const n of names) {
    let s: LaunchState | undefined;
    try {
      s = await readState(resolve(dir, n));
    } catch (e) {
      log(`release check: launch state ${n} skipped: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    if (!s || !launchUsedInstance(s, inst)) continue;
    const tf = await readTaskFile(resolve(s.file, '..'), s.file).catch(() => undefined);
    // A sweep's run (lora-3) is found through its sweep: its own workdir and checkpoint folders.
    const task = tf?.ok ? taskOrSweepRun(tf.tasks, s.task) : undefined;
    if (!task) {
      log(`release check: the task file ${s.file} of launch ${s.task} could not be read: its checkpoints folder is not known`);
      continue;
    }
    if (!task.checkpoints) continue;
    out.push({ remoteDir: taskCheckpointDir(task.remoteWorkdir, task.checkpoints.remote), localDir: resolve(s.file, '..', task.checkpoints.local), source: 'launch', task: s.task, ...(task.checkpoints.patterns ? { patterns: task.checkpoints.patterns } : {}) });
  }
  return out;
}

/**
 * The folders a release compares: every launch's, then the instance's chosen sync folders; the
 * settings' default only when neither is known (it is what a sync watch would use then). One
 * entry per box folder.
 */
export function releaseFolders(launch: readonly CheckFolder[], sync: { remoteDir: string; localDir: string | undefined; chosen: boolean }): CheckFolder[] {
  const out: CheckFolder[] = [];
  const seen = new Set<string>();
  const add = (f: CheckFolder) => {
    const key = posix.normalize(f.remoteDir).replace(/\/+$/, '');
    if (seen.has(key)) return;
    seen.add(key);
    out.push(f);
  };
  launch.forEach(add);
  if (sync.chosen || out.length === 0) add({ remoteDir: sync.remoteDir, localDir: sync.localDir, source: sync.chosen ? 'sync' : 'default' });
  return out;
}

/** A folder the login could not read: its checkpoints were not compared. */
export interface UnreadableFolder {
  remoteDir: string;
  detail: string;
}

export type ReleaseCheck =
  /** Every folder that could be read was compared; `unreadable` names the ones that could not (then the check is incomplete). */
  | { kind: 'checked'; risk: ReleaseRisk; folders: CheckFolder[]; unreadable: UnreadableFolder[] }
  /** The box could not be reached (connection, login): nothing was compared. */
  | { kind: 'unreachable'; detail: string };

/**
 * Compares each folder with its local copy over one connection. A folder that is not there holds
 * nothing to lose; one the login may not read (permission denied) is named in `unreadable`; a
 * failure to connect is `unreachable`.
 */
export async function checkRelease(connect: () => Promise<RemoteConnection>, folders: readonly CheckFolder[]): Promise<ReleaseCheck> {
  let conn: RemoteConnection;
  try {
    conn = await connect();
  } catch (e) {
    return { kind: 'unreachable', detail: e instanceof Error ? e.message : String(e) };
  }
  const files: ReleaseRisk['files'] = [];
  const unreadable: UnreadableFolder[] = [];
  let unlisted = 0;
  for (const f of folders) {
    try {
      const r = await releaseRisk(conn, f.remoteDir, f.localDir);
      const prefix = folders.length > 1 ? `${f.remoteDir.replace(/\/+$/, '')}/` : '';
      files.push(...r.files.map((x) => ({ ...x, rel: prefix + x.rel })));
      unlisted += r.unlisted;
    } catch (e) {
      if (e instanceof RemoteFolderError) unreadable.push({ remoteDir: f.remoteDir, detail: e.message });
      else return { kind: 'unreachable', detail: e instanceof Error ? e.message : String(e) };
    }
  }
  const remoteDir = folders.map((f) => f.remoteDir).join(', ');
  return { kind: 'checked', risk: { remoteDir, files, bytes: files.reduce((a, f) => a + f.size, 0), unlisted }, folders: [...folders], unreadable };
}

/**
 * The checkpoints a release would delete unsynced, by issue 41's one notion of a checkpoint
 * (core/checkpoints: a folder or file matching the task's pattern or the common layouts, never a
 * log): each checkpoint that holds a file at risk, complete or not (an unfinished one is lost
 * too), named with its folder where several folders were checked. Logs and other files at risk
 * are listed by the first question; only checkpoints are asked about again.
 */
export function unsyncedEntries(check: Extract<ReleaseCheck, { kind: 'checked' }>): string[] {
  const out: string[] = [];
  const many = check.folders.length > 1;
  for (const f of check.folders) {
    const prefix = many ? `${f.remoteDir.replace(/\/+$/, '')}/` : '';
    const files = check.risk.files.filter((x) => x.rel.startsWith(prefix)).map((x) => ({ rel: x.rel.slice(prefix.length), mtime: 0, size: x.size }));
    for (const c of newestFirst(findCheckpoints(files, f.patterns ? { patterns: f.patterns } : {}))) if (!out.includes(prefix + c.name)) out.push(prefix + c.name);
  }
  return out;
}
