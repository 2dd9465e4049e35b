// A box taken back: a spot box the platform no longer runs, one whose own reclaim notice the
// platform confirms, or a spot login silent for the task's reclaim_after. Its checkpoints come
// home when they still can, it is marked left, and the launch goes back to acquire on the next
// candidate (the run resumes from the last verified checkpoint).
//
// The box is untrusted: its notice alone never drops a platform instance. The platform is asked;
// while it says the instance runs, the run goes on there. A platform box the launch leaves while
// the platform still runs it (silent past reclaim_after, a connection that failed) is powered off
// (released, where the task ends in release and the launch made it) instead of being left; its
// spend counts until the platform says it stopped, and no new instance is created beside it.
import { powerOffModeFor } from '../../core/platforms/billing';
import { releaseNeedsStopped } from '../../core/guards/powerOffer';
import type { LaunchBox, LaunchPhase } from '../../core/task/launch';
import { isRemoteError } from '../../remote/errors';
import { releaseThroughPlatform } from '../platforms/releaseFlow';
import { TARGET, waitForState } from '../platforms/settle';
import { platformStateOf } from './boxes';
import { syncCheckpoints } from './checkpoints';
import { poolKey, type LaunchRun, type Live } from './context';
import { reconnect } from './acquire';
import { errText, reclaimDue } from './rules';
import { readSpotNotice } from './spotNotice';
import { resumeAfterBoxPowerOff } from './unattended';

function settleOptions(r: LaunchRun) {
  return { deadlineMs: r.host.settleMs ?? 300_000, intervalMs: r.host.settleIntervalMs ?? 3000, ...(r.host.signal ? { signal: r.host.signal } : {}) };
}

/**
 * The record of a box the launch leaves. An SSH login: left now (there is no platform to ask). A
 * platform box: left now when the platform says it is gone; else powered off (released, where
 * the task ends in release and the launch created it) through its account, and left once the
 * platform says it stopped; otherwise it stays without leftAt: still billing, its spend counted.
 */
export async function leaveBox(r: LaunchRun, b: LaunchBox, because: 'reclaimed' | 'failed'): Promise<LaunchBox> {
  const left = (at: number | undefined): LaunchBox => ({ ...b, ...(at !== undefined ? { leftAt: at } : {}), leftBecause: because });
  if (b.kind !== 'platform' || !b.ref) return left(r.now());
  const a = r.account(b.account);
  const st = await platformStateOf(a, b.ref, r.host.signal);
  if (st === 'gone') return left(r.now());
  if (!a || !a.powerActions) {
    await r.save(r.l10n.t('{0} still runs on the platform and account {1} may not power it off: it keeps billing until you power it off (gpu-rent power-off or the console)', b.label, b.account ?? '?'));
    return left(undefined);
  }
  const ref = b.ref;
  try {
    if (r.task.end === 'release' && b.created) {
      const inst = await a.connector.get(ref, r.host.signal).catch(() => undefined);
      const res = await releaseThroughPlatform(a.connector, ref, { stopFirst: releaseNeedsStopped(a.connector.kind) && inst?.state !== 'stopped', beforeRelease: async () => undefined, ...settleOptions(r) });
      if (res.kind !== 'sent') throw new Error(res.kind === 'powerOffFailed' ? `the power-off before the release failed: ${errText(res.error)}` : `not stopped (${res.last?.state ?? '?'})`);
      const w = await waitForState(a.connector, ref, TARGET.release, settleOptions(r));
      if (!w.settled) throw new Error(`the release was sent but the platform reports ${w.last?.state ?? '?'}`);
      await r.save(r.l10n.t('{0} left: released (the platform reports it)', b.label));
    } else {
      await a.connector.powerOff(ref, powerOffModeFor(a.connector.kind), r.host.signal);
      const w = await waitForState(a.connector, ref, TARGET.powerOff, settleOptions(r));
      if (!w.settled) throw new Error(`the platform accepted the power-off but reports ${w.last?.state ?? '?'}`);
      await r.save(r.l10n.t('{0} left: powered off (the platform reports it stopped)', b.label));
    }
    return left(r.now());
  } catch (e) {
    await r.save(r.l10n.t('{0} still runs on the platform and could not be powered off ({1}): it keeps billing; power it off yourself (gpu-rent power-off or the console)', b.label, errText(e)));
    return left(undefined);
  }
}

/**
 * The left boxes that still bill, asked again: those the platform now says stopped stop counting;
 * with `powerOff`, those it still runs are powered off again. True when none bills any more.
 */
export async function settleLeftBoxes(r: LaunchRun, o: { powerOff: boolean }): Promise<boolean> {
  let all = true;
  const boxes = [...r.s.boxes];
  let changed = false;
  for (const [i, b] of boxes.entries()) {
    if (b.leftAt !== undefined) continue;
    const next = o.powerOff ? await leaveBox(r, b, b.leftBecause === 'failed' ? 'failed' : 'reclaimed') : (await platformStateOf(r.account(b.account), b.ref, r.host.signal)) === 'gone' ? { ...b, leftAt: r.now() } : b;
    if (next.leftAt !== undefined) {
      boxes[i] = next;
      changed = true;
    } else all = false;
  }
  if (changed) await r.save(undefined, { boxes });
  return all;
}

/**
 * The box is gone: relaunch from the last checkpoint. `gone`: the platform said so (or an SSH
 * login, which has no platform to ask); otherwise the box is left through leaveBox (powered off
 * where the platform still runs it).
 */
export async function reclaimed(r: LaunchRun, why: string, gone = true): Promise<void> {
  const b = r.s.box!;
  const left = gone ? { ...b, leftAt: r.now(), leftBecause: 'reclaimed' as const } : await leaveBox(r, b, 'reclaimed');
  const cp = r.s.lastSync?.checkpoint;
  await r.save(`${r.l10n.t('reclaimed: {0} {1}', b.label, why)}; ${cp ? r.l10n.t('the last verified checkpoint is {0}', cp) : r.l10n.t('no checkpoint was synced yet: the run starts over')}`, { boxes: [...r.s.boxes, left], box: undefined, recoveries: r.s.recoveries + 1, setupDone: false });
  if (r.live) r.pool.invalidate(poolKey(r.live.box));
  r.live = undefined;
  r.tail = undefined;
  r.unreachableSince = undefined;
  r.spotService = true;
  r.noticeAt = undefined;
  return r.phase('acquire', r.l10n.t('recovery #{0}: relaunching on the next instance', r.s.recoveries));
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
      await reclaimed(r, r.l10n.t('is no longer running (the platform says so)'));
      return false;
    }
  }
  // Close the lid: the box may have ended the run and powered itself off; never power it on with a GPU just to read that.
  if (b?.kind === 'platform' && r.s.unattended?.powerOff) await resumeAfterBoxPowerOff(r);
  try {
    await reconnect(r);
    r.unreachableSince = undefined;
    return true;
  } catch (e) {
    if (!isRemoteError(e) || !b?.spot || !running) throw e;
    r.unreachableSince ??= r.now();
    if (reclaimDue(r.unreachableSince, r.now(), r.task.reclaimAfterSeconds)) await reclaimed(r, r.l10n.t('has not answered SSH for {0} s (spot)', Math.round(r.now() - r.unreachableSince)), b.kind !== 'platform');
    else {
      await r.save(r.l10n.t('resume: {0} does not answer ({1}); trying again', b.label, errText(e)));
      await r.sleep(r.host.pollMs ?? 5000);
    }
    return false;
  }
}

/**
 * The watch could not reach the box (`e`, a remote error): reclaimed when the platform says it
 * is gone or a spot box stayed silent for reclaim_after (true: the watch ends; a platform box the
 * platform still runs is powered off first), else said and waited for (false: poll again).
 */
export async function unreachable(r: LaunchRun, e: unknown, pollMs: number): Promise<boolean> {
  r.unreachableSince ??= r.now();
  const platform = r.s.box?.kind === 'platform';
  const gone = platform ? await platformStateOf(r.account(r.s.box?.account), r.s.box?.ref) : 'unknown';
  if (gone === 'gone') {
    await reclaimed(r, r.l10n.t('is no longer running (the platform says so)'));
    return true;
  }
  if (r.s.box?.spot && reclaimDue(r.unreachableSince, r.now(), r.task.reclaimAfterSeconds)) {
    await reclaimed(r, r.l10n.t('has not answered SSH for {0} s (spot)', Math.round(r.now() - r.unreachableSince)), !platform);
    return true;
  }
  await r.save(r.l10n.t('watch: the box does not answer ({0}); trying again', errText(e)));
  await r.sleep(pollMs);
  return false;
}

/**
 * A spot box's reclaim seen while it answers: the box's own notice (阿里云 metadata; the
 * checkpoints come home now) or the platform taking it back. A platform box's notice is
 * confirmed by the platform before the box is dropped: while the platform says it runs, the run
 * goes on there (the notice may come from the box alone). True: reclaimed.
 */
export async function spotReclaimed(r: LaunchRun, live: Live): Promise<boolean> {
  const platform = r.s.box?.kind === 'platform';
  if (r.s.box?.spot && r.spotService) {
    const n = await readSpotNotice(live.conn, r.host.spotMetadataHost, r.host.signal).catch(() => ({ kind: 'none' as const }));
    if (n.kind === 'noService') {
      r.spotService = false;
      await r.save(r.l10n.t('spot: this box has no reclaim notice service; a reclaim is seen when the platform or the box stops answering'));
    } else if (n.kind === 'notice') {
      const label = r.s.box.label;
      if (r.noticeAt !== n.at) {
        r.noticeAt = n.at;
        await r.save(r.l10n.t('spot: the platform announced the reclaim of {0} at {1}: syncing the checkpoints now', label, n.at));
        if (r.task.checkpoints) await syncCheckpoints(r, false).catch((e: unknown) => r.save(r.l10n.t('sync: failed: {0}', errText(e))));
        if (platform) {
          const st = await platformStateOf(r.account(r.s.box?.account), r.s.box?.ref, r.host.signal);
          if (st !== 'gone') {
            await r.save(r.l10n.t('spot: the platform still reports {0} as {1}: the notice is not confirmed, the run goes on there until the platform takes it back', label, st));
            return false;
          }
        }
        await reclaimed(r, r.l10n.t('announced its reclaim at {0}', n.at));
        return true;
      }
    }
  }
  // Platform: a spot box the platform took back.
  if (platform && r.s.box?.spot) {
    const st = await platformStateOf(r.account(r.s.box?.account), r.s.box?.ref);
    if (st === 'gone') {
      if (r.task.checkpoints) await syncCheckpoints(r, false).catch(() => undefined);
      await reclaimed(r, r.l10n.t('was taken back by the platform'));
      return true;
    }
  }
  return false;
}
