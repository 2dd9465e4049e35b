// Start When a Card Is Free / `gpu-rent power-on --wait-for-gpu`: a GPU power-on tried again
// while the platform refuses it for want of a free card (AutoDL 该主机空闲GPU不足 / 当前算力规格暂无库存,
// 阿里云 OperationDenied.NoStock, 腾讯云 ResourceInsufficient…), with bounded exponential backoff
// (core/platforms/gpuWait.ts: at most one call every 15 s, longer after a rate-limit reply), until
// it is accepted, the deadline passes, the caller cancels, or a refusal that waiting cannot mend
// (auth, balance, real-name, quota, …) ends it at once. The instance's power-on lock is held for
// the whole wait, so no other power-on path sends one meanwhile. The clock is injected.
import { MIN_CALL_INTERVAL_MS, nextDelayMs, refusalAdvice, waitVerdict, type RefusalAdvice, type WaitVerdict } from '../../core/platforms/gpuWait';
import type { Connector, PlatformFailure } from '../../core/platforms/types';
import { PlatformError, transportError } from './errors';
import type { PowerLockHolder, PowerOnLocks } from './powerLock';

export interface WaitClock {
  /** Milliseconds (Date.now in use). */
  now(): number;
  /** Resolves after `ms` or as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: WaitClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

export interface TryReport {
  /** 1-based. */
  attempt: number;
  waitedMs: number;
  failure?: PlatformFailure;
  verdict?: WaitVerdict;
  /** The pause before the next try; undefined when there is none. */
  nextInMs?: number;
}

export interface WaitForGpuOptions {
  connector: Pick<Connector, 'kind' | 'powerOn'>;
  ref: string;
  /** The instance's lock key (powerLockKey) and the lock map shared by every power-on path. */
  lockKey: string;
  locks: PowerOnLocks;
  /** How long to keep trying, from the first try. */
  maxWaitMs: number;
  clock?: WaitClock;
  signal?: AbortSignal;
  /** The floor between two calls; 15 s unless a test lowers it. */
  minIntervalMs?: number;
  maxIntervalMs?: number;
  random?: () => number;
  onTry?: (r: TryReport) => void;
}

export type WaitOutcome =
  /** The power-on was accepted (the caller then follows the state until it runs). */
  | { kind: 'started'; attempts: number; waitedMs: number }
  /** No card within the wait: the last refusal. */
  | { kind: 'gaveUp'; attempts: number; waitedMs: number; last: PlatformFailure }
  /** A refusal that waiting does not mend: what to do about it. */
  | { kind: 'refused'; attempts: number; waitedMs: number; failure: PlatformFailure; advice: RefusalAdvice }
  | { kind: 'cancelled'; attempts: number; waitedMs: number; inFlight: boolean }
  /** Another power-on of this instance is in flight: nothing was sent. */
  | { kind: 'busy'; holder: PowerLockHolder };

export async function waitForGpu(o: WaitForGpuOptions): Promise<WaitOutcome> {
  const lock = o.locks.tryAcquire(o.lockKey, 'wait-for-gpu');
  if ('busy' in lock) return { kind: 'busy', holder: lock.busy };
  try {
    return await loop(o);
  } finally {
    lock.release();
  }
}

async function loop(o: WaitForGpuOptions): Promise<WaitOutcome> {
  const clock = o.clock ?? realClock;
  const random = o.random ?? Math.random;
  const minMs = Math.max(1, o.minIntervalMs ?? MIN_CALL_INTERVAL_MS);
  const start = clock.now();
  const waited = () => clock.now() - start;
  let attempts = 0;
  let pause = 0;
  let lastCall = -Infinity;
  for (;;) {
    if (o.signal?.aborted) return { kind: 'cancelled', attempts, waitedMs: waited(), inFlight: false };
    // The floor holds between any two calls, whatever the schedule says.
    const gap = lastCall + minMs - clock.now();
    if (gap > 0) await clock.sleep(gap, o.signal);
    if (o.signal?.aborted) return { kind: 'cancelled', attempts, waitedMs: waited(), inFlight: false };
    attempts++;
    lastCall = clock.now();
    let failure: PlatformFailure;
    try {
      await o.connector.powerOn(o.ref, 'gpu', o.signal);
      o.onTry?.({ attempt: attempts, waitedMs: waited() });
      return { kind: 'started', attempts, waitedMs: waited() };
    } catch (e) {
      // Cancelled while the call was out: the platform may have taken it; the caller reads the state.
      if (o.signal?.aborted) return { kind: 'cancelled', attempts, waitedMs: waited(), inFlight: true };
      failure = (e instanceof PlatformError ? e : transportError(o.connector.kind, e)).failure;
    }
    const verdict = waitVerdict(failure.kind);
    if (verdict === 'stop') {
      o.onTry?.({ attempt: attempts, waitedMs: waited(), failure, verdict });
      return { kind: 'refused', attempts, waitedMs: waited(), failure, advice: refusalAdvice(failure.kind) };
    }
    pause = nextDelayMs(attempts, verdict, pause, { minMs, ...(o.maxIntervalMs !== undefined ? { maxMs: o.maxIntervalMs } : {}), jitter: random() });
    const left = o.maxWaitMs - waited();
    if (left < pause) {
      o.onTry?.({ attempt: attempts, waitedMs: waited(), failure, verdict });
      return { kind: 'gaveUp', attempts, waitedMs: waited(), last: failure };
    }
    o.onTry?.({ attempt: attempts, waitedMs: waited(), failure, verdict, nextInMs: pause });
    await clock.sleep(pause, o.signal);
  }
}
