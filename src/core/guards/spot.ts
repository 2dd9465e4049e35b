// Before a job starts on a spot instance: the expected cost of work redone after reclaims for
// its estimated length and sync interval, a sync cadence that keeps that small, and an
// explicit confirmation for jobs over an hour (the report lost hour 2 of an 8-hour run and
// since runs only short jobs on spot). The rework rule is the cost model's (core/spot-model.ts):
// reclaims = rate × hours, each losing the work since the last sync (never more than the work so far).
import { DEFAULT_RECLAIM_RATE_PER_HOUR, expectedLossPerReclaim } from '../spot-model';
import { roundFen, type Fen } from '../money';
import type { GuardPlatformFacts } from './facts';

export interface SpotJobInput {
  /** Spot price of the whole instance, fen per hour. */
  spotRate: Fen;
  /** Estimated job length, seconds. */
  jobSeconds: number;
  /** Seconds between checkpoint syncs the user plans. */
  syncIntervalSeconds: number;
  /** Seconds one checkpoint save + sync takes (default 60). */
  checkpointSeconds?: number;
  /** Expected reclaims per hour (default: the cost model's assumption). */
  reclaimRatePerHour?: number;
}

/** Jobs longer than this on spot need an explicit yes. */
export const SPOT_CONFIRM_SECONDS = 3600;

export type SpotInputError = { field: keyof SpotJobInput; problem: 'notANumber' | 'mustBePositive' };

export interface SpotCheck {
  expectedReclaims: number;
  /** Expected seconds of work redone. */
  expectedReworkSeconds: number;
  expectedReworkFen: Fen;
  /** Young's interval √(2 × checkpoint cost × mean time between reclaims), within [5 min, job length]. */
  recommendedSyncIntervalSeconds: number;
  /** Rework cost if the recommended cadence is used. */
  reworkAtRecommendedFen: Fen;
  /** The planned interval is more than 1.5× the recommended one: only then is a cadence suggested (a longer one would raise the rework). */
  syncTooSparse: boolean;
  /** The interval the figures are for (the one configured or given). */
  syncIntervalSeconds: number;
  needsConfirmation: boolean;
  /** The platform announces reclaims (阿里云 metadata): the on-box watchdog can sync on notice. */
  reclaimNotice: GuardPlatformFacts['spotReclaimNotice'];
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

export function spotCheck(input: SpotJobInput, facts?: GuardPlatformFacts): { ok: true; check: SpotCheck } | { ok: false; error: SpotInputError } {
  for (const field of ['spotRate', 'jobSeconds', 'syncIntervalSeconds'] as const) {
    const v = input[field];
    if (typeof v !== 'number' || !Number.isFinite(v)) return { ok: false, error: { field, problem: 'notANumber' } };
    if (!(v > 0)) return { ok: false, error: { field, problem: 'mustBePositive' } };
  }
  if (input.checkpointSeconds !== undefined && !positive(input.checkpointSeconds)) return { ok: false, error: { field: 'checkpointSeconds', problem: 'mustBePositive' } };
  if (input.reclaimRatePerHour !== undefined && !positive(input.reclaimRatePerHour)) return { ok: false, error: { field: 'reclaimRatePerHour', problem: 'mustBePositive' } };
  const rate = input.reclaimRatePerHour ?? DEFAULT_RECLAIM_RATE_PER_HOUR;
  const hours = input.jobSeconds / 3600;
  const expectedReclaims = rate * hours;
  // The cost model's rule (spot-model.ts, also used by `gpu-rent quote` and the calculator):
  // the work since the last checkpoint, never more than the work done so far.
  const lostPerReclaim = (interval: number) => expectedLossPerReclaim(hours, interval / 3600) * 3600;
  const reworkFen = (interval: number) => roundFen((input.spotRate * expectedReclaims * lostPerReclaim(interval)) / 3600);
  const meanSecondsBetweenReclaims = 3600 / rate;
  const young = Math.sqrt(2 * (input.checkpointSeconds ?? 60) * meanSecondsBetweenReclaims);
  const recommended = Math.round(Math.min(Math.max(young, 300), Math.max(input.jobSeconds, 300)));
  return {
    ok: true,
    check: {
      expectedReclaims,
      expectedReworkSeconds: expectedReclaims * lostPerReclaim(input.syncIntervalSeconds),
      expectedReworkFen: reworkFen(input.syncIntervalSeconds),
      recommendedSyncIntervalSeconds: recommended,
      reworkAtRecommendedFen: reworkFen(recommended),
      syncTooSparse: input.syncIntervalSeconds > recommended * 1.5,
      syncIntervalSeconds: input.syncIntervalSeconds,
      needsConfirmation: input.jobSeconds > SPOT_CONFIRM_SECONDS,
      reclaimNotice: facts?.spotReclaimNotice ?? null,
    },
  };
}
