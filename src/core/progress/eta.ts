// When a run ends and what it costs to get there: the remaining steps over the rate, priced
// at the instance's current compute rate plus its storage, and for a spot instance the
// expected rework (the core's spot model, guards/spot.ts) on top. Stalled: the process lives
// but no progress line came for a while (a hung loop still bills).
import { spotCheck } from '../guards/spot';
import { roundFen, type Fen } from '../money';
import type { Progress } from './tracker';

export interface RunPrice {
  /** Compute charge now, fen per hour (the current state interval's rate). */
  computeFenPerHour: Fen;
  /** Storage, all billed GB together, fen per day. */
  storageFenPerDay: Fen;
  /** Present on a spot instance: the sync cadence sizes the expected rework. */
  spot?: { syncIntervalSeconds: number; reclaimRatePerHour?: number };
}

export interface Finish {
  /** Seconds until the last step; null when the total or the rate is unknown. */
  etaSeconds: number | null;
  /** Epoch seconds of the finish on the caller's clock. */
  finishAt: number | null;
  /** Compute + storage until the finish (+ expected spot rework); null when the ETA is unknown. */
  costToFinishFen: Fen | null;
  /** The spot rework part of costToFinishFen. */
  reworkFen: Fen | null;
  stalled: boolean;
  /** Seconds since progress last moved (box clock). */
  quietSeconds: number | null;
}

/** No progress line for this long (or five steps' time, if longer) while the process lives = stalled. */
export const DEFAULT_STALL_SECONDS = 600;

export function stallThreshold(p: Pick<Progress, 'rate' | 'epochRate'>, minSeconds = DEFAULT_STALL_SECONDS): number {
  const stepTime = p.rate && p.rate > 0 ? 1 / p.rate : 0;
  // A log that prints once an epoch is quiet for an epoch: stalled after two epochs' time with nothing.
  const epochTime = !stepTime && p.epochRate && p.epochRate > 0 ? 1 / p.epochRate : 0;
  return Math.max(minSeconds, 5 * stepTime, 2 * epochTime);
}

/** Whether a live run's log stopped moving. `now` must be on the same clock as the progress times. */
export function isStalled(p: Pick<Progress, 'rate' | 'epochRate' | 'lastUpdateAt' | 'lastOutputAt'>, now: number, alive: boolean, minSeconds = DEFAULT_STALL_SECONDS): boolean {
  if (!alive) return false;
  const last = p.lastUpdateAt ?? p.lastOutputAt;
  if (last === null) return false;
  return now - last > stallThreshold(p, minSeconds);
}

/** Cost of `seconds` more at this price, with the spot rework when it is a spot instance. */
export function costOfSeconds(seconds: number, price: RunPrice): { fen: Fen; reworkFen: Fen } {
  const s = Math.max(0, Number.isFinite(seconds) ? seconds : 0);
  const base = (Math.max(0, price.computeFenPerHour) * s) / 3600 + (Math.max(0, price.storageFenPerDay) * s) / 86400;
  let rework = 0;
  if (price.spot && s > 0 && price.computeFenPerHour > 0) {
    const c = spotCheck({ spotRate: price.computeFenPerHour, jobSeconds: s, syncIntervalSeconds: Math.max(1, price.spot.syncIntervalSeconds), ...(price.spot.reclaimRatePerHour ? { reclaimRatePerHour: price.spot.reclaimRatePerHour } : {}) });
    if (c.ok) rework = c.check.expectedReworkFen;
  }
  return { fen: roundFen(base) + rework, reworkFen: rework };
}

/**
 * ETA and cost to finish. `boxNow` is the box's clock (progress times come from it); `localNow`
 * the caller's, for the finish time shown to the user.
 */
export function estimateFinish(p: Progress, price: RunPrice | null, opts: { boxNow: number; localNow?: number; alive: boolean; stallSeconds?: number }): Finish {
  const stalled = isStalled(p, opts.boxNow, opts.alive, opts.stallSeconds);
  const last = p.lastUpdateAt ?? p.lastOutputAt;
  const quietSeconds = last === null ? null : Math.max(0, opts.boxNow - last);
  let eta: number | null = null;
  if (p.step !== null && p.total !== null && p.total > 0 && p.rate !== null && p.rate > 0) {
    const left = Math.max(0, p.total - p.step) / p.rate;
    // The time since the last reading already passed (unless it stalled: then nothing moves).
    eta = stalled ? left : Math.max(0, left - (quietSeconds ?? 0));
    if (p.step >= p.total) eta = 0;
  }
  // An epoch-only log (`Training Epoch:[653/1500] loss=…`): the epochs left over the epochs per second.
  if (eta === null && p.step === null && p.epoch !== null && p.epochTotal !== null && p.epochTotal > 0 && p.epochRate && p.epochRate > 0) {
    const left = Math.max(0, p.epochTotal - p.epoch) / p.epochRate;
    eta = stalled ? left : Math.max(0, left - (quietSeconds ?? 0));
  }
  if (eta !== null && !Number.isFinite(eta)) eta = null;
  const localNow = opts.localNow ?? opts.boxNow;
  const cost = eta !== null && price ? costOfSeconds(eta, price) : null;
  return {
    etaSeconds: eta === null ? null : Math.round(eta),
    finishAt: eta === null ? null : Math.round(localNow + eta),
    costToFinishFen: cost ? cost.fen : null,
    reworkFen: cost ? cost.reworkFen : null,
    stalled,
    quietSeconds,
  };
}
