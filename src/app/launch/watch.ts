// The watch step: one poll every pollMs until the run ends. Each poll reads the job's state (a
// box that does not answer: reclaim.ts decides), another node's end, the log's progress (step,
// loss, ETA, ¥ to finish, and a divergence: the loss NaN/±Inf, read by the same run model
// `gpu-rent jobs` uses), a spot box's reclaim, the periodic verified checkpoint sync, the smoke
// stop, the divergence stop (app/runs/diverged's policy) and the budget cap.
import { estimateFinish, type RunPrice } from '../../core/progress';
import { COST_TO_FINISH_CAP_FEN, smokeReached } from '../../core/task/launch';
import { isRemoteError } from '../../remote/errors';
import { listJobs, type JobInfo } from '../../remote/jobs';
import { multiNodeJobs } from '../runs/multinode';
import { divergedStep } from '../runs/diverged';
import { syncCheckpoints } from './checkpoints';
import { laptopAwake } from './unattended';
import type { LaunchRun } from './context';
import { finishRun, stopRun } from './end';
import { settleLeftBoxes, spotReclaimed, unreachable } from './reclaim';
import { deadNode, errText, jobVerdict, nodeEnd, progressPatch, sayProgress } from './rules';
import { divergedDetail, divergedWords, progressText } from './words';

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
      await laptopAwake(r).catch(() => undefined);
    } catch (e) {
      if (!isRemoteError(e)) throw e;
      if (await unreachable(r, e, pollMs)) return;
      continue;
    }
    const v = jobVerdict(job, !!r.stopReason, r.l10n);
    if (v.kind === 'finish') return finishRun(r, v.outcome, v.detail, v.exitCode);
    if (v.kind === 'end') return r.phase('end');
    // Another node's run ended while rank 0 goes on: the run cannot finish; stop them all.
    if (r.others.length) {
      const states = await multiNodeJobs(r.runNodes().slice(1), r.task.name).catch(() => []);
      const dead = deadNode(states);
      if (dead) return stopRun(r, 'runFailed', `${dead.label} ended its part of the run (${nodeEnd(dead.job!)}): the others were stopped`);
    }
    r.tail ??= r.newTail(job!.logPath);
    const u = await r.tail.update(live.conn).catch(() => undefined);
    const progress = u?.progress ?? r.tail.progress;
    const f = estimateFinish(progress, price(r), { boxNow: u?.chunk.boxNow ?? r.now(), localNow: r.now(), alive: true });
    const patch = progressPatch(progress, f, false);
    const over = f.costToFinishFen !== null && patch.costToFinishFen === null ? COST_TO_FINISH_CAP_FEN : undefined;
    const line = r.l10n.t('watch: {0} · {1}', progressText(patch, r.l10n, over !== undefined ? { overCapFen: over } : {}) || r.l10n.t('no progress line yet'), r.spentWords());
    // The divergence, decided as for jobs: said once when it starts (and when it recovers), stopped by the policy after N readings.
    const dv = divergedStep(progress.diverged, r.o.diverged ?? { onDiverged: 'off', readings: 20 }, r.divergedMemo);
    r.divergedMemo = dv.memo;
    // The first reading with a step is said at once (a first poll before any bar must not hold it back 30 s); a divergence at once too.
    const say = sayProgress(r.s.progress, progress, r.lastLineAt, r.now()) || dv.notify || dv.recovered;
    if (say) r.lastLineAt = r.now();
    await r.save(say ? line : undefined, { progress: patch });
    if (dv.notify && progress.diverged) await r.save(`${r.l10n.t('diverged: {0}: the run has diverged and the box keeps billing for nothing', divergedWords(progress.diverged, r.l10n))}${r.o.diverged && r.o.diverged.onDiverged !== 'off' ? ` ${r.l10n.t('(it is stopped after {0} such readings)', r.o.diverged.readings)}` : ''}`);
    if (dv.stop && progress.diverged) {
      r.divergedStopped = true;
      return stopRun(r, 'diverged', divergedDetail(progress.diverged, r.l10n));
    }
    if (await spotReclaimed(r, live)) return;
    // Boxes left while the platform still ran them: they stop counting once the platform says they stopped.
    if (r.s.boxes.some((b) => b.leftAt === undefined)) await settleLeftBoxes(r, { powerOff: false }).catch(() => undefined);
    if (every !== undefined && r.now() - r.lastSyncAt >= every) await syncCheckpoints(r, false).catch((e: unknown) => r.save(r.l10n.t('sync: failed: {0}', errText(e))));
    const running = r.now() - (r.s.job?.startedAt ?? r.now());
    const smoke = r.s.smoke ? smokeReached(r.task.smoke, { step: progress.step, runningSeconds: running }) : null;
    if (smoke) return stopRun(r, 'smoke', r.l10n.t('smoke test done: {0} ran; the full run is `gpu-rent launch` without --smoke', smoke === 'steps' ? r.l10n.t('{0} steps', String(progress.step)) : r.l10n.t('{0} s', Math.round(running))));
    if (await r.budgetStops(f.costToFinishFen)) return stopRun(r, 'budget', r.stopReason!.detail);
    await r.sleep(pollMs);
  }
}
