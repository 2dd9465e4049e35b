// Ending the run and turning the meter off. stopRun / finishRun choose the outcome and move to
// the end step; the end step runs the end action on every box, rank 0 first (its verified
// checkpoint sync before any power action; a failed sync stops the power actions of all), then
// a release when the task asks for one, and records whether a box keeps billing.
import { formatCny } from '../../core/money';
import type { Instance } from '../../core/instances';
import { powerOffModeFor } from '../../core/platforms/billing';
import type { LaunchBox, LaunchOutcome } from '../../core/task/launch';
import { stopJob } from '../../remote/jobs';
import { TARGET, waitForState } from '../platforms/settle';
import { boxPowerOffCommand, powerOffFromBox, probeBoxPower } from '../runs/boxPower';
import { runEndAction, type EndActionResult, type PowerActions } from '../runs/endAction';
import { stopMultiNode } from '../runs/multinode';
import { syncCheckpoints } from './checkpoints';
import type { LaunchRun } from './context';
import { endActionFor, endReason, endTally, errText, ranNothing } from './rules';

/** Stops the run on the box(es) for `kind` (the checkpoints home first), then the end step. */
export async function stopRun(r: LaunchRun, kind: LaunchOutcome, detail: string): Promise<void> {
  r.stopReason = { kind, detail };
  // The checkpoints come home before the run is stopped (the end's verified sync follows).
  if (r.task.checkpoints) await syncCheckpoints(r, false).catch(() => undefined);
  if (r.others.length) await stopMultiNode(r.runNodes(), r.task.name, { graceSeconds: 10 }).catch((e: unknown) => r.save(`stop: ${errText(e)}`));
  else await stopJob(r.live!.conn, r.task.name, { graceSeconds: 10 }).catch((e: unknown) => r.save(`stop: ${errText(e)}`));
  return r.phase('end', `stopping the run: ${detail}`);
}

/** The run ended by itself: the end step, with this outcome unless one was chosen already. */
export async function finishRun(r: LaunchRun, kind: LaunchOutcome, detail: string, exitCode: number | null): Promise<void> {
  r.stopReason ??= { kind, detail, exitCode };
  return r.phase('end', detail);
}

function settleOptions(r: LaunchRun) {
  return { deadlineMs: r.host.settleMs ?? 300_000, intervalMs: r.host.settleIntervalMs ?? 3000 };
}

/** The platform's power actions on a platform box (each waits for the state it asked for); none for an SSH login or a read-only account. */
function platformPower(r: LaunchRun, b: LaunchBox | undefined): PowerActions | undefined {
  const a = b?.kind === 'platform' ? r.account(b.account) : undefined;
  if (!a || !b?.ref || !a.powerActions) return undefined;
  const ref = b.ref;
  const o = settleOptions(r);
  return {
    kind: a.connector.kind,
    powerOff: async () => {
      await a.connector.powerOff(ref, powerOffModeFor(a.connector.kind));
      const w = await waitForState(a.connector, ref, TARGET.powerOff, o);
      if (!w.settled) throw new Error(`the platform accepted the power-off but reports ${w.last?.state ?? '?'}`);
    },
    noGpu: async () => {
      await a.connector.powerOff(ref, 'keep');
      const off = await waitForState(a.connector, ref, TARGET.powerOff, o);
      if (!off.settled) throw new Error(`the platform accepted the power-off but reports ${off.last?.state ?? '?'}`);
      await a.connector.powerOn(ref, 'noGpu');
      const w = await waitForState(a.connector, ref, TARGET.powerOnNoGpu, o);
      if (!w.settled) throw new Error(`the platform accepted the no-GPU start but reports ${w.last?.state ?? '?'}`);
    },
  };
}

export async function end(r: LaunchRun): Promise<void> {
  const reason = endReason(r.stopReason, r.s.outcome);
  const nothing = ranNothing(reason, r.s);
  const action = endActionFor(r.task, nothing);
  const results: EndActionResult[] = [];
  if (r.live) {
    const records = [r.s.box, ...(r.s.nodes ?? [])];
    for (const [rank, live] of r.all.entries()) {
      // Rank 0 holds the checkpoints; the other nodes act only once its sync is verified.
      const first = rank === 0;
      if (!first && results[0] && !results[0].ok && results[0].stopped === 'syncFailed') break;
      const power = platformPower(r, records[rank]);
      const boxCmd = action === 'sync-then-power-off' && !power ? boxPowerOffCommand((await probeBoxPower(live.conn).catch(() => ({ power: 'unknown' as const }))).power) : null;
      const inst = { id: r.others.length ? `${r.task.name} rank ${rank}` : r.task.name, intervals: [] } as unknown as Instance;
      const res = await runEndAction(action, inst, {
        // Nothing ran (a red doctor): there is nothing of this launch's on the box to bring home.
        sync: async () => (nothing || !r.task.checkpoints ? { ok: true, files: 0, bytes: 0, detail: 'nothing to sync: the run did not start' } : first ? syncCheckpoints(r, true) : { ok: true, files: 0, bytes: 0, detail: 'the checkpoints come from rank 0 (verified)' }),
        power,
        ...(boxCmd ? { powerOffFromBox: () => powerOffFromBox(live.conn, boxCmd, { verifySeconds: r.host.powerVerifySeconds ?? 120, pollMs: 1000 }) } : {}),
        log: () => undefined,
      });
      results.push(res);
      const on = r.others.length ? ` (${live.box.label})` : '';
      for (const st of res.steps) if (first || st.step !== 'sync') await r.save(`end${on}: ${st.step} ${st.ok ? 'ok' : 'FAILED'}${'via' in st ? ` (${st.via})` : ''}: ${st.detail}`);
      if (r.task.end === 'release' && res.ok) await release(r, records[rank]);
    }
  }
  const { ok, stillBilling } = endTally(results, action, r.live ? r.all.length : 0);
  const billing = stillBilling ? ` The box${r.others.length ? 'es keep' : ' keeps'} billing${r.burn !== null ? ` ${formatCny(r.burn)}/h` : ''}: power ${r.others.length ? 'them' : 'it'} off yourself (gpu-rent power-off or the console).` : '';
  await r.save(undefined, { end: { action: r.task.end, ok, stillBilling, detail: (results.length ? results.flatMap((x) => x.steps.map((y) => `${y.step}: ${y.ok ? 'ok' : 'failed'}`)).join(', ') : 'no connection to the box') + billing } });
  return r.finish(reason.kind, reason.detail + billing, reason.exitCode);
}

/** Releases a platform box the end left powered (confirmed unless `yes`); an SSH login or a read-only account: said, nothing done. */
async function release(r: LaunchRun, b: LaunchBox | undefined): Promise<void> {
  const a = b?.kind === 'platform' ? r.account(b.account) : undefined;
  if (!b || !a || !b.ref) return r.save('end: release: an SSH login cannot be released from here; release it in the platform console (the checkpoints are home)');
  if (!a.powerActions) return r.save(`end: release: account ${a.id} is read-only; nothing released`);
  if (!r.o.yes && !(await r.host.confirmRelease?.(b.label))) return r.save(`end: release: not confirmed; ${b.label} is kept (it keeps billing its disk)`);
  await a.connector.release(b.ref);
  const w = await waitForState(a.connector, b.ref, TARGET.release, settleOptions(r));
  return r.save(`end: release: ${w.settled ? 'released (the platform reports it)' : `sent, but the platform reports ${w.last?.state ?? '?'}`}`);
}
