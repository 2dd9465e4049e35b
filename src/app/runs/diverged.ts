// A run whose training loss came out NaN or ±Inf (core's Progress.diverged) keeps billing for
// nothing. Both front ends decide the same way here: one notice per divergence (again only
// after it recovered and diverged anew), and with gpuRent.training.onDiverged on, after N loss
// readings in a row that were not finite: stop the run, then the end action (verified
// checkpoint sync first, the power action only after it; app/runs/endAction.ts).
import type { Diverged, EndAction } from '../../core/progress';
import type { RemoteConnection } from '../../remote/connection';
import { stopJob, type JobInfo } from '../../remote/jobs';

export const ON_DIVERGED = ['off', 'stop', 'stopThenNoGpu', 'stopThenPowerOff'] as const;
export type OnDiverged = (typeof ON_DIVERGED)[number];
export const DEFAULT_DIVERGED_READINGS = 20;
export const MAX_DIVERGED_READINGS = 100_000;

export interface DivergedPolicy {
  onDiverged: OnDiverged;
  /** Non-finite loss readings in a row before the run is stopped. */
  readings: number;
}

export const isOnDiverged = (v: unknown): v is OnDiverged => typeof v === 'string' && (ON_DIVERGED as readonly string[]).includes(v);

/** The settings' raw values as a policy: anything unknown is off, the count a whole number in 1…100000 (default 20). */
export function divergedPolicyOf(onDiverged: unknown, readings: unknown): DivergedPolicy {
  const n = typeof readings === 'number' && Number.isFinite(readings) ? Math.floor(readings) : DEFAULT_DIVERGED_READINGS;
  return { onDiverged: isOnDiverged(onDiverged) ? onDiverged : 'off', readings: Math.min(MAX_DIVERGED_READINGS, Math.max(1, n)) };
}

/**
 * The end action a diverged stop runs: the setting's power action where it names one; for a
 * plain `stop`, the run's own end action (chosen when it started), at least the checkpoint
 * sync where sync folders are set, so stopping never loses the checkpoints written so far.
 */
export function divergedEndAction(onDiverged: OnDiverged, own: EndAction, hasSyncFolders: boolean): EndAction {
  if (onDiverged === 'stopThenNoGpu') return 'sync-then-no-gpu';
  if (onDiverged === 'stopThenPowerOff') return 'sync-then-power-off';
  if (own !== 'nothing') return own;
  return hasSyncFolders ? 'sync' : 'nothing';
}

/** What was already done about one run's divergence, by the divergence's first reading (`since`, `step`). */
export interface DivergedMemo {
  notified: string | null;
  acted: string | null;
}

export interface DivergedStep {
  /** A divergence not yet told about: tell the user, once. */
  notify: boolean;
  /** The policy's count is reached (and the setting is on): stop the run now, once. */
  stop: boolean;
  /** The loss is finite again after a divergence that was told about. */
  recovered: boolean;
  memo: DivergedMemo;
}

const episodeOf = (d: Diverged) => `${d.since}:${d.step ?? ''}`;

/** One read's decision. Pure: the memo in, the next memo out. */
export function divergedStep(d: Diverged | null, policy: DivergedPolicy, memo: DivergedMemo = { notified: null, acted: null }): DivergedStep {
  if (!d) return { notify: false, stop: false, recovered: memo.notified !== null, memo: { notified: null, acted: memo.acted } };
  const ep = episodeOf(d);
  const notify = memo.notified !== ep;
  // A run is stopped once: the stop ends it, and a failed stop is not retried every poll.
  const stop = policy.onDiverged !== 'off' && d.readings >= policy.readings && memo.acted === null;
  return { notify, stop, recovered: false, memo: { notified: ep, acted: stop ? ep : memo.acted } };
}

/** The memos of every watched run (bounded: a long session with many runs cannot grow it without end). */
export class DivergedRuns {
  private readonly memos = new Map<string, DivergedMemo>();
  constructor(private readonly max = 1000) {}

  observe(instanceId: string, jobId: string, d: Diverged | null, policy: DivergedPolicy): DivergedStep {
    const k = `${instanceId}\u0000${jobId}`;
    const s = divergedStep(d, policy, this.memos.get(k));
    this.memos.delete(k);
    if (s.memo.notified !== null || s.memo.acted !== null) this.memos.set(k, s.memo);
    while (this.memos.size > this.max) this.memos.delete(this.memos.keys().next().value!);
    return s;
  }

  forget(instanceId: string, jobId: string): void {
    this.memos.delete(`${instanceId}\u0000${jobId}`);
  }
}

export interface DivergedStop {
  /** The job's record after the stop; `stopped` false when it still runs (then nothing else may happen). */
  job: JobInfo;
  stopped: boolean;
}

/** Stops the diverged run (TERM to its process group, KILL after the grace time) and says whether it is gone. */
export async function stopDivergedRun(conn: RemoteConnection, jobId: string, opts: { graceSeconds?: number } = {}): Promise<DivergedStop> {
  const job = await stopJob(conn, jobId, { graceSeconds: opts.graceSeconds ?? 10 });
  return { job, stopped: job.state === 'exited' || job.state === 'lost' };
}

/** The hourly cost while the run burns: the compute rate and the disk's daily rate per hour (fen). */
export function burningFenPerHour(price: { computeFenPerHour: number; storageFenPerDay: number } | null): number | null {
  return price ? price.computeFenPerHour + price.storageFenPerDay / 24 : null;
}
