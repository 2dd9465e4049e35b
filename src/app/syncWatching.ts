// Which instances' checkpoint folders are being watched now (the background sync loops in the
// extension's monitors/syncWatches.ts): a small model the watch loops write and the views read.
// It fires onDidChange(id) only when the set really changed for that instance.
import { Emitter, type Disposable, type Event } from './events';

export class SyncWatching implements Disposable {
  private readonly ids = new Set<string>();
  private readonly changes = new Emitter<string>();
  /** The instance whose watch started or stopped. */
  readonly onDidChange: Event<string> = this.changes.event;

  has(id: string): boolean {
    return this.ids.has(id);
  }

  list(): string[] {
    return [...this.ids];
  }

  /** A watch started; false (and no event) when it was already watched. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    this.changes.fire(id);
    return true;
  }

  /** A watch ended; false (and no event) when it was not watched. */
  delete(id: string): boolean {
    if (!this.ids.delete(id)) return false;
    this.changes.fire(id);
    return true;
  }

  dispose(): void {
    this.changes.dispose();
  }
}
