// Release through a platform, in the order that keeps an instance's protections while it still
// exists: where the platform releases only stopped instances (AutoDL's developer API, 阿里云),
// power off → confirmed stopped; only then the caller's "before release" step (stop the sync
// watches, fire "about to release") → the release request. A power-off that fails or never
// settles ends the flow before that step: the watches and the on-box guards stay for an
// instance that still exists and bills.
import type { Connector, PlatformInstance } from '../../core/platforms/types';
import { TARGET, waitForState } from './settle';

export interface ReleaseFlowOptions {
  /** Power off and wait for "stopped" first (core/guards/powerOffer releaseNeedsStopped and not seen stopped). */
  stopFirst: boolean;
  /** Runs once the instance may be released, before the release is sent. */
  beforeRelease(): Promise<void>;
  onStep?(step: 'poweringOff' | 'waitingStopped' | 'releasing', seen?: PlatformInstance): void;
  deadlineMs: number;
  intervalMs: number;
  signal?: AbortSignal;
}

export type ReleaseFlowResult =
  | { kind: 'sent'; stopped?: PlatformInstance }
  /** The power-off before the release was refused: nothing else was done. */
  | { kind: 'powerOffFailed'; error: unknown }
  /** The power-off was accepted but "stopped" was not seen within the deadline: nothing else was done. */
  | { kind: 'notStopped'; last?: PlatformInstance };

/** Errors of the release request itself are thrown (sent once, never retried). */
export async function releaseThroughPlatform(connector: Connector, ref: string, o: ReleaseFlowOptions): Promise<ReleaseFlowResult> {
  let stopped: PlatformInstance | undefined;
  if (o.stopFirst) {
    o.onStep?.('poweringOff');
    try {
      await connector.powerOff(ref, 'keep', o.signal);
    } catch (error) {
      return { kind: 'powerOffFailed', error };
    }
    const r = await waitForState(connector, ref, TARGET.powerOff, { deadlineMs: o.deadlineMs, intervalMs: o.intervalMs, onProgress: (p) => o.onStep?.('waitingStopped', p), ...(o.signal ? { signal: o.signal } : {}) }).catch(() => ({ settled: false as const, last: undefined }));
    if (!r.settled) return { kind: 'notStopped', ...(r.last ? { last: r.last } : {}) };
    stopped = r.last;
  }
  await o.beforeRelease();
  o.onStep?.('releasing', stopped);
  await connector.release(ref, o.signal);
  return { kind: 'sent', ...(stopped ? { stopped } : {}) };
}
