// A box taken back: a spot box the platform no longer runs, one whose metadata service announced
// its reclaim, or a spot login silent for the task's reclaim_after. Its checkpoints come home
// when they still can, it is marked left, and the launch goes back to acquire on the next
// candidate (the run resumes from the last verified checkpoint).
import { isRemoteError } from '../../remote/errors';
import { platformStateOf } from './boxes';
import { syncCheckpoints } from './checkpoints';
import { poolKey, type LaunchRun, type Live } from './context';
import { reconnect } from './acquire';
import { errText, reclaimDue } from './rules';
import { readSpotNotice } from './spotNotice';
import type { LaunchPhase } from '../../core/task/launch';

/** The box is gone (the platform says so, or a spot login stopped answering): relaunch from the last checkpoint. */
export async function reclaimed(r: LaunchRun, why: string): Promise<void> {
  const b = r.s.box!;
  await r.save(`reclaimed: ${b.label} ${why}; ${r.s.lastSync?.checkpoint ? `the last verified checkpoint is ${r.s.lastSync.checkpoint}` : 'no checkpoint was synced yet: the run starts over'}`, { boxes: [...r.s.boxes, { ...b, leftAt: r.now(), leftBecause: 'reclaimed' }], box: undefined, recoveries: r.s.recoveries + 1, setupDone: false });
  if (r.live) r.pool.invalidate(poolKey(r.live.box));
  r.live = undefined;
  r.tail = undefined;
  r.unreachableSince = undefined;
  r.spotService = true;
  return r.phase('acquire', `recovery #${r.s.recoveries}: relaunching on the next instance`);
}

/**
 * After a restart: the box again. A spot box the platform no longer runs, or a spot login
 * silent for reclaim_after, is reclaimed (the run relaunches); false = try again later.
 */
export async function reconnectOrReclaim(r: LaunchRun, p: LaunchPhase): Promise<boolean> {
  const b = r.s.box;
  const running = p === 'watch' || p === 'run';
  if (b?.kind === 'platform' && running) {
    const st = await platformStateOf(r.account(b.account), b.ref, r.host.signal);
    if (st === 'gone' && b.spot) {
      await reclaimed(r, 'is no longer running (the platform says so)');
      return false;
    }
  }
  try {
    await reconnect(r);
    r.unreachableSince = undefined;
    return true;
  } catch (e) {
    if (!isRemoteError(e) || !b?.spot || !running) throw e;
    r.unreachableSince ??= r.now();
    if (reclaimDue(r.unreachableSince, r.now(), r.task.reclaimAfterSeconds)) await reclaimed(r, `has not answered SSH for ${Math.round(r.now() - r.unreachableSince)} s (spot)`);
    else {
      await r.save(`resume: ${b.label} does not answer (${errText(e)}); trying again`);
      await r.sleep(r.host.pollMs ?? 5000);
    }
    return false;
  }
}

/**
 * The watch could not reach the box (`e`, a remote error): reclaimed when the platform says it
 * is gone or a spot box stayed silent for reclaim_after (true: the watch ends), else said and
 * waited for (false: poll again).
 */
export async function unreachable(r: LaunchRun, e: unknown, pollMs: number): Promise<boolean> {
  r.unreachableSince ??= r.now();
  const gone = r.s.box?.kind === 'platform' ? await platformStateOf(r.account(r.s.box?.account), r.s.box?.ref) : 'unknown';
  if (gone === 'gone') {
    await reclaimed(r, 'is no longer running (the platform says so)');
    return true;
  }
  if (r.s.box?.spot && reclaimDue(r.unreachableSince, r.now(), r.task.reclaimAfterSeconds)) {
    await reclaimed(r, `has not answered SSH for ${Math.round(r.now() - r.unreachableSince)} s (spot)`);
    return true;
  }
  await r.save(`watch: the box does not answer (${errText(e)}); trying again`);
  await r.sleep(pollMs);
  return false;
}

/**
 * A spot box's reclaim seen while it answers: the box's own notice (阿里云 metadata; the
 * checkpoints come home now, then the run moves) or the platform taking it back. True: reclaimed.
 */
export async function spotReclaimed(r: LaunchRun, live: Live): Promise<boolean> {
  if (r.s.box?.spot && r.spotService) {
    const n = await readSpotNotice(live.conn, r.host.spotMetadataHost, r.host.signal).catch(() => ({ kind: 'none' as const }));
    if (n.kind === 'noService') {
      r.spotService = false;
      await r.save('spot: this box has no reclaim notice service; a reclaim is seen when the platform or the box stops answering');
    } else if (n.kind === 'notice') {
      await r.save(`spot: the platform announced the reclaim of ${r.s.box.label} at ${n.at}: syncing the checkpoints now`);
      if (r.task.checkpoints) await syncCheckpoints(r, false).catch((e: unknown) => r.save(`sync: failed: ${errText(e)}`));
      await reclaimed(r, `announced its reclaim at ${n.at}`);
      return true;
    }
  }
  // Platform: a spot box the platform took back.
  if (r.s.box?.kind === 'platform' && r.s.box.spot) {
    const st = await platformStateOf(r.account(r.s.box?.account), r.s.box?.ref);
    if (st === 'gone') {
      if (r.task.checkpoints) await syncCheckpoints(r, false).catch(() => undefined);
      await reclaimed(r, 'was taken back by the platform');
      return true;
    }
  }
  return false;
}
