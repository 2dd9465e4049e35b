// The watch step: one poll every pollMs until the run ends. Each poll reads the job's state (a
// box that does not answer: reclaim.ts decides), another node's end, the log's progress (step,
// loss, ETA, ¥ to finish), a spot box's reclaim, the periodic verified checkpoint sync, the
// smoke stop and the budget cap.
import { formatCny } from '../../core/money';
import { estimateFinish, type RunPrice } from '../../core/progress';
import { smokeReached, spentFen } from '../../core/task/launch';
import { isRemoteError } from '../../remote/errors';
import { listJobs, type JobInfo } from '../../remote/jobs';
import { LogTail } from '../runs/logTail';
import { multiNodeJobs } from '../runs/multinode';
import { syncCheckpoints } from './checkpoints';
import type { LaunchRun } from './context';
import { finishRun, stopRun } from './end';
import { spotReclaimed, unreachable } from './reclaim';
import { deadNode, errText, jobVerdict, nodeEnd, sayProgress } from './rules';

/** What the boxes cost to run on, for the ETA's cost to finish (a spot box: its sync cadence sizes the rework). */
function price(r: LaunchRun): RunPrice | null {
  const b = r.burn;
  return b === null ? null : { computeFenPerHour: b, storageFenPerDay: 0, ...(r.s.box?.spot && r.task.checkpoints ? { spot: { syncIntervalSeconds: r.task.checkpoints.everySeconds } } : {}) };
}

export async function watch(r: LaunchRun): Promise<void> {
  const live = r.live!;
  const pollMs = r.host.pollMs ?? 5000;
  const every = r.task.checkpoints?.everySeconds;
  if (!r.lastSyncAt) r.lastSyncAt = r.s.lastSync?.at ?? r.now();
  for (;;) {
    if (r.host.signal?.aborted) throw new Error('cancelled: the run goes on on the box; continue with --resume');
    let job: JobInfo | undefined;
    try {
      job = (await listJobs(live.conn, { name: r.task.name, timeoutMs: 20000 }))[0];
      r.unreachableSince = undefined;
    } catch (e) {
      if (!isRemoteError(e)) throw e;
      if (await unreachable(r, e, pollMs)) return;
      continue;
    }
    const v = jobVerdict(job, !!r.stopReason);
    if (v.kind === 'finish') return finishRun(r, v.outcome, v.detail, v.exitCode);
    if (v.kind === 'end') return r.phase('end');
    // Another node's run ended while rank 0 goes on: the run cannot finish; stop them all.
    if (r.others.length) {
      const states = await multiNodeJobs(r.runNodes().slice(1), r.task.name).catch(() => []);
      const dead = deadNode(states);
      if (dead) return stopRun(r, 'runFailed', `${dead.label} ended its part of the run (${nodeEnd(dead.job!)}): the others were stopped`);
    }
    r.tail ??= new LogTail(job!.logPath);
    const u = await r.tail.update(live.conn).catch(() => undefined);
    const progress = u?.progress ?? r.tail.progress;
    const f = estimateFinish(progress, price(r), { boxNow: u?.chunk.boxNow ?? r.now(), localNow: r.now(), alive: true });
    const spent = spentFen(r.s, r.now());
    const line = `watch: ${progress.step !== null ? `step ${progress.step}${progress.total !== null ? `/${progress.total}` : ''}` : 'no progress line yet'}${progress.loss !== null ? ` · loss ${progress.loss}` : ''}${f.etaSeconds !== null ? ` · ETA ${Math.round(f.etaSeconds / 60)} min` : ''}${f.costToFinishFen !== null ? ` · ${formatCny(f.costToFinishFen)} to finish` : ''} · spent ${spent.unknown ? '?' : formatCny(spent.fen)}`;
    // The first reading with a step is said at once (a first poll before any bar must not hold it back 30 s).
    const say = sayProgress(r.s.progress, progress, r.lastLineAt, r.now());
    if (say) r.lastLineAt = r.now();
    await r.save(say ? line : undefined, { progress: { step: progress.step, total: progress.total, etaSeconds: f.etaSeconds, costToFinishFen: f.costToFinishFen, loss: progress.loss } });
    if (await spotReclaimed(r, live)) return;
    if (every !== undefined && r.now() - r.lastSyncAt >= every) await syncCheckpoints(r, false).catch((e: unknown) => r.save(`sync: failed: ${errText(e)}`));
    const running = r.now() - (r.s.job?.startedAt ?? r.now());
    const smoke = r.s.smoke ? smokeReached(r.task.smoke, { step: progress.step, runningSeconds: running }) : null;
    if (smoke) return stopRun(r, 'smoke', `smoke test done: ${smoke === 'steps' ? `${progress.step} steps` : `${Math.round(running)} s`} ran; the full run is \`gpu-rent launch\` without --smoke`);
    if (await r.budgetStops(f.costToFinishFen)) return stopRun(r, 'budget', r.stopReason!.detail);
    await r.sleep(pollMs);
  }
}
