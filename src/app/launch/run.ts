// One launch, written once for both front ends: from a task to a finished, synced run with the
// meter off. Steps, each saved to the launch state before the next begins (so a killed CLI, a
// laptop that slept or a restarted VS Code continues with `--resume` where it stopped):
//   acquire (acquire.ts) → check (check.ts: the doctor; a red verdict stops before hours are
//   paid) → push (upload.ts: workdir as git sees it, secret-scanned; data) → setup (setup.ts: a
//   detached job, survives a dropped link) → run (start.ts: detached; the resume command from the
//   last verified checkpoint after an interruption) → watch (watch.ts: progress, ETA, ¥ to
//   finish; a verified checkpoint sync every interval (checkpoints.ts); the smoke stop; the
//   budget cap; a reclaimed spot box (reclaim.ts): relaunch on the next candidate) → end (end.ts:
//   the final verified sync, then the end action; a failed sync stops any power action).
// This module is the driver: the launch's lock, its state read or begun, one step at a time.
// What the steps share is context.ts; their pure decisions are rules.ts.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { newLaunchState, withEvent, type LAUNCH_STEPS, type LaunchState } from '../../core/task/launch';
import type { Task } from '../../core/task/types';
import { PowerOnLocks } from '../platforms/powerLock';
import { SshPool } from '../pool';
import { acquire } from './acquire';
import { endRefusedUpFront } from './endCheck';
import { ENGLISH } from '../../core/l10n';
import { AcquireError } from './boxes';
import { check } from './check';
import { LaunchRun, type LaunchHost, type LaunchOptions } from './context';
import { end } from './end';
import { reconnectOrReclaim } from './reclaim';
import { endActionOf, errText, isFinished, onBox } from './rules';
import { setup } from './setup';
import { start } from './start';
import { lockLaunch, readState, statePath } from './store';
import { push } from './upload';
import { watch } from './watch';

export type { LaunchHost, LaunchOptions } from './context';
export { isFinished } from './rules';

export class LaunchError extends Error {
  constructor(
    readonly code: 'inProgress' | 'busy' | 'nothingToResume' | 'taskChanged' | 'endRefused',
    message: string,
  ) {
    super(message);
  }
}

export function taskDigest(task: Task): string {
  return createHash('sha256').update(JSON.stringify(task)).digest('hex').slice(0, 32);
}

export async function launchTask(o: LaunchOptions, host: LaunchHost): Promise<LaunchState> {
  const now = host.now ?? (() => Date.now() / 1000);
  const task = o.task;
  // A task with matrix: is a sweep (sweep.ts drives one launch per run); launched as one task its {lr} would reach the shell as written.
  if (task.sweep) throw new Error(`${task.name} is a sweep (matrix: ${task.sweep.matrix.map(([k]) => k).join(', ')}): run it with gpu-rent launch, which launches each of its runs`);
  const path = statePath(host.configHome, o.file, task.name);
  const lock = lockLaunch(path);
  if ('busy' in lock) throw new LaunchError('busy', `another gpu-rent (pid ${lock.busy.pid}) is driving the launch of ${task.name} now`);
  const pool = new SshPool();
  const locks = new PowerOnLocks();
  const digest = taskDigest(task);
  let s: LaunchState;
  try {
    const earlier = await readState(path);
    if (earlier && !isFinished(earlier)) {
      if (!o.resume) throw new LaunchError('inProgress', `a launch of ${task.name} is in progress (${earlier.phase}${earlier.box ? ` on ${earlier.box.label}` : ''}): continue it with --resume, or see it with --status`);
      if (earlier.taskDigest !== digest && earlier.phase !== 'acquire') {
        s = withEvent(earlier, now(), 'the task file changed since this launch started; continuing with the new one');
      } else s = earlier;
    } else if (o.resume) {
      throw new LaunchError('nothingToResume', earlier ? `the launch of ${task.name} has ended (${earlier.outcome?.kind ?? earlier.phase}); start it again without --resume` : `no launch of ${task.name} to resume`);
    } else s = newLaunchState({ task: task.name, file: o.file, taskDigest: digest, smoke: o.smoke, now: now() });
    s = { ...s, taskDigest: digest };
    const accounts = await host.accounts();
    // An end action that cannot happen is refused before anything is rented, pushed or run (a launch in progress already passed this).
    if (s.phase === 'acquire' && !s.box && !s.boxes.length) {
      const refused = endRefusedUpFront(task, accounts, host.l10n ?? ENGLISH);
      if (refused) throw new LaunchError('endRefused', refused);
    }
    const r = new LaunchRun(o, host, s, path, pool, locks, accounts, now);
    await r.save(o.resume ? r.l10n.t('resumed at {0}', r.s.phase) : o.smoke ? r.l10n.t('launch of {0} (smoke test) started', task.name) : r.l10n.t('launch of {0} started', task.name));
    await drive(r);
    return r.s;
  } finally {
    pool.dispose();
    lock.release();
  }
}

/** One step after the other until the launch has ended (after a restart: the boxes again first). */
async function drive(r: LaunchRun): Promise<void> {
  for (let guard = 0; guard < 1000 && !isFinished(r.s); guard++) {
    if (r.host.signal?.aborted) throw new Error('cancelled: the launch state is kept; continue with --resume');
    const p = r.s.phase as (typeof LAUNCH_STEPS)[number];
    try {
      if (p === 'acquire') await acquire(r);
      else {
        if (!r.live && !(await reconnectOrReclaim(r, p))) continue;
        if (isFinished(r.s)) break;
        if (p === 'check') await check(r);
        else if (p === 'push') await push(r);
        else if (p === 'setup') await setup(r);
        else if (p === 'run') await start(r);
        else if (p === 'watch') await watch(r);
        else if (p === 'end') await end(r);
      }
    } catch (e) {
      if (e instanceof AcquireError) await (e.code === 'endRefused' ? r.finish('refused', e.message) : r.finish('noBox', e.message));
      else if (r.host.signal?.aborted) throw e;
      else if (r.s.phase === 'watch' || r.s.phase === 'run') throw e;
      else if (r.live && p !== 'end' && r.s.phase !== 'end' && !isFinished(r.s)) {
        // A box is held: the end step still runs (the final sync, then the end action), so a failed step never leaves it billing.
        r.stopReason = { kind: 'failed', detail: `${p}: ${errText(e)}` };
        await r.phase('end', r.stopReason.detail);
      } else await r.finish('failed', `${p}: ${errText(e)}`);
    }
  }
}

/** The state of task `name` from the task file `file`, or undefined when it never launched. */
export function launchStatus(configHome: string, file: string, name: string): Promise<LaunchState | undefined> {
  return readState(statePath(configHome, file, name));
}

export { statePath } from './store';
export const _forTests = { onBox, endActionOf, join };
