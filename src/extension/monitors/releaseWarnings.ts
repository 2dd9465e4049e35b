// Stopped instances the platform is about to release (AutoDL after 15 days shut down, 矩池云's
// 24 h snapshot): a warning a day, remembered across reloads. Checked every ten minutes and
// whenever the instance list changes.
import * as vscode from 'vscode';
import { showError, showInfo, showWarning, withNotificationProgress } from '../notify';
import { guardFacts, releaseNotices, type ReleaseMemo } from '../guardDecisions';
import { releaseWatchMessage } from '../words/guardText';
import { platformErrorText } from '../words/platforms';
import type { CommandContext } from '../services/context';
import type { Instance } from '../../core/instances';
import type { GuardPlatformFacts } from '../../core/guards/facts';
import type { ReleaseWatch } from '../../core/guards/release';
import { can } from '../../core/platforms/types';
import { Commands } from '../commandIds';
import { readState, StateKeys, writeState } from '../stateKeys';

/** The platform's clock (monitors/platforms PlatformFacts): the release day it states, and when it was last read. */
export interface PlatformClockSource {
  releaseWatchOf(inst: Instance, facts: GuardPlatformFacts): ReleaseWatch | undefined;
  onDidPoll(listener: () => void): { dispose(): void };
}

const EVERY_MS = 10 * 60 * 1000;

export class ReleaseWarnings implements vscode.Disposable {
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly subs: { dispose(): void }[];

  /**
   * With `clock`, a linked AutoDL instance is counted by the platform's own clock (stopped_at /
   * release_at): one imported after 13 days shut down is warned at once, not 12 days later.
   */
  constructor(
    private readonly ctx: Pick<CommandContext, 'settings' | 'store' | 'catalog' | 'now' | 'memento' | 'notices' | 'platformPower' | 'log'>,
    private readonly clock?: PlatformClockSource,
  ) {
    this.timer = setInterval(() => this.check(), EVERY_MS);
    this.subs = [ctx.store.onDidChange(() => this.check()), ...(clock ? [clock.onDidPoll(() => this.check())] : [])];
    this.check();
  }

  check(): void {
    if (!this.ctx.settings().releaseWarnings) return;
    const memo: ReleaseMemo = readState(this.ctx.memento, StateKeys.releaseWarnings) ?? {};
    const catalog = this.ctx.catalog();
    const clock = this.clock;
    const r = releaseNotices(this.ctx.store.list(), (p) => guardFacts(catalog, p), this.ctx.now(), typeof memo === 'object' && memo ? memo : {}, clock ? (inst, facts) => clock.releaseWatchOf(inst, facts) : undefined);
    if (JSON.stringify(r.memo) !== JSON.stringify(memo)) void writeState(this.ctx.memento, StateKeys.releaseWarnings, r.memo);
    for (const n of r.notices) {
      const inst = this.ctx.store.get(n.instanceId);
      const said = inst && releaseWatchMessage(inst.name, n.watch, vscode.l10n);
      if (!inst || !said) continue;
      // Its account keeps it alive on its own (monitors/keepAlive.ts): said, so the warning is not taken as the only way out.
      const kept = inst.platformRef && this.ctx.settings().platformKeepAlive.includes(inst.platformRef.account) && n.watch.kind !== 'probablyReleased';
      const msg = kept ? `${said} ${vscode.l10n.t('Keep-alive is on for its account: GPU Rent starts it in no-GPU mode and shuts it down again within 3 days of the release day, while VS Code or gpu-rent schedule run runs.')}` : said;
      this.ctx.notices.note('release', inst.id, n.watch.kind);
      const show = vscode.l10n.t('Show Instances');
      // With the platform's API a start in no-GPU mode (AutoDL: ¥0.1/h) resets the release clock.
      const power = this.ctx.platformPower(inst);
      const noGpu = vscode.l10n.t('Start in No-GPU Mode');
      // AutoDL: a start and a shut-down restart the clock (the cost is stated before anything runs).
      const keep = vscode.l10n.t('Keep It (Start and Shut Down)…');
      const canKeep = power && inst.platform === 'autodl' && n.watch.kind !== 'probablyReleased';
      // Only where the account's API can start in no-GPU mode (not AutoDL's developer API).
      const canNoGpu = power?.kind !== undefined && can(power.kind, 'powerOn:noGpu');
      void showWarning(msg, ...(canNoGpu ? [noGpu] : []), ...(canKeep ? [keep] : []), show).then(async (p) => {
        if (p === show) void vscode.commands.executeCommand('gpuRent.instances.focus');
        if (p === keep) void vscode.commands.executeCommand(Commands.keepAliveOnPlatform, { kind: 'instance', id: inst.id });
        if (p === noGpu && power && canNoGpu) {
          try {
            await withNotificationProgress({ title: vscode.l10n.t('Starting {0} in no-GPU mode…', inst.name) }, () => power.noGpu(inst));
            void showInfo(vscode.l10n.t('{0} runs in no-GPU mode: its data is kept and the release clock starts again.', inst.name));
          } catch (e) {
            this.ctx.log.warn(`[${inst.id}] no-GPU start failed: ${e instanceof Error ? e.message : String(e)}`);
            void showError(vscode.l10n.t('The platform did not start {0} in no-GPU mode: {1}', inst.name, platformErrorText(e)), { log: this.ctx.log, logged: true });
          }
        }
      });
    }
  }

  dispose(): void {
    clearInterval(this.timer);
    this.subs.forEach((s) => s.dispose());
  }
}
