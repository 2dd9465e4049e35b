// The one semaphore of the remote layer: FIFO, cancellable through an AbortSignal (a deadline
// is just AbortSignal.timeout), with a limit that can be lowered while permits are out (the
// SSH channel budget shrinks when the server turns out to allow fewer sessions).

export type Release = () => void;

interface Waiter {
  grant: () => void;
  fail: (reason: unknown) => void;
}

export class Semaphore {
  private used = 0;
  private readonly waiters: Waiter[] = [];

  constructor(private max: number) {
    this.max = Math.max(1, Math.floor(max));
  }

  get limit(): number {
    return this.max;
  }

  /** Changes the limit; permits already out stay out, new ones wait until the count is below it. */
  set limit(n: number) {
    this.max = Math.max(1, Math.floor(n));
    this.pump();
  }

  get inUse(): number {
    return this.used;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * A permit, released by calling the returned function (once; later calls do nothing).
   * Rejects with `signal.reason` when the signal aborts first.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.used < this.max && this.waiters.length === 0) {
      this.used++;
      return Promise.resolve(this.releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i !== -1) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      const w: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser());
        },
        fail: (reason) => {
          signal?.removeEventListener('abort', onAbort);
          reject(reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
    });
  }

  /** Rejects everyone waiting (the resource is gone). Permits already out are unaffected. */
  failWaiting(reason: unknown): void {
    for (const w of this.waiters.splice(0)) w.fail(reason);
  }

  private releaser(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.used--;
      this.pump();
    };
  }

  private pump(): void {
    while (this.used < this.max && this.waiters.length > 0) {
      this.used++;
      this.waiters.shift()!.grant();
    }
  }
}
