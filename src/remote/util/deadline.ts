// Deadlines as AbortSignals. An operation gets one signal: its deadline
// (AbortSignal.timeout) and its caller's cancel, joined with AbortSignal.any. Every stage it
// goes through (waiting for a channel, connecting, opening, running) listens to that one
// signal and tells a deadline from a cancel by the signal's reason, never by a label.
import { setMaxListeners } from 'node:events';

/** The reason of a signal that aborted because time ran out (AbortSignal.timeout's, or ours). */
export function isDeadlineReason(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
}

function timeoutReason(message: string): Error {
  return typeof DOMException === 'function' ? new DOMException(message, 'TimeoutError') : Object.assign(new Error(message), { name: 'TimeoutError' });
}

/**
 * A signal that aborts after `ms` with a TimeoutError reason, as AbortSignal.timeout does, but
 * held by its timer: Node 20's AbortSignal.any keeps its sources only weakly, so an
 * AbortSignal.timeout joined into it can be garbage-collected and then never fires (a push whose
 * box's `gzip -dc` never ended ran past its 60 s deadline until killed). The timer is unref'd.
 */
export function deadlineSignal(ms: number): AbortSignal {
  const c = new AbortController();
  const t = setTimeout(() => c.abort(timeoutReason(`The operation was aborted due to timeout`)), ms);
  t.unref?.();
  return c.signal;
}

/**
 * One signal for an operation: aborts when `timeoutMs` passes (no deadline when it is
 * Infinity or absent) or when `signal` aborts. Undefined when there is neither.
 */
export function operationSignal(timeoutMs: number | undefined, signal?: AbortSignal): AbortSignal | undefined {
  const parts: AbortSignal[] = [];
  if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) parts.push(deadlineSignal(Math.max(0, Math.ceil(timeoutMs))));
  if (signal) parts.push(signal);
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  return AbortSignal.any(parts);
}

/**
 * Waits for a callback-style operation under `signal`. `onAbort` turns the signal's reason
 * into the error to reject with; `late` receives a value that arrives after the signal won
 * (a channel that opened too late must be closed, not leaked).
 */
export function underSignal<T>(
  signal: AbortSignal | undefined,
  onAbort: (reason: unknown) => Error,
  start: (done: (e: Error | null, v?: T) => void) => void,
  late?: (v: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let over = false;
    const abort = () => {
      if (over) return;
      over = true;
      reject(onAbort(signal!.reason));
    };
    const done = (e: Error | null, v?: T) => {
      if (over) {
        if (!e && v !== undefined) late?.(v);
        return;
      }
      over = true;
      signal?.removeEventListener('abort', abort);
      if (e) reject(e);
      else resolve(v as T);
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    start(done);
  });
}

/**
 * A deadline that can stop its clock (the SSH handshake's, while a person is asked to trust
 * a key or type a password). Its signal aborts with a TimeoutError reason.
 */
export class PausableDeadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private remaining: number;
  private since = 0;
  private paused = true;
  private done = false;

  constructor(ms: number) {
    this.remaining = Math.max(0, ms);
    this.resume();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  pause(): void {
    if (this.paused || this.done) return;
    this.paused = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.remaining = Math.max(0, this.remaining - (Date.now() - this.since));
  }

  resume(): void {
    if (!this.paused || this.done) return;
    this.paused = false;
    this.since = Date.now();
    this.timer = setTimeout(() => {
      this.done = true;
      this.controller.abort(timeoutReason('deadline passed'));
    }, this.remaining);
  }

  /** Stops the clock for good (the operation finished). */
  clear(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * A signal that follows `signal` and takes any number of listeners: a sync or push pass puts
 * one on it per file in flight (hundreds at once), which on the caller's own signal set off
 * Node's MaxListenersExceededWarning. `done()` at the end of the pass takes its one listener
 * off the caller's signal again (a watch runs pass after pass on the same one).
 */
export function passSignal(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; done: () => void } {
  if (!signal) return { signal: undefined, done: () => undefined };
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  const follow = () => c.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  return { signal: c.signal, done: () => signal.removeEventListener('abort', follow) };
}

/**
 * `p`'s value, or undefined once `ms` have passed (or `signal` aborts) without it; `onLate` runs
 * then, to stop what `p` waits for. A rejection is undefined too.
 */
export function withinMs<T>(p: Promise<T>, ms: number, signal?: AbortSignal, onLate?: () => void): Promise<T | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: T | undefined, late = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (late) onLate?.();
      resolve(v);
    };
    const onAbort = () => done(undefined, true);
    const timer = setTimeout(() => done(undefined, true), ms);
    signal?.addEventListener('abort', onAbort);
    p.then(done, () => done(undefined));
  });
}
