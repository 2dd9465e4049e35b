// The launches shown in the Instances view (one this window drives, or one the CLI or an earlier
// window left in progress), by key (`<task file>#<task name>`) with their latest saved state: a
// model the launch commands write and the tree reads; onDidChange says which row came, changed
// or went.
import type { LaunchState } from '../../core/task/launch';
import { Emitter, type Disposable, type Event } from '../events';

export interface LaunchRowChange {
  key: string;
  kind: 'added' | 'updated' | 'removed';
}

export class LaunchRows implements Disposable {
  private readonly rows = new Map<string, LaunchState>();
  private readonly changes = new Emitter<LaunchRowChange>();
  readonly onDidChange: Event<LaunchRowChange> = this.changes.event;

  /** The launch's row: shown (or updated) with its state, removed with undefined. */
  setLaunch(key: string, state: LaunchState | undefined): void {
    const had = this.rows.has(key);
    if (state) this.rows.set(key, state);
    else if (!this.rows.delete(key)) return;
    this.changes.fire({ key, kind: !state ? 'removed' : had ? 'updated' : 'added' });
  }

  get(key: string): LaunchState | undefined {
    return this.rows.get(key);
  }

  keys(): string[] {
    return [...this.rows.keys()];
  }

  dispose(): void {
    this.changes.dispose();
  }
}
