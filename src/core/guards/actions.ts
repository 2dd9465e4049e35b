// The cheapest safe thing to do with an idle box, and what it saves per hour. "Safe" means no
// data is lost: no-GPU mode and stop keep the disk; release is offered only after a final
// checkpoint sync, because a released data disk is gone (the report's two lost days).
import type { Fen } from '../money';
import { computeRateFor, storageRateFor, type InstanceState, type Pricing } from '../spend';
import type { GuardPlatformFacts } from './facts';

export type IdleActionKind = 'noGpuMode' | 'stop' | 'release';

export interface IdleActionOption {
  action: IdleActionKind;
  /** What the box costs per hour after the action, fen/h (storage included). */
  burnRateAfter: number;
  /** Current burn minus burnRateAfter, fen/h; 0 when the action saves nothing. */
  savingPerHour: number;
  /** A final checkpoint sync must run first (the action loses the disk or the box's reachability). */
  needsFinalSync: boolean;
  /** The box can still be reached over SSH afterwards (to sync, to inspect). */
  boxReachable: boolean;
  /** Data on the box survives the action. */
  keepsData: boolean;
}

export interface IdleAdvice {
  /** Burn rate now, fen/h. */
  burnRateNow: number;
  /** The recommended action, or null when nothing saves money (a prepaid package). */
  recommended: IdleActionOption | null;
  /** Every action the platform allows, cheapest first. */
  options: IdleActionOption[];
  /** Why nothing is recommended, when it is not. */
  reason?: 'prepaidPackage' | 'notBilling';
}

const perHour = (pricing: Pricing, state: InstanceState, facts: GuardPlatformFacts): number => {
  let compute = computeRateFor(pricing, state);
  // Big-cloud pay-as-you-go instances keep charging for compute while stopped.
  if (state === 'stopped' && !facts.stopEndsComputeBilling) compute = computeRateFor(pricing, 'running');
  return compute + storageRateFor(pricing, state) / 24;
};

/**
 * Advice for an idle box in `state` ('running' or 'spot'). The recommendation follows the
 * report: no-GPU mode where the platform has it (the box stays reachable for a final sync and
 * no release countdown starts), else stop when stopping ends compute billing, else release
 * after a final sync (also where a stop wipes the disk anyway, as on 秘塔智算).
 */
export function idleAdvice(pricing: Pricing, facts: GuardPlatformFacts, state: InstanceState = 'running'): IdleAdvice {
  const burnRateNow = perHour(pricing, state, facts);
  const option = (action: IdleActionKind, after: InstanceState): IdleActionOption => {
    const burnRateAfter = perHour(pricing, after, facts);
    return {
      action,
      burnRateAfter,
      savingPerHour: Math.max(0, burnRateNow - burnRateAfter),
      needsFinalSync: action !== 'noGpuMode',
      boxReachable: action === 'noGpuMode',
      keepsData: action === 'noGpuMode' || (action === 'stop' && facts.stopKeepsData),
    };
  };
  const options: IdleActionOption[] = [];
  if (facts.noGpuMode && pricing.noGpuModeRate > 0) options.push(option('noGpuMode', 'noGpu'));
  options.push(option('stop', 'stopped'));
  options.push(option('release', 'released'));
  options.sort((a, b) => a.burnRateAfter - b.burnRateAfter);
  if (!(burnRateNow > 0)) return { burnRateNow, recommended: null, options, reason: 'notBilling' };
  // A week or month already paid for is spent whatever the box does: the advice is to use it.
  if (pricing.billingMode !== 'hour') return { burnRateNow, recommended: null, options, reason: 'prepaidPackage' };
  const saving = options.filter((o) => o.savingPerHour > 0);
  if (!saving.length) return { burnRateNow, recommended: null, options, reason: 'notBilling' };
  const pick = (kind: IdleActionKind) => saving.find((o) => o.action === kind);
  const recommended = pick('noGpuMode') ?? (facts.stopEndsComputeBilling && facts.stopKeepsData ? pick('stop') : undefined) ?? pick('release') ?? saving[0]!;
  return { burnRateNow, recommended, options };
}

/** Money an idle box burns over `seconds` if nobody acts, fen. */
export function idleCostFen(advice: IdleAdvice, seconds: number): Fen {
  if (!(seconds > 0)) return 0;
  return Math.round((advice.burnRateNow * seconds) / 3600);
}
