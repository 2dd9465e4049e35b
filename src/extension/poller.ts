// Polls only while the Instances view is visible: the tree's figures every few seconds, and
// a quiet GPU probe of each powered instance every `refresh.intervalSeconds`, followed by the
// idle-GPU check (guardCommands) on instances billing for a GPU.
import * as vscode from 'vscode';
import { isReachable } from '../core/instances';
import type { Node, InstancesTree } from './tree';
import type { GuardCommands } from './guardCommands';
import type { RemoteCommands } from './remoteCommands';
import type { Settings } from './settings';
import type { InstanceStore } from './store';

const FIGURES_EVERY_MS = 5000;

export class Poller implements vscode.Disposable {
  private figures: ReturnType<typeof setInterval> | undefined;
  private probes: ReturnType<typeof setInterval> | undefined;
  private probing = false;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly view: vscode.TreeView<Node>,
    private readonly tree: InstancesTree,
    private readonly store: InstanceStore,
    private readonly remote: RemoteCommands,
    private readonly settings: () => Settings,
    private readonly guards: GuardCommands,
  ) {
    this.sub = view.onDidChangeVisibility(() => this.restart());
    this.restart();
  }

  restart(): void {
    this.stop();
    if (!this.view.visible) return;
    this.figures = setInterval(() => this.tree.refresh(), FIGURES_EVERY_MS);
    if (vscode.workspace.isTrusted) this.probes = setInterval(() => void this.probeNow(), this.settings().refreshIntervalSeconds * 1000);
  }

  /** Probes every powered instance that has been probed before (so a first probe is always the user's choice). */
  async probeNow(): Promise<void> {
    if (this.probing || !vscode.workspace.isTrusted) return;
    this.probing = true;
    try {
      // The idle check follows the GPU probe on the same pooled connection.
      await Promise.all(
        this.store
          .list()
          .filter((i) => isReachable(i) && i.lastProbe)
          .map(async (i) => {
            await this.remote.probeQuietly(i);
            await this.guards.idleTick(i);
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
    this.sub.dispose();
  }
}
