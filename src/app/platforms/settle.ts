// After a power action: read the state again until it reaches the target (or a deadline), and
// say each step. Reads may fail now and then (a 5xx, a 429): those are waited out, not fatal,
// until the deadline.
import { isTransient, type Connector, type PlatformInstance, type PlatformState } from '../../core/platforms/types';
import { PlatformError } from './errors';

export interface SettleOptions {
  deadlineMs: number;
  intervalMs: number;
  onProgress?: (p: PlatformInstance) => void;
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** The instance once its state is one of `targets`; `settled: false` with the last reading at the deadline. */
export async function waitForState(c: Connector, ref: string, targets: readonly PlatformState[], o: SettleOptions): Promise<{ settled: boolean; last?: PlatformInstance }> {
  const end = Date.now() + o.deadlineMs;
  const sleep = o.sleep ?? defaultSleep;
  let last: PlatformInstance | undefined;
  for (;;) {
    try {
      last = await c.get(ref, o.signal);
      o.onProgress?.(last);
      if (targets.includes(last.state)) return { settled: true, last };
    } catch (e) {
      // A released instance is gone from the list: that is the release arriving.
      if (e instanceof PlatformError && e.failure.kind === 'notFound' && targets.includes('released')) return { settled: true, ...(last ? { last: { ...last, state: 'released' as const } } : {}) };
      if (!(e instanceof PlatformError) || !isTransient(e.failure)) throw e;
    }
    if (o.signal?.aborted || Date.now() + o.intervalMs > end) return { settled: false, ...(last ? { last } : {}) };
    await sleep(o.intervalMs, o.signal);
  }
}

/** The steady state each action aims at. */
export const TARGET = {
  powerOnGpu: ['running'] as PlatformState[],
  powerOnNoGpu: ['noGpu', 'running'] as PlatformState[],
  powerOff: ['stopped'] as PlatformState[],
  release: ['released'] as PlatformState[],
};
