// Ending the run and turning the meter off. stopRun / finishRun choose the outcome and move to
// the end step; the end step runs the end action on every box, rank 0 first (its verified
// checkpoint sync before any power action; a failed sync stops the power actions of all), then
// a release when the task asks for one, and records whether a box keeps billing.
import { formatCny } from '../../core/money';
import type { Instance } from '../../core/instances';
import { powerOffModeFor } from '../../core/platforms/billing';
import type { LaunchBox, LaunchOutcome } from '../../core/task/launch';
import { listJobs, stopJob } from '../../remote/jobs';
import { TARGET, waitForState } from '../platforms/settle';
import { boxPowerOffCommand, powerOffFromBox, probeBoxPower } from '../runs/boxPower';
import { runEndAction, type EndActionResult, type PowerActions } from '../runs/endAction';
import { stopMultiNode } from '../runs/multinode';
import { syncCheckpoints } from './checkpoints';
import type { LaunchAccount } from './boxes';
import type { LaunchRun } from './context';
import { endActionFor, endReason, endRefusal, endTally, errText, progressPatch, ranNothing, type StopReason } from './rules';
import type { EndAction, Progress } from '../../core/progress';
import { releaseNeedsStopped } from '../../core/guards/powerOffer';
import { releaseThroughPlatform } from '../platforms/releaseFlow';
import { divergedEndAction } from '../runs/diverged';
import { settleLeftBoxes } from './reclaim';
import { endUnattended, laptopMessage, takeOverEnd, type AwayReport } from './unattended';
import { resolve } from 'node:path';
import { launchRunFacts } from '../../core/ledger/launch';
import { recordRun } from '../ledger';
import type { NotifyEvent } from '../../core/notify/events';
import { spentFen } from '../../core/task/launch';
import { divergedDetail } from './words';

/** Stops the run on the box(es) for `kind` (the checkpoints home first), then the end step. */
export async function stopRun(r: LaunchRun, kind: LaunchOutcome, detail: string): Promise<void> {
  r.stopReason = { kind, detail };
  // The checkpoints come home before the run is stopped (the end's verified sync follows).
  if (r.task.checkpoints) await syncCheckpoints(r, false).catch(() => undefined);
  if (r.others.length) await stopMultiNode(r.runNodes(), r.task.name, { graceSeconds: 10 }).catch((e: unknown) => r.save(`stop: ${errText(e)}`));
  else await stopJob(r.live!.conn, r.task.name, { graceSeconds: 10 }).catch((e: unknown) => r.save(`stop: ${errText(e)}`));
  return r.phase('end', r.l10n.t('stopping the run: {0}', detail));
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
  return platformPowerActions(a, b.ref, settleOptions(r));
}

/** A power-off (or a no-GPU restart) through the account's platform, each waiting for the state it asked for: a launch's end, and a sweep's shared box whose last run never started. */
export function platformPowerActions(a: LaunchAccount, ref: string, o: { deadlineMs: number; intervalMs: number }): Pick<PowerActions, 'kind'> & { powerOff(): Promise<void>; noGpu(): Promise<void> } {
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

/**
 * The run's final figures: the log's last lines read now the run has ended (not the watch's last
 * poll), saved without an ETA or a cost to finish. Undefined when the log cannot be read.
 */
async function finalProgress(r: LaunchRun): Promise<Progress | undefined> {
  const live = r.live;
  if (!live || !r.s.job) return undefined;
  try {
    if (!r.tail) {
      const job = (await listJobs(live.conn, { name: r.task.name, timeoutMs: 20000 }))[0];
      if (!job?.logPath) return undefined;
      r.tail = r.newTail(job.logPath);
    }
    const u = await r.tail.update(live.conn, { maxReads: 8 });
    await r.save(undefined, { progress: progressPatch(u.progress, null, true) });
    return u.progress;
  } catch {
    return undefined;
  }
}

/** The end action a diverged run stopped by the policy runs (as for jobs: app/runs/diverged), else the task's. */
function endActionNow(r: LaunchRun, reason: StopReason, nothing: boolean): EndAction {
  const own = endActionFor(r.task, nothing);
  if (reason.kind !== 'diverged' || !r.divergedStopped || !r.o.diverged) return own;
  const d = divergedEndAction(r.o.diverged.onDiverged, own, !!r.task.checkpoints);
  // The setting's power action only where it can happen on this box (the task's own end was checked at the start).
  const box = r.live?.box;
  const a = box?.kind === 'platform' ? r.account(box.account) : undefined;
  const facts = { ...(a ? { account: { kind: a.connector.kind, powerAllowed: a.powerActions } } : {}), boxPower: 'unknown' as const, probed: false, created: !!box?.created };
  if (d === 'sync-then-no-gpu' && endRefusal('no-gpu', facts)) return own;
  return d;
}

export async function end(r: LaunchRun): Promise<void> {
  // The box's supervisor stands down (the laptop ends the run), or has ended it already while the laptop was away.
  const away = await takeOverEnd(r).catch(() => undefined);
  // The box's own stop (its budget clock, the divergence) killed the job: its reason, not the laptop's "exit 143".
  const boxReason = awayReason(away);
  let reason = endReason(boxReason && (!r.stopReason || r.stopReason.kind === 'runFailed') ? boxReason : (r.stopReason ?? boxReason), r.s.outcome);
  const p = await finalProgress(r);
  const d = p?.diverged ?? r.s.progress?.diverged ?? null;
  // A run that ended with its loss NaN/±Inf did not finish: it diverged (the hours since were paid for nothing).
  if (d && reason.kind === 'finished') reason = { kind: 'diverged', detail: r.l10n.t('{0}; {1}', divergedDetail(d, r.l10n), reason.detail), exitCode: reason.exitCode ?? null };
  else if (d && reason.kind === 'runFailed') reason = { ...reason, detail: r.l10n.t('{0}; {1}', reason.detail, divergedDetail(d, r.l10n)) };
  const nothing = ranNothing(reason, r.s);
  const action = endActionNow(r, reason, nothing);
  const results: EndActionResult[] = [];
  let released = r.task.end !== 'release' || !!r.live;
  const releasing = r.task.end === 'release';
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
      for (const st of res.steps) if (first || st.step !== 'sync') await r.save(`end${on}: ${st.step} ${st.ok ? r.l10n.t('ok') : r.l10n.t('FAILED')}${'via' in st ? ` (${st.via})` : ''}: ${st.detail}`);
      if (releasing && (!res.ok || !(await release(r, records[rank])))) released = false;
    }
    if (releasing && results.length < r.all.length) released = false;
  }
  const tally = endTally(results, action, r.live ? r.all.length : 0);
  // Boxes left earlier (a reclaim, a failed connection) that the platform still runs: powered off now, else they bill on.
  const leftBilling = !(await settleLeftBoxes(r, { powerOff: true }));
  const ok = tally.ok && released && !leftBilling;
  const stillBilling = tally.stillBilling || leftBilling || (r.task.end === 'release' && !released);
  const left = r.s.boxes.filter((b) => b.leftAt === undefined).map((b) => b.label);
  const billing = [
    tally.stillBilling || (releasing && !released) ? r.l10n.t('STILL BILLING: the end action ({0}) did not happen; power the box off yourself (gpu-rent power-off or the console).', r.task.end) + (r.burn !== null ? ` (${formatCny(r.burn)}/h)` : '') : '',
    left.length ? r.l10n.t('STILL BILLING: {0}, left by this launch, still runs on the platform; power it off yourself (gpu-rent power-off or the console).', left.join(', ')) : '',
  ]
    .filter(Boolean)
    .map((x) => ` ${x}`)
    .join('');
  await r.save(undefined, { end: { action: r.task.end, ok, stillBilling, detail: ((results.length ? results.flatMap((x) => x.steps.map((y) => `${y.step}: ${y.ok ? 'ok' : 'failed'}`)).join(', ') : 'no connection to the box') + (r.task.end === 'release' ? `, release: ${released ? 'ok' : 'not done'}` : '') + billing).slice(0, 2000) } });
  await r.finish(reason.kind, reason.detail + billing, reason.exitCode);
  // The ledger (gpu-rent runs): what this run did and cost, once it has ended; a failed write never stops the end.
  await recordLaunch(r).catch((e: unknown) => r.save(`ledger: not recorded: ${errText(e)}`));
  await laptopMessage(r, endEvent(r, reason), away).catch(() => undefined);
  // The supervisor that stood down for this laptop may exit now; the laptop's marks stop.
  await endUnattended(r, away === undefined);
  if (stillBilling && reason.kind !== 'refused') await laptopMessage(r, { kind: 'endActionFailed', task: r.task.name, action: r.task.end === 'none' ? 'power-off' : r.task.end, reason: null, hourlyFen: r.burn, costFen: spentOrNull(r) }, away).catch(() => undefined);
}

/** The ended run into the ledger (app/ledger): task, box, price, steps, speed, loss curve, end, checkpoints, cost. */
async function recordLaunch(r: LaunchRun): Promise<void> {
  const p = r.tail?.progress;
  const spent = spentFen(r.s, r.now());
  const cards = r.task.resources.cards;
  const facts = launchRunFacts(r.s, {
    // A sweep's run (app/launch/sweep.ts): recorded as such, with its matrix values.
    ...(r.task.sweepMember ? { kind: 'sweep' as const, params: r.task.sweepMember.params } : {}),
    command: r.task.run,
    card: cards.length === 1 ? cards[0]! : null,
    gpus: r.task.resources.gpus,
    lossCurve: (p?.lossCurve ?? []).map((x) => ({ step: x.step, loss: x.loss })),
    stepsPerSecond: p?.rate ?? null,
    costFen: spent.unknown ? null : spent.fen,
    checkpointsLocal: r.task.checkpoints ? resolve(r.base, r.task.checkpoints.local) : null,
  });
  if (facts) await recordRun(r.host.ledgerDir ?? r.host.configHome, facts);
}

/** The box ended the run while the laptop was away: its outcome, when the laptop has none of its own. */
function awayReason(away: AwayReport | undefined): StopReason | undefined {
  if (!away?.outcome) return undefined;
  const exit = /exit=(-?\d+)/.exec(away.status.events.find((e) => e.kind === 'run-ended')?.detail ?? '')?.[1];
  const exitCode = exit !== undefined ? Number(exit) : null;
  const detail = `the box says it ended the run while this laptop was away (${away.outcome}${exitCode !== null ? `, exit ${exitCode}` : ''})`;
  switch (away.outcome) {
    case 'finished':
      return { kind: 'finished', detail, exitCode };
    case 'diverged':
      return { kind: 'diverged', detail, exitCode };
    case 'budgetStop':
      return { kind: 'budget', detail, exitCode };
    default:
      return { kind: 'runFailed', detail, exitCode };
  }
}

const spentOrNull = (r: LaunchRun) => {
  const s = spentFen(r.s, r.now());
  return s.unknown ? null : s.fen;
};

/** The end's message event for the launch's outcome. */
function endEvent(r: LaunchRun, reason: StopReason): NotifyEvent {
  const step = r.s.progress?.step ?? null;
  const common = { task: r.task.name, step, totalSteps: r.s.progress?.total ?? null, costFen: spentOrNull(r), instance: r.s.box?.label ?? null };
  switch (reason.kind) {
    case 'finished':
    case 'smoke':
      return { ...common, kind: 'finished', durationSeconds: r.s.job ? Math.max(0, r.now() - r.s.job.startedAt) : null };
    case 'diverged':
      return { ...common, kind: 'diverged', stopped: r.divergedStopped, readings: null };
    case 'budget':
      return { ...common, kind: 'budgetStop', budgetFen: r.task.budgetFen ?? 0 };
    default:
      return { ...common, kind: 'failed', exitCode: reason.exitCode ?? null, causeLine: null };
  }
}

/**
 * Releases a platform box the launch created (confirmed unless `yes`): powered off and seen
 * stopped first where the platform releases only a stopped instance (AutoDL's developer API,
 * 阿里云). Never an instance that existed before the launch (refused at the start; here too), an
 * SSH login or a read-only account's. True when the platform reports it released.
 */
async function release(r: LaunchRun, b: LaunchBox | undefined): Promise<boolean> {
  const a = b?.kind === 'platform' ? r.account(b.account) : undefined;
  const say = async (line: string) => (await r.save(line), false);
  if (!b || !a || !b.ref) return say('end: release: an SSH login cannot be released from here; release it in the platform console (the checkpoints are home)');
  if (!b.created) return say(r.l10n.t('end: release: {0} existed before this launch: a launch releases only an instance it created; nothing released', b.label));
  if (!a.powerActions) return say(`end: release: account ${a.id} is read-only; nothing released`);
  if (!r.o.yes && !(await r.host.confirmRelease?.(b.label))) return say(`end: release: not confirmed; ${b.label} is kept (it keeps billing its disk)`);
  const ref = b.ref;
  const inst = await a.connector.get(ref, r.host.signal).catch(() => undefined);
  const stopFirst = releaseNeedsStopped(a.connector.kind) && inst?.state !== 'stopped';
  const o = settleOptions(r);
  const res = await releaseThroughPlatform(a.connector, ref, { stopFirst, beforeRelease: async () => undefined, onStep: (st) => (st === 'poweringOff' ? void r.save(r.l10n.t('end: release: {0} releases only a stopped instance: powering it off first', a.connector.kind)) : undefined), ...o, ...(r.host.signal ? { signal: r.host.signal } : {}) }).catch((e: unknown) => ({ kind: 'error' as const, e }));
  if (res.kind === 'error') return say(`end: release: FAILED: ${errText(res.e)}`);
  if (res.kind === 'powerOffFailed') return say(`end: release: the power-off before the release FAILED (${errText(res.error)}); nothing released`);
  if (res.kind === 'notStopped') return say(`end: release: the power-off was sent but the platform reports ${res.last?.state ?? '?'}; nothing released`);
  const w = await waitForState(a.connector, ref, TARGET.release, o);
  await r.save(w.settled ? r.l10n.t('end: release: released (the platform reports it)') : r.l10n.t('end: release: sent, but the platform reports {0}', w.last?.state ?? '?'));
  return w.settled;
}
