// Where a launch's state lives: <config home>/launches/<task>-<digest of the task file path>.json,
// written atomically (a crash leaves the old state, never half of it) and read back through its
// schema. One process drives a launch at a time: a lock file beside it (O_EXCL, the pid inside;
// a lock left by a process that is gone is taken over).
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LaunchStateSchema, type LaunchState } from '../../core/task/launch';
import { writeFileAtomic } from '../atomicWrite';
import { acquireFileLock, fileLockHolder, type Release } from '../platforms/powerLock';

const MAX_STATE_BYTES = 1024 * 1024;

export class LaunchStateError extends Error {
  constructor(
    readonly path: string,
    readonly problem: 'unreadable' | 'tooLarge' | 'notJson' | 'invalid',
    detail: string,
  ) {
    super(`the launch state ${path} is ${problem === 'invalid' ? 'not a launch state' : problem}: ${detail}. It was left as it is; move it away to start the launch afresh`);
  }
}

export function launchesDir(configHome: string): string {
  return join(configHome, 'launches');
}

/** The state file of task `name` from the task file at `file` (absolute). */
export function statePath(configHome: string, file: string, name: string): string {
  const key = createHash('sha256').update(file).digest('hex').slice(0, 12);
  return join(launchesDir(configHome), `${name}-${key}.json`);
}

export async function readState(path: string): Promise<LaunchState | undefined> {
  let text: string;
  try {
    const buf = await readFile(path);
    if (buf.length > MAX_STATE_BYTES) throw new LaunchStateError(path, 'tooLarge', `${buf.length} bytes`);
    text = buf.toString('utf8');
  } catch (e) {
    if (e instanceof LaunchStateError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LaunchStateError(path, 'unreadable', (e as Error).message);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new LaunchStateError(path, 'notJson', (e as Error).message.slice(0, 200));
  }
  const r = LaunchStateSchema.safeParse(json);
  if (!r.success) throw new LaunchStateError(path, 'invalid', r.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return r.data;
}

export async function writeState(path: string, s: LaunchState): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, JSON.stringify(s, null, 1) + '\n', { mode: 0o600 });
}

/** The launch's lock, or who holds it. */
export function lockLaunch(path: string): { release: Release } | { busy: { pid: number; what: string } } {
  return acquireFileLock(join(path, '..'), `launch:${path}`, 'launch');
}

/** Whether a live gpu-rent (a terminal's launch, a window's Run Task) drives the launch of this state file now (its lock, read without taking it). */
export function launchDriven(path: string): boolean {
  return fileLockHolder(join(path, '..'), `launch:${path}`) !== undefined;
}
