// A small typed event emitter with VS Code's shape (event(listener) → disposable), so app
// services can be observed by the extension and the CLI without importing vscode.

export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (e: T) => void) => Disposable;

export class Emitter<T> implements Disposable {
  private listeners = new Set<(e: T) => void>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        // A listener's failure is its own; the others still hear the event.
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}

/**
 * An event whose listeners are awaited in turn (an "about to release" hook: the wipe of
 * memory-only uploads must finish before the release goes on). A failing listener does not
 * stop the others; its error is handed to `onError`.
 */
export class AsyncHook<T> implements Disposable {
  private listeners = new Set<(e: T) => Promise<void>>();

  readonly event = (listener: (e: T) => Promise<void>): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  async fire(e: T, onError: (err: unknown) => void = () => undefined): Promise<void> {
    for (const l of [...this.listeners]) {
      try {
        await l(e);
      } catch (err) {
        onError(err);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
