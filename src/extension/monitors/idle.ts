// Idle GPU: on each poll of an instance billing for a GPU, one idle sample; one notice per idle
// stretch, with the cheapest safe action and what it saves. The decisions are core's.
import * as vscode from 'vscode';
import { showError, showInfo, showWarning, withNotificationProgress } from '../notify';
import type { IdleActionKind } from '../../core/guards/actions';
import { consoleReason, idleActionRoute } from '../../core/guards/powerOffer';
import type { Instance } from '../../core/instances';
import { currentState } from '../../core/spend';
import type { RemoteConnection } from '../../remote/connection';
import { Commands } from '../commandIds';
import { guardFacts, IdleWatch, idleSettingsOf, type IdleNotice } from '../guardDecisions';
import { idleActionLabel, idleMessage, idleSettingsErrorText } from '../words/guardText';
import { stateLabel } from '../view/present';
import type { CommandContext } from '../services/context';
import { powerFactsOf } from '../services/powerFacts';
import { platformErrorText } from '../words/platforms';
import { allowPowerActions } from '../services/allowPower';

export class IdleMonitor {
  private readonly idle = new IdleWatch();
  private settingsWarned = false;

  constructor(private readonly ctx: Pick<CommandContext, 'settings' | 'store' | 'catalog' | 'log' | 'now' | 'notices' | 'platformPower' | 'platformAccount'>) {}

  forget(id: string): void {
    this.idle.forget(id);
  }

  /** One idle sample of a billing instance over its open connection; failures are only logged. */
  async tick(instance: Instance, conn: RemoteConnection): Promise<void> {
    const settings = this.ctx.settings();
    const state = currentState(instance.intervals);
    if (!settings.idleEnabled || (state !== 'running' && state !== 'spot')) {
      this.idle.forget(instance.id);
      return;
    }
    const s = idleSettingsOf(settings);
    if (!s.ok) {
      if (!this.settingsWarned) void showWarning(idleSettingsErrorText(s.error, vscode.l10n));
      this.settingsWarned = true;
      return;
    }
    try {
      const { probeIdle, DEFAULT_JOB_DIRS } = await import('../../remote/guards/probe');
      const sample = await probeIdle(conn, { watchDirs: [...DEFAULT_JOB_DIRS, instance.sync?.remoteDir ?? settings.syncRemoteDir], now: this.ctx.now });
      const cur = this.ctx.store.get(instance.id);
      if (!cur) return;
      const r = this.idle.observe(cur, sample, s.settings, guardFacts(this.ctx.catalog(), cur.platform), settings.idleAction);
      this.ctx.log.debug(`[${cur.id}] idle check: ${r.verdict.kind}`);
      if (r.notice) this.show(cur, r.notice, s.settings.utilizationThresholdPct);
    } catch (e) {
      this.ctx.log.debug(`[${instance.id}] idle probe failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private show(inst: Instance, notice: IdleNotice, thresholdPct: number): void {
    const msg = idleMessage(inst.name, notice, thresholdPct, vscode.l10n);
    this.ctx.notices.note('idle', inst.id, `${notice.offered.map((o) => `${o.action} saves ${o.savingPerHour} fen/h`).join(', ') || notice.advice.reason || 'no saving'}`);
    const buttons = notice.offered.map((o) => ({ title: idleActionLabel(o.action, vscode.l10n), action: o.action }));
    void showWarning(msg, ...buttons).then((pick) => {
      if (pick) void this.run(inst.id, pick.action);
    });
  }

  /**
   * The notice's buttons. Through the platform when the instance's account allows power
   * actions (the state then follows what the platform reports); else the state is recorded
   * and the user repeats it in the console.
   */
  private async run(id: string, action: IdleActionKind): Promise<void> {
    const inst = this.ctx.store.get(id);
    if (!inst) return;
    const node = { kind: 'instance', id };
    if (action === 'release') {
      await vscode.commands.executeCommand(Commands.syncCheckpoints, node);
      await vscode.commands.executeCommand(Commands.releaseInstance, node);
      return;
    }
    if (action === 'stop') await vscode.commands.executeCommand(Commands.syncCheckpoints, node);
    const state = action === 'noGpuMode' ? 'noGpu' : 'stopped';
    // Through the account only where its connector can do this action (AutoDL's developer API has no no-GPU start).
    const account = this.ctx.platformPower(inst);
    const facts = powerFactsOf(this.ctx, inst, 'unknown');
    const route = idleActionRoute(action, facts);
    const power = route === 'connector' ? account : undefined;
    if (power) {
      try {
        await withNotificationProgress({ title: vscode.l10n.t('{0}: {1} through the platform…', inst.name, stateLabel(state, vscode.l10n)) }, () => (state === 'noGpu' ? power.noGpu(inst) : power.powerOff(inst)));
        this.idle.forget(id);
        this.ctx.log.info(`[${id}] idle action ${action} done through the platform`);
        void showInfo(vscode.l10n.t('{0} is now {1} on the platform.', inst.name, stateLabel(state, vscode.l10n)));
        return;
      } catch (e) {
        this.ctx.log.warn(`[${id}] idle action ${action} through the platform failed: ${e instanceof Error ? e.message : String(e)}`);
        void showError(vscode.l10n.t('The platform did not switch {0}: {1}', inst.name, platformErrorText(e)), { log: this.ctx.log, logged: true });
        return;
      }
    }
    await vscode.commands.executeCommand(Commands.switchState, { id, state });
    this.idle.forget(id);
    if (consoleReason(action, facts) === 'accountReadOnly') {
      // The setting written by a button, not by hand (issue 41 friction).
      const allow = vscode.l10n.t('Allow Power Actions…');
      const account = inst.platformRef?.account;
      void showInfo(vscode.l10n.t('Recorded {0} as {1}. Its platform account is read-only: do the same in the platform’s console, or allow power actions for it (gpuRent.platforms.powerActions).', inst.name, stateLabel(state, vscode.l10n)), ...(account ? [allow] : [])).then((p) => (p === allow && account ? allowPowerActions({ id: account, label: account }) : undefined));
    }
    else void showInfo(vscode.l10n.t('Recorded {0} as {1}. Do the same in the platform’s console: it has no API for this.', inst.name, stateLabel(state, vscode.l10n)));
  }
}
