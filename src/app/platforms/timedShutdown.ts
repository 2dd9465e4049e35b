// Arm (or cancel) the platform's own timed shutdown of an instance, then read it back: the
// console's `timed/shutdown` request (core/platforms/timedShutdown.ts) is sent once and the list
// row's `timed_shutdown_at` must name the same minute, so a platform that read the time another
// way is said at once, not found out when the instance bills on. Only AutoDL's console token has
// the request; every other kind is refused with its reason (core/schedule.ts noPlatformTimer).
import { readBackVerdict, timerProblem, type TimerProblem } from '../../core/platforms/timedShutdown';
import type { Connector, PlatformInstance } from '../../core/platforms/types';
import { unlockedConnector } from './powerLock';

interface TimerConnector extends Connector {
  timedShutdown(ref: string, at: number | null, signal?: AbortSignal): Promise<void>;
}

/** Whether this connector can arm a timed shutdown (AutoDL console token). */
export function canArmTimer(c: Connector): boolean {
  return typeof (unlockedConnector(c) as Partial<TimerConnector>).timedShutdown === 'function';
}

export type ArmResult =
  | { kind: 'refused'; problem: TimerProblem | 'notSupported' }
  /** Sent; `verdict` says what the row read back showed. */
  | { kind: 'sent'; verdict: 'confirmed' | 'notShown' | 'differs'; seenAt?: number; after?: PlatformInstance };

/** `at`: epoch seconds, or null to cancel. `now`: epoch seconds. A platform refusal is thrown (PlatformError), nothing retried. */
export async function armTimedShutdown(c: Connector, ref: string, at: number | null, now: number, signal?: AbortSignal): Promise<ArmResult> {
  if (!canArmTimer(c)) return { kind: 'refused', problem: 'notSupported' };
  if (at !== null) {
    const p = timerProblem(at, now);
    if (p) return { kind: 'refused', problem: p };
  }
  await (unlockedConnector(c) as TimerConnector).timedShutdown(ref, at, signal);
  let after: PlatformInstance | undefined;
  try {
    after = await c.get(ref, signal);
  } catch {
    return { kind: 'sent', verdict: 'notShown' };
  }
  const seen = after.platformTimer?.action === 'shutdown' ? after.platformTimer.at : undefined;
  return { kind: 'sent', verdict: readBackVerdict(at, seen), ...(seen !== undefined ? { seenAt: seen } : {}), after };
}
