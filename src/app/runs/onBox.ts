// The on-box side of a run's end action, for when the laptop sleeps: a watchdog of its own
// (~/.gpu-rent/after-job/NAME, apart from the user's idle watchdog) with the "after job N
// ends" trigger. It waits a grace time after the job's end, so a laptop that is awake runs the
// verified sync first and disarms it; otherwise it runs the user's on-box hook (if any) and
// powers off. What it did is read back on the next look.
import type { BoxSession } from '../../remote/guards/session';
import { installWatchdog, removeWatchdog, watchdogStatus, type WatchdogStatus } from '../../remote/guards/watchdog';
import { sanitizeJobName } from '../../remote/jobs';

/** What the box runs to power itself off (AutoDL documents `shutdown` inside an instance as a stop). */
export const BOX_POWER_OFF = 'shutdown -h now 2>/dev/null || poweroff 2>/dev/null || halt';
export const DEFAULT_AFTER_JOB_GRACE_SECONDS = 15 * 60;

export function afterJobDir(job: string): string {
  return `~/.gpu-rent/after-job/${sanitizeJobName(job)}`;
}

export interface ArmOptions {
  /** Shell command that powers the box off (default BOX_POWER_OFF; tests use a stand-in). */
  actionCommand?: string;
  /** The user's on-box final sync (e.g. an upload to object storage); none = power off without one. */
  hookCommand?: string | null;
  hookTimeoutSeconds?: number;
  graceSeconds?: number;
  pollSeconds?: number;
  clockFile?: string | null;
}

export async function armAfterJob(session: BoxSession, job: string, o: ArmOptions = {}): Promise<WatchdogStatus> {
  try {
    return await install(session, job, o);
  } catch (e) {
    // A job that had already ended (past its grace time) fires on the first poll, before the
    // install sees a heartbeat: that is the trigger working, not a failed install.
    const s = await watchdogStatus(session, { dir: afterJobDir(job) }).catch(() => null);
    if (s?.state?.kind === 'fired') return s;
    throw e;
  }
}

function install(session: BoxSession, job: string, o: ArmOptions): Promise<WatchdogStatus> {
  return installWatchdog(
    session,
    {
      pollSeconds: o.pollSeconds ?? 30,
      utilizationThresholdPct: 10,
      idleWindowSeconds: 0,
      watchDirs: [],
      hookCommand: o.hookCommand ?? null,
      hookTimeoutSeconds: o.hookTimeoutSeconds ?? 1800,
      actionCommand: o.actionCommand ?? BOX_POWER_OFF,
      actionIfHookFails: false,
      spotUrl: null,
      clockFile: o.clockFile ?? null,
      afterJobs: [sanitizeJobName(job)],
      afterJobsGraceSeconds: o.graceSeconds ?? DEFAULT_AFTER_JOB_GRACE_SECONDS,
    },
    { dir: afterJobDir(job) },
  );
}

/** The laptop handles the end itself: stop the on-box trigger first (its record is kept). */
export async function disarmAfterJob(session: BoxSession, job: string): Promise<{ wasRunning: boolean }> {
  const r = await removeWatchdog(session, { dir: afterJobDir(job), keepFiles: true });
  return { wasRunning: r.wasRunning };
}

export interface OnBoxOutcome {
  armed: boolean;
  fired: boolean;
  /** job-ended NAME=CODE, hook-exit N, action-exit N, action-skipped … as the box logged them. */
  events: { at: number; kind: string; detail: string }[];
}

/** What the on-box trigger did (shown on the next look after the laptop slept). */
export async function afterJobOutcome(session: BoxSession, job: string): Promise<OnBoxOutcome> {
  const s = await watchdogStatus(session, { dir: afterJobDir(job) });
  return { armed: s.running, fired: s.state?.kind === 'fired', events: s.events.filter((e) => e.kind !== 'armed') };
}
