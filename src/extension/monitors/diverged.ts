// A run whose training loss turned NaN/±Inf: one warning per divergence (again only after it
// recovered and diverged anew) with what the instance bills meanwhile and the buttons that help,
// and with gpuRent.training.onDiverged on, after N such log lines in a row, the stop. The stop
// only ends the job: the end of the run is then handled like any other (services/endOfRun:
// the report, then the end action, verified sync first, power only after it). Decisions: app/runs/diverged.
import * as vscode from 'vscode';
import { showError, showWarning } from '../notify';
import { burnRateFenPerHour } from '../../core/spend';
import type { EndAction } from '../../core/progress';
import { DivergedRuns, divergedEndAction, divergedPolicyOf, stopDivergedRun, type DivergedPolicy } from '../../app/runs/diverged';
import type { RunEntry } from '../../app/runs/watch';
import { Commands } from '../commandIds';
import type { CommandContext } from '../services/context';
import { endActionOf, rememberDivergedStop, rememberEndAction } from '../services/endOfRun';
import { divergedActionButton, divergedMessage, divergedStopFailedMessage, divergedStopMessage, type DivergedWords } from '../words/diverged';

/** gpuRent.training.onDiverged and gpuRent.training.divergedReadings, checked by app code. */
export function divergedPolicy(): DivergedPolicy {
  const c = vscode.workspace.getConfiguration('gpuRent');
  return divergedPolicyOf(c.get('training.onDiverged'), c.get('training.divergedReadings'));
}

const runKey = (e: Pick<RunEntry, 'instanceId' | 'jobId'>) => `${e.instanceId}\u0000${e.jobId}`;

export class DivergedMonitor implements vscode.Disposable {
  private readonly runs = new DivergedRuns();
  private readonly stopping = new Set<string>();
  private readonly sub: { dispose(): void };

  constructor(
    private readonly ctx: CommandContext,
    /** The poll's probe (serialised by the poller): it sees the stopped job end and runs the end of the run. */
    private readonly probeNow: () => Promise<void>,
    private readonly policy: () => DivergedPolicy = divergedPolicy,
  ) {
    this.sub = ctx.runs.onUpdate((e) => this.onRead(e));
  }

  private onRead(e: RunEntry): void {
    if (!e.alive) return;
    const policy = this.policy();
    const step = this.runs.observe(e.instanceId, e.jobId, e.progress.diverged, policy);
    if (step.recovered) this.ctx.log.info(`[${e.instanceId}] ${e.jobId}: the training loss is finite again`);
    const inst = this.ctx.store.get(e.instanceId);
    if (!inst || !e.progress.diverged) return;
    const words: DivergedWords = { job: e.jobId, instance: inst.name, diverged: e.progress.diverged, burningFenPerHour: burnRateFenPerHour(inst.intervals) || null };
    const action = divergedEndAction(policy.onDiverged === 'off' ? 'stop' : policy.onDiverged, endActionOf(this.ctx, inst.id, e.jobId), !!inst.sync);
    if (step.stop) {
      this.ctx.log.warn(`[${inst.id}] ${e.jobId}: loss ${e.progress.diverged.value} for ${e.progress.diverged.readings} readings in a row: stopping it (onDiverged ${policy.onDiverged}), then ${action}`);
      this.ctx.notices.note('job', inst.id, `${e.jobId} diverged: stopped by onDiverged`);
      void showWarning(divergedStopMessage(words, action, vscode.l10n), { log: this.ctx.log, logged: true });
      void this.stop(e, action, words);
      return;
    }
    if (!step.notify) return;
    this.ctx.log.warn(`[${inst.id}] ${e.jobId}: the training loss is ${e.progress.diverged.value} (step ${e.progress.diverged.step ?? '?'}); the run has diverged`);
    this.ctx.notices.note('job', inst.id, `${e.jobId} diverged (loss ${e.progress.diverged.value})`);
    const own = endActionOf(this.ctx, inst.id, e.jobId);
    const openLog = vscode.l10n.t('Open Log');
    const stopRun = vscode.l10n.t('Stop Run');
    const withAction = action !== own && action !== 'nothing' ? divergedActionButton(action, vscode.l10n) : undefined;
    const buttons = [openLog, stopRun, ...(withAction ? [withAction] : [])];
    void showWarning(divergedMessage(words, policy, action, vscode.l10n), { log: this.ctx.log, logged: true }, ...buttons).then((pick) => {
      if (pick === openLog) void vscode.commands.executeCommand(Commands.showJobs, { id: inst.id, jobId: e.jobId });
      // Stop Run: the run's own end action follows, as at any end; the other button sets the end action first.
      if (pick === stopRun) void this.stop(e, own, words);
      if (pick && pick === withAction) void this.stop(e, action, words);
    });
  }

  /** Stops the job (its end action set first, so the end of the run runs it) and has the poll see it end. */
  private async stop(e: RunEntry, action: EndAction, words: DivergedWords): Promise<void> {
    const k = runKey(e);
    if (this.stopping.has(k)) return;
    this.stopping.add(k);
    try {
      const inst = this.ctx.store.get(e.instanceId);
      if (!inst) return;
      await rememberEndAction(this.ctx, inst.id, e.jobId, action);
      await rememberDivergedStop(this.ctx, inst.id, e.jobId, words.diverged);
      const conn = await this.ctx.sessions.connect(inst, { background: true });
      const r = await stopDivergedRun(conn, e.jobId);
      if (!r.stopped) {
        await rememberDivergedStop(this.ctx, inst.id, e.jobId, null);
        void showError(divergedStopFailedMessage(words, vscode.l10n.t('it still runs after TERM and KILL'), vscode.l10n), { log: this.ctx.log });
        return;
      }
      this.ctx.log.info(`[${inst.id}] ${e.jobId} stopped (diverged); the end of the run follows`);
      // The probe that fed this read may still be running (the poller runs one at a time): try again until the end is seen.
      for (let i = 0; i < 5 && this.ctx.store.get(inst.id)?.jobs?.some((j) => j.id === e.jobId && j.state !== 'exited'); i++) {
        await this.probeNow();
        if (this.ctx.store.get(inst.id)?.jobs?.some((j) => j.id === e.jobId && j.state !== 'exited')) await new Promise((r) => setTimeout(r, 2000));
      }
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      await rememberDivergedStop(this.ctx, e.instanceId, e.jobId, null).catch(() => undefined);
      this.ctx.log.warn(`[${e.instanceId}] stop of diverged ${e.jobId}: ${msg}`);
      void showError(divergedStopFailedMessage(words, msg, vscode.l10n), { log: this.ctx.log, logged: true });
    } finally {
      this.stopping.delete(k);
    }
  }

  dispose(): void {
    this.sub.dispose();
  }
}
