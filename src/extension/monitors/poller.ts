// Polls only while the Instances view is visible: the tree's moving figures every few seconds
// (only the rows whose figures change: InstancesTree.tickFigures), and a
// quiet probe of each powered instance every `refresh.intervalSeconds` (GPUs, jobs' states,
// then the idle check), never the first contact: that is always the user's own Check GPU.
import * as vscode from 'vscode';
import { isAppError, isPowered } from '../../app/session';
import { endsStillBilling } from '../view/present';
import { RemoteError } from '../../remote/errors';
import type { CommandContext } from '../services/context';
import { recordProbe, refreshJobs } from '../services/probe';
import type { IdleMonitor } from './idle';
import type { VisibilitySource } from '../view/visibility';

const FIGURES_EVERY_MS = 5000;

export class Poller implements vscode.Disposable {
  private figures: ReturnType<typeof setInterval> | undefined;
  private probes: ReturnType<typeof setInterval> | undefined;
  private probing = false;
  private readonly subs: vscode.Disposable[];

  constructor(
    private readonly view: VisibilitySource,
    private readonly ctx: CommandContext,
    private readonly idle: IdleMonitor,
    /** The periodic figures refresh (the tree's tickFigures). */
    private readonly tickFigures: () => void,
  ) {
    this.subs = [view.onDidChangeVisibility(() => this.restart()), vscode.workspace.onDidGrantWorkspaceTrust(() => this.restart())];
    this.restart();
  }

  restart(): void {
    this.stop();
    if (!this.view.visible) return;
    this.figures = setInterval(() => this.tickFigures(), FIGURES_EVERY_MS);
    if (vscode.workspace.isTrusted) this.probes = setInterval(() => void this.probeNow(), this.ctx.settings().refreshIntervalSeconds * 1000);
  }

  /** Probes every powered instance probed before; failures are only logged. */
  async probeNow(): Promise<void> {
    if (this.probing || !vscode.workspace.isTrusted) return;
    this.probing = true;
    try {
      await Promise.all(
        this.ctx.store
          .list()
          .filter((i) => isPowered(i) && i.lastProbe)
          .map(async (i) => {
            try {
              const conn = await this.ctx.sessions.connect(i, { background: true });
              await recordProbe(this.ctx, i, conn);
              await refreshJobs(this.ctx, i, conn);
              await this.idle.tick(this.ctx.store.get(i.id) ?? i, conn);
            } catch (e) {
              this.ctx.log.debug(`[${i.id}] background probe failed: ${e instanceof Error ? e.message : String(e)}`);
              // Not reached: its runs stop counting down and say how old their figures are until it answers again.
              if ((isAppError(e) && e.info.kind === 'remote') || e instanceof RemoteError) this.ctx.runs.unreachable(i.id, this.ctx.now());
              // A box marked still billing that no longer accepts connections has gone down: the mark goes.
              if (i.stillBilling && isAppError(e) && e.info.kind === 'remote' && endsStillBilling(e.info.code)) {
                this.ctx.log.info(`[${i.id}] the box no longer answers SSH (${e.info.code}): the still-billing mark is cleared`);
                await this.ctx.store.clearStillBilling(i.id).catch(() => undefined);
              }
            }
          }),
      );
    } finally {
      this.probing = false;
    }
  }

  private stop(): void {
    if (this.figures) clearInterval(this.figures);
    if (this.probes) clearInterval(this.probes);
    this.figures = this.probes = undefined;
  }

  dispose(): void {
    this.stop();
    this.subs.forEach((d) => d.dispose());
  }
}
