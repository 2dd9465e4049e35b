// When the poll sees a run end: one notification with the exit code, how long it ran, what it
// cost, the last lines of its log and the cause with what helps; then the run's end action
// (verified final sync first, then the power action) with its result. A run whose end the box
// handled while the laptop slept (the on-box "after job N ends" trigger) is reported as such.
import * as vscode from 'vscode';
import { showError, showInfo, showWarning } from '../notify';
import { formatCny } from '../../core/money';
import { beijingDateTime, storageRateFor } from '../../core/spend';
import { isEndAction, type Diverged, type EndAction } from '../../core/progress';
import type { Instance, JobRef } from '../../core/instances';
import type { RemoteConnection } from '../../remote/connection';
import { runEndAction, type EndActionResult, type PowerActions } from '../../app/runs/endAction';
import type { EndReport } from '../../app/runs/endReport';
import { Commands } from '../commandIds';
import type { CommandContext } from './context';
import { formatDuration, formatRate } from '../view/present';
import { causeText } from '../view/runText';
import { causeLang } from '../../core/progress/causeText';
import { divergedEndLine } from '../words/diverged';
import { stillBillingModal, type StillBillingInput } from '../words/stillBillingText';
import { readState, StateKeysFor, writeState } from '../stateKeys';

/** The end action chosen when the job started (Start Training's `then` or the setting). */
export async function rememberEndAction(ctx: CommandContext, instId: string, jobId: string, action: EndAction): Promise<void> {
  await writeState(ctx.memento, StateKeysFor.endAction(instId, jobId), action === 'nothing' ? undefined : action);
}

/** The run is being stopped because its loss diverged (monitors/diverged.ts): its end report says so. null clears it. */
export async function rememberDivergedStop(ctx: CommandContext, instId: string, jobId: string, d: Pick<Diverged, 'value' | 'readings' | 'step'> | null): Promise<void> {
  await writeState(ctx.memento, StateKeysFor.divergedStop(instId, jobId), d ? { value: d.value, readings: d.readings, step: d.step } : undefined);
}

function divergedStopOf(ctx: CommandContext, instId: string, jobId: string): Pick<Diverged, 'value' | 'readings' | 'step'> | undefined {
  const v = readState(ctx.memento, StateKeysFor.divergedStop(instId, jobId));
  if (!v) return undefined;
  return { value: v.value, readings: v.readings, step: typeof v.step === 'number' ? v.step : null };
}

export function endActionOf(ctx: CommandContext, instId: string, jobId: string): EndAction {
  const v = readState(ctx.memento, StateKeysFor.endAction(instId, jobId));
  return isEndAction(v) ? v : 'nothing';
}

/** The setting gpuRent.training.endAction (default nothing). */
export function defaultEndAction(): EndAction {
  const v = vscode.workspace.getConfiguration('gpuRent').get<string>('training.endAction');
  return isEndAction(v) ? v : 'nothing';
}

/** The power actions of the platform account this instance belongs to, or undefined (then a power-off runs on the box). */
export function powerActionsFor(ctx: CommandContext, inst: Instance): PowerActions | undefined {
  return ctx.platformPower(inst);
}

/** Reports a run that ended and runs its end action. Never throws: failures are shown and logged. */
export async function handleRunEnd(ctx: CommandContext, inst: Instance, conn: RemoteConnection, job: JobRef, stopped: boolean): Promise<void> {
  const { readEndReport } = await import('../../app/runs/endReport');
  const { afterJobOutcome, disarmAfterJob } = await import('../../app/runs/onBox');
  const { powerOffFromBox, boxPowerOffCommand } = await import('../../app/runs/boxPower');
  const { boxPowerOf } = await import('./powerFacts');
  const report = await readEndReport(conn, inst, job, { stopped }).catch((): EndReport => ({ jobId: job.id, exitCode: job.exitCode ?? null, stopped, durationSeconds: null, costFen: null, lastLines: [], cause: null }));
  const progress = ctx.runs.get(inst.id, job.id)?.progress;
  ctx.runs.forget(inst.id, job.id);
  // The ledger of runs (issue 42): recorded whatever the end action does; a failed write is logged only.
  void import('./ledger').then((l) => l.recordStartTraining(inst, job, report, progress, ctx.now())).then((id) => id && ctx.log.info(`[${inst.id}] run ${job.id} recorded in the ledger as ${id}`), (e) => ctx.log.warn(`[${inst.id}] run ${job.id} not recorded in the ledger: ${String(e)}`));
  const diverged = divergedStopOf(ctx, inst.id, job.id);
  if (diverged) await writeState(ctx.memento, StateKeysFor.divergedStop(inst.id, job.id), undefined);
  const action = endActionOf(ctx, inst.id, job.id);
  let result: EndActionResult | undefined;
  let boxDid: string | undefined;
  if (action !== 'nothing') {
    const onBox = await afterJobOutcome(conn, job.id).catch(() => undefined);
    // Times in one zone, said (issue 41 friction): Beijing time, as the platform's own clocks elsewhere in the view.
    if (onBox?.fired) boxDid = onBox.events.map((e) => `${vscode.l10n.t('{0} (Beijing time)', beijingDateTime(e.at).slice(11))} ${e.kind} ${e.detail}`.trim()).join('; ');
    else {
      // The laptop is awake and runs the verified sync itself; the box's own power-off stays
      // armed until the stop is verified (it stands down only when the sync failed: no copy).
      const power = powerActionsFor(ctx, inst);
      const boxCommand = action === 'sync-then-power-off' && !power ? boxPowerOffCommand(await boxPowerOf(ctx, inst, conn)) : null;
      result = await runEndAction(action, inst, {
        sync: async () => {
          if (!inst.sync) return { ok: false, files: 0, bytes: 0, detail: vscode.l10n.t('no checkpoint folders set for {0} (Sync Checkpoints Now sets them)', inst.name) };
          const s = await ctx.syncCheckpoints({ id: inst.id });
          if (!s) return { ok: false, files: 0, bytes: 0, detail: 'cancelled' };
          const ok = !s.interrupted && s.skipped.length === 0;
          return { ok, files: s.files, bytes: s.bytes, detail: ok ? `${s.files} pulled, ${s.unchanged + s.verified} already here, verified` : s.interrupted ? 'interrupted' : `${s.skipped.length} skipped` };
        },
        power,
        ...(boxCommand ? { powerOffFromBox: () => powerOffFromBox(conn, boxCommand, { log: (l) => ctx.log.info(`[${inst.id}] ${l}`) }) } : {}),
        log: (l) => ctx.log.info(l),
      });
      if (result.stopped === 'syncFailed' && onBox?.armed) await disarmAfterJob(conn, job.id).catch((e) => ctx.log.warn(`[${inst.id}] could not disarm the on-box trigger: ${String(e)}`));
      await writeState(ctx.memento, StateKeysFor.endAction(inst.id, job.id), undefined);
      if (result.stillBilling) void stillBilling(ctx, inst, job, result, !!onBox?.armed && result.stopped !== 'syncFailed');
    }
  }
  show(ctx, inst, job, report, action, result, boxDid, diverged);
}

function actionText(action: EndAction, r: EndActionResult | undefined, boxDid: string | undefined): string {
  if (boxDid) return vscode.l10n.t('The box handled the end itself while this window was away: {0}', boxDid);
  if (!r || action === 'nothing') return '';
  const sync = r.steps.find((s) => s.step === 'sync');
  const power = r.steps.find((s) => s.step !== 'sync');
  if (r.stopped === 'syncFailed') return vscode.l10n.t('Final sync failed ({0}): the instance was NOT powered off and keeps billing.', sync?.detail ?? '?');
  if (r.stopped === 'noWayToPower') return vscode.l10n.t('Final sync done ({0}). No-GPU mode needs the platform account connected; switch it in the console.', sync?.detail ?? '');
  // The still-billing dialog that follows says why: the notice does not say it a second time (issue 41 bug 8).
  if (power && !power.ok) return r.stillBilling ? vscode.l10n.t('Final sync done; the power action did NOT happen (the dialog says why).') : vscode.l10n.t('Final sync done; the power action did NOT happen: {0}', power.detail);
  if (power) return power.step === 'noGpu' ? vscode.l10n.t('Final sync verified; switched to no-GPU mode (the platform reports it).') : vscode.l10n.t('Final sync verified; powered off ({0}).', power.via === 'box' ? vscode.l10n.t('from the box: it stopped answering SSH') : vscode.l10n.t('the platform reports it stopped'));
  return sync?.ok ? vscode.l10n.t('Final sync verified ({0}).', sync.detail) : vscode.l10n.t('Final sync failed: {0}', sync?.detail ?? '?');
}

function show(ctx: CommandContext, inst: Instance, job: JobRef, r: EndReport, action: EndAction, result: EndActionResult | undefined, boxDid: string | undefined, diverged?: Pick<Diverged, 'value' | 'readings' | 'step'>): void {
  const ok = r.exitCode === 0 && !diverged;
  const head = ok ? vscode.l10n.t('{0} on {1} finished.', job.id, inst.name) : vscode.l10n.t('{0} on {1} exited with code {2}.', job.id, inst.name, String(r.exitCode ?? '?'));
  const facts = [r.durationSeconds !== null ? vscode.l10n.t('Ran {0}', formatDuration(r.durationSeconds, vscode.l10n)) : '', r.costFen !== null ? vscode.l10n.t('cost {0}', formatCny(r.costFen)) : ''].filter(Boolean).join(' · ');
  const cause = r.cause ? causeText(r.cause, vscode.l10n, causeLang(vscode.env.language), { storageFenPerGbDay: inst.pricing.storageGbDay }) : '';
  // A failed run says its last line beside its cause (issue 41 friction); without a cause, the last three.
  const tail = !ok && r.lastLines.length ? (r.cause ? vscode.l10n.t('Last line: {0}', r.lastLines[r.lastLines.length - 1]!) : vscode.l10n.t('Last lines: {0}', r.lastLines.slice(-3).join(' ⏎ '))) : '';
  const act = actionText(action, result, boxDid);
  const why = diverged ? divergedEndLine(diverged, vscode.l10n) : '';
  const msg = [head, why, facts, cause, act, tail].filter(Boolean).join(' ');
  ctx.log.info(`[${inst.id}] run ${job.id} ended: exit ${r.exitCode ?? '?'}${diverged ? `, stopped: loss ${diverged.value} for ${diverged.readings} readings` : ''}${r.cause ? `, cause ${r.cause.kind}` : ''}${act ? `; ${act}` : ''}`);
  for (const l of r.lastLines) ctx.log.info(`[${inst.id}] ${job.id} | ${l}`);
  ctx.notices.note('job', inst.id, `${job.id} exited ${r.exitCode ?? '?'}${r.cause ? ` (${r.cause.kind})` : ''}`);
  const logs = vscode.l10n.t('Show Log');
  const check = vscode.l10n.t('Check GPU');
  const buttons = r.cause && (r.cause.kind === 'noKernelImage' || r.cause.kind === 'cudaInit') ? [check, logs] : [logs];
  const warn = !ok || (result && !result.ok);
  void (warn ? showWarning : showInfo)(msg, { log: ctx.log, logged: true }, ...buttons).then((p) => {
    if (p === logs) void vscode.commands.executeCommand(Commands.showJobs, { id: inst.id, jobId: job.id });
    if (p === check) void vscode.commands.executeCommand(Commands.checkGpu, { id: inst.id });
  });
}

/**
 * A power action that did not happen: a modal (it stays until answered) saying the box still
 * bills and at what rate, why, and the next-best actions: the account's power-off where one is
 * linked, the release guard (checkpoints checked first), or the platform's console.
 */
async function stillBilling(ctx: CommandContext, inst: Instance, job: JobRef, r: EndActionResult, backupArmed: boolean): Promise<void> {
  const { nextBestActions } = await import('../../core/guards/powerOffer');
  const power = r.steps.find((s) => s.step !== 'sync');
  const sync = r.steps.find((s) => s.step === 'sync');
  const cur = ctx.store.get(inst.id) ?? inst;
  const fenPerHour = cur.pricing.hourlyRate + storageRateFor(cur.pricing, 'running') / 24;
  const rate = formatRate(fenPerHour, vscode.l10n);
  const said = power?.said;
  // The cause in words, said once (issue 41 bug 8): a refused box power-off names the login that is not root.
  const cause: StillBillingInput['cause'] =
    r.stopped === 'syncFailed'
      ? { kind: 'syncFailed', detail: sync?.detail ?? '?' }
      : r.stopped === 'noWayToPower'
        ? { kind: 'noWayToPower' }
        : said?.code === 'box-refused'
          ? { kind: 'boxRefused', user: cur.login.user, exitCode: said.exitCode, output: said.output }
          : said?.code === 'box-still-answering'
            ? { kind: 'boxStillAnswering', seconds: said.seconds }
            : { kind: 'other', detail: power?.detail ?? '?' };
  const failedVia = power && 'via' in power && power.via === 'connector' ? 'connector' : 'box';
  const { powerFactsOf } = await import('./powerFacts');
  const facts = powerFactsOf(ctx, inst, 'unknown');
  const modal = stillBillingModal({ job: job.id, name: inst.name, rate, action: r.action === 'sync-then-no-gpu' ? 'noGpu' : 'powerOff', cause, next: nextBestActions(facts, failedVia), linked: !!inst.platformRef, backupArmed }, vscode.l10n);
  const why = modal.detail.split('\n\n')[0]!;
  ctx.log.error(`[${inst.id}] ${modal.message} ${why}`);
  ctx.notices.note('job', inst.id, `still billing after end action ${r.action}`);
  // Beyond the modal: the tree row and the status bar say so until the box is seen stopped or its state changes.
  await ctx.store.markStillBilling(inst.id, { since: ctx.now(), action: r.action === 'sync-then-no-gpu' ? 'noGpu' : 'powerOff', fenPerHour, why }).catch((e) => ctx.log.warn(`[${inst.id}] could not store the still-billing mark: ${String(e)}`));
  const pick = await showError(modal.message, { modal: true, detail: modal.detail, log: ctx.log, logged: true }, ...modal.buttons);
  if (pick?.action === 'powerOffThroughAccount') void vscode.commands.executeCommand(Commands.powerOff, { kind: 'instance', id: inst.id });
  if (pick?.action === 'release') void vscode.commands.executeCommand(Commands.releaseInstance, { kind: 'instance', id: inst.id });
}
