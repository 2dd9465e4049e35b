// The platform's own clock for the release of a stopped instance. AutoDL releases an instance
// 15 days after it was shut down, counted from the platform's `stopped_at` (Pro list) or given
// as `release_at` (console list): a warning counted from the moment gpu-rent first SAW the
// instance stopped comes too late for one imported after 13 days off. Pure.
import type { GuardPlatformFacts } from '../guards/facts';
import { watchRule, type ReleaseWatch } from '../guards/release';
import type { PlatformState } from './types';

const DAY = 86400;

/** What the platform said about a stopped instance's clock (epoch seconds). */
export interface PlatformClock {
  state: PlatformState;
  stoppedAt?: number;
  releaseAt?: number;
}

/** The release day by the platform's clock: `release_at`, else `stopped_at` + the rule's days. Undefined when the platform gives neither or the rule does not apply. */
export function platformReleaseAt(facts: Pick<GuardPlatformFacts, 'releaseRules'>, clock: PlatformClock): number | undefined {
  if (clock.state !== 'stopped') return undefined;
  const rule = facts.releaseRules.find((r) => r.kind === 'releaseAfterStoppedDays');
  if (!rule || rule.kind !== 'releaseAfterStoppedDays') return undefined;
  if (clock.releaseAt !== undefined && Number.isFinite(clock.releaseAt)) return clock.releaseAt;
  if (clock.stoppedAt !== undefined && Number.isFinite(clock.stoppedAt)) return clock.stoppedAt + rule.days * DAY;
  return undefined;
}

/**
 * The release watch by the platform's clock, or undefined where the platform gave no clock
 * (the caller falls back to the stretch gpu-rent recorded). The days are counted back from
 * the platform's release day, so the warning period (from day `warnFromDay`) ends on it.
 */
export function platformReleaseWatch(facts: Pick<GuardPlatformFacts, 'releaseRules'>, clock: PlatformClock, now: number): ReleaseWatch | undefined {
  const releaseAt = platformReleaseAt(facts, clock);
  const rule = facts.releaseRules.find((r) => r.kind === 'releaseAfterStoppedDays');
  if (releaseAt === undefined || !rule || rule.kind !== 'releaseAfterStoppedDays') return undefined;
  const w = watchRule(rule, releaseAt - rule.days * DAY, now);
  // The platform's own stop time, where it gave one, is the one to show.
  if (clock.stoppedAt !== undefined && 'stoppedSince' in w) return { ...w, stoppedSince: Math.min(clock.stoppedAt, now) };
  return w;
}

/** The release day as the tree says it: the day (Beijing), whether it passed, whether it is inside the "soon" days. */
export interface ReleaseDay {
  releaseAt: number;
  stoppedAt?: number;
  passed: boolean;
  soon: boolean;
  secondsLeft: number;
}

/** The row and the CLI say "soon" inside this many days of the platform's release day. */
export const RELEASE_SOON_DAYS = 3;

/** A stopped instance's release day by the platform's clock; undefined for one that is not stopped or has no clock. */
export function releaseDay(o: PlatformClock, now: number): ReleaseDay | undefined {
  if (o.state !== 'stopped' || o.releaseAt === undefined || !Number.isFinite(o.releaseAt)) return undefined;
  const secondsLeft = o.releaseAt - now;
  return { releaseAt: o.releaseAt, ...(o.stoppedAt !== undefined && Number.isFinite(o.stoppedAt) ? { stoppedAt: o.stoppedAt } : {}), passed: secondsLeft <= 0, soon: secondsLeft < RELEASE_SOON_DAYS * DAY, secondsLeft: Math.max(0, secondsLeft) };
}
