// Whether the Instances view shows: a small model made before the view (the platform monitor,
// the poller and the refresh scheduler are built before the tree and read it), fed by the view
// once it exists (`track`). No `vscode` import: the view is anything with VS Code's shape.
import { Emitter, type Disposable, type Event } from '../../app/events';

/** Whether a view shows, and when that changes: a vscode.TreeView, or the model below. */
export interface VisibilitySource {
  readonly visible: boolean;
  readonly onDidChangeVisibility: Event<unknown>;
}

export class ViewVisibility implements VisibilitySource, Disposable {
  private shown = false;
  private readonly changes = new Emitter<boolean>();
  /** Fired with the new visibility when it changes. */
  readonly onDidChangeVisibility: Event<boolean> = this.changes.event;

  get visible(): boolean {
    return this.shown;
  }

  set(visible: boolean): void {
    if (visible === this.shown) return;
    this.shown = visible;
    this.changes.fire(visible);
  }

  /** Follows a view's visibility from now on (its current one first). */
  track(view: { readonly visible: boolean; onDidChangeVisibility(listener: (e: { visible: boolean }) => unknown): Disposable }): Disposable {
    this.set(view.visible);
    return view.onDidChangeVisibility((e) => this.set(e.visible));
  }

  dispose(): void {
    this.changes.dispose();
  }
}
