// Instances no platform API covers: their state is inferred from SSH reachability and the last
// probe's GPUs, and only ever PROPOSED to the user (Record It), never applied.
import * as vscode from 'vscode';
import { showInfo } from '../notify';
import { isPowered } from '../../app/session';
import type { Instance } from '../../core/instances';
import { inferState, type InferenceMemory } from '../../core/platforms/reconcile';
import { currentState, type InstanceState } from '../../core/spend';
import type { CommandContext } from '../services/context';

export class StateProposals {
  private readonly inference = new Map<string, InferenceMemory>();
  private readonly proposed = new Map<string, string>();

  constructor(private readonly ctx: Pick<CommandContext, 'store' | 'sessions' | 'log'>) {}

  /** Instances no connector covers: SSH reachability and the last probe's GPUs, proposed, never applied. */
  async check(): Promise<void> {
    if (!vscode.workspace.isTrusted) return;
    for (const i of this.ctx.store.list()) {
      if (i.platformRef || !i.lastProbe || currentState(i.intervals) === 'released') continue;
      const cur = currentState(i.intervals);
      let reachable = false;
      if (isPowered(i) || this.inference.get(i.id)?.wasUp) reachable = await this.ctx.sessions.connect(i).then(() => true, () => false);
      const gpuCount = this.ctx.store.get(i.id)?.lastProbe?.gpus.length ?? 0;
      const r = inferState(this.inference.get(i.id) ?? { misses: 0, wasUp: isPowered(i) }, reachable ? { reachable: true, gpuCount } : { reachable: false }, cur);
      this.inference.set(i.id, r.memory);
      // It answers again: a 'stopped?' question still on screen no longer holds (Record It then does nothing).
      if (reachable && this.proposed.get(i.id)?.endsWith('>stopped?')) {
        this.proposed.delete(i.id);
        this.ctx.log.info(`[${i.id}] answers again: the 'stopped?' question is withdrawn`);
      }
      if (r.propose && this.proposed.get(i.id) !== `${cur}>${r.propose}`) {
        this.proposed.set(i.id, `${cur}>${r.propose}`);
        void this.propose(i, r.propose);
      }
    }
  }

  private async propose(i: Instance, p: InstanceState | 'stopped?'): Promise<void> {
    const target: InstanceState = p === 'stopped?' ? 'stopped' : p;
    const msg = p === 'stopped?' ? vscode.l10n.t('{0} has not answered for several checks: stopped?', i.name) : p === 'noGpu' ? vscode.l10n.t('{0} answers but shows no GPU: in no-GPU mode?', i.name) : vscode.l10n.t('{0} answers with its GPUs: running?', i.name);
    const yes = vscode.l10n.t('Record It');
    this.ctx.log.info(`[${i.id}] proposed: ${p}`);
    const asked = this.proposed.get(i.id);
    if ((await showInfo(msg, yes)) !== yes) return;
    // Withdrawn while on screen (it answered again, or the state changed): nothing is recorded.
    if (this.proposed.get(i.id) !== asked) {
      if (p === 'stopped?') void showInfo(vscode.l10n.t('{0} answers again: not recorded as stopped.', i.name));
      return;
    }
    await this.ctx.store.switchState(i.id, target);
  }
}
