// The launches shown in the Instances view (one this window drives, or one the CLI or an earlier
// window left in progress), by key (`<task file>#<task name>`) with their latest saved state: a
// model the launch commands write and the tree reads; onDidChange says which row came, changed
// or went. Beside each row, what the box's supervisor says of it (read by watchRows: close the lid).
import type { LaunchState } from '../../core/task/launch';
import type { BoxView } from './away';
import { Emitter, type Disposable, type Event } from '../events';

export interface LaunchRowChange {
  key: string;
  kind: 'added' | 'updated' | 'removed';
}

export class LaunchRows implements Disposable {
  private readonly rows = new Map<string, LaunchState>();
  private readonly boxViews = new Map<string, BoxView>();
  private readonly changes = new Emitter<LaunchRowChange>();
  readonly onDidChange: Event<LaunchRowChange> = this.changes.event;

  /** The launch's row: shown (or updated) with its state, removed with undefined. */
  setLaunch(key: string, state: LaunchState | undefined): void {
    const had = this.rows.has(key);
    if (state) this.rows.set(key, state);
    else if (!this.rows.delete(key)) return;
    if (!state) this.boxViews.delete(key);
    this.changes.fire({ key, kind: !state ? 'removed' : had ? 'updated' : 'added' });
  }

  get(key: string): LaunchState | undefined {
    return this.rows.get(key);
  }

  /** What the box's supervisor says of a row's launch (away.ts), shown beside it; undefined clears it. */
  setAway(key: string, view: BoxView | undefined): void {
    if (view) this.boxViews.set(key, view);
    else if (!this.boxViews.delete(key)) return;
    if (this.rows.has(key)) this.changes.fire({ key, kind: 'updated' });
  }

  away(key: string): BoxView | undefined {
    return this.rows.has(key) ? this.boxViews.get(key) : undefined;
  }

  keys(): string[] {
    return [...this.rows.keys()];
  }

  dispose(): void {
    this.changes.dispose();
  }
}
