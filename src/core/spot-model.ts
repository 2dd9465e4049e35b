// The spot model: what a reclaim costs in work redone. Each reclaim loses the work since the
// last checkpoint, never more than the work done so far (the report's one reclaim came at
// hour 2 of an 8 h run with no checkpoint and lost those 2 h).

export const DEFAULT_RECLAIM_RATE_PER_HOUR = 0.1;
export const DEFAULT_CHECKPOINT_INTERVAL_HOURS = 1;
/** The report runs spot only for jobs of this many hours or less ("只在跑短任务（1 小时）… 时用竞价实例", §4). */
export const SPOT_LIMIT_HOURS = 1;

/**
 * Expected hours lost to one reclaim at a moment equally likely anywhere in a `jobHours`
 * job checkpointed every `checkpointHours`: the work since the last checkpoint, never more
 * than the work done so far. (k·c² + r²) / (2T) with k = ⌊T / c⌋, r = T − k·c.
 */
export function expectedLossPerReclaim(jobHours: number, checkpointHours: number): number {
  const T = jobHours;
  if (!(T > 0)) return 0;
  const c = checkpointHours > 0 && Number.isFinite(checkpointHours) ? checkpointHours : T;
  const k = Math.floor(T / c);
  const r = Math.max(0, T - k * c);
  return Math.min(T, (k * c * c + r * r) / (2 * T));
}

/** Work lost by a reclaim at hour `t`: everything since the last checkpoint (all of it without one). */
export function reworkHoursIfReclaimedAt(t: number, checkpointHours: number | null): number {
  if (!(t > 0)) return 0;
  if (checkpointHours === null || !(checkpointHours > 0)) return t;
  return t - Math.floor(t / checkpointHours + 1e-12) * checkpointHours;
}
