// "Keep Syncing Checkpoints": one background watch loop per instance, owned here and stopped
// on dispose. Which instances are watched is the SyncWatching model (app/syncWatching.ts): this
// writes it, the tree reads it and listens to its events.
import * as vscode from 'vscode';
import { showError } from '../notify';
import { syncRemote } from '../../app/sync';
import type { InstanceSessions } from '../../app/session';
import { isRemoteError } from '../../remote/errors';
import { syncErrorText } from '../words/syncErrors';
import { remoteErrorText, shownError } from '../words/errors';
import type { InstanceStore } from '../store';
import type { SyncWatching } from '../../app/syncWatching';

export interface WatchSpec {
  id: string;
  remoteDir: string;
  localDir: string;
  intervalSeconds: number;
  acceptNewHostKey?: boolean;
}

export class SyncWatches implements vscode.Disposable {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly store: InstanceStore,
    private readonly sessions: InstanceSessions,
    private readonly watching: SyncWatching,
    private readonly log: vscode.LogOutputChannel,
    private readonly now: () => number,
  ) {}

  has(id: string): boolean {
    return this.running.has(id);
  }

  ids(): string[] {
    return [...this.running.keys()];
  }

  /** Starts watching; false when a watch for the instance already runs. */
  async start(spec: WatchSpec): Promise<boolean> {
    if (this.running.has(spec.id)) return false;
    const inst = this.sessions.powered(spec.id);
    const abort = new AbortController();
    this.running.set(spec.id, abort);
    this.watching.add(spec.id);
    const { watchSync, SyncError } = await import('../../remote/sync');
    const source = `${inst.login.user}@${inst.login.host}:${inst.login.port}`;
    const { remoteDir, localDir } = spec;
    // In the user's words (the tree's Checkpoints tooltip, the stop notice; a refused reconnect is the session's AppError); the English stays in the log.
    const words = (e: unknown): string => (e instanceof SyncError ? syncErrorText(e, { remoteDir, localDir }, vscode.l10n) : isRemoteError(e) ? remoteErrorText(e, `${inst.login.host}:${inst.login.port}`) : shownError(e).message);
    void watchSync(
      // Reconnects after a drop ask nothing: the watch was started over a working connection.
      async () => syncRemote(await this.sessions.connect(this.store.get(spec.id) ?? inst, { background: true, ...(spec.acceptNewHostKey ? { acceptNewHostKey: true } : {}) })),
      { remoteDir, localDir, source, intervalSeconds: spec.intervalSeconds, signal: abort.signal, isFatal: (e) => (isRemoteError(e) && e.fatal) || (e instanceof Error && isRemoteError(e.cause) && e.cause.fatal) },
      (ev) => {
        const cur = this.store.get(spec.id);
        if (!cur) return;
        if (ev.kind === 'round') {
          if (ev.report.files) this.log.info(`[${spec.id}] watch: ${ev.report.files} new files, ${ev.report.bytes} bytes`);
          void this.store.update(spec.id, { sync: { remoteDir, localDir, lastSyncAt: this.now(), unsynced: 0 } });
        } else {
          this.log.warn(`[${spec.id}] watch: ${ev.error.message}; retry in ${Math.round(ev.retryInMs / 1000)} s`);
          void this.store.update(spec.id, { sync: { remoteDir, localDir, ...(cur.sync?.lastSyncAt ? { lastSyncAt: cur.sync.lastSyncAt } : {}), lastError: words(ev.error).slice(0, 500) } });
        }
      },
    )
      .catch((e: unknown) => {
        const msg = e instanceof Error ? e.message : String(e);
        this.log.error(`[${spec.id}] watch stopped: ${msg}`);
        void showError(vscode.l10n.t('Stopped syncing checkpoints from {0}: {1}', inst.name, words(e)), { log: this.log, logged: true });
      })
      .finally(() => {
        this.running.delete(spec.id);
        this.watching.delete(spec.id);
      });
    return true;
  }

  /** Stops the named watch, or all; returns the ids stopped. */
  stop(id?: string): string[] {
    const ids = id ? (this.running.has(id) ? [id] : []) : [...this.running.keys()];
    for (const i of ids) this.running.get(i)?.abort();
    return ids;
  }

  dispose(): void {
    this.stop();
  }
}
