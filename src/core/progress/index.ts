// Training runs you can see: progress read from the log, ETA and cost to finish, why a run ended.
export { readLine, parseInterval, parseCount, pyDict, MAX_LINE, type LineReading, type ProgressSource } from './lines';
// checkProgressPattern / patternProblem: import './userPattern' directly (it carries the linear-time analysis).
export { readByPattern, PROGRESS_GROUPS, type ProgressGroup } from './patternRead';
export { ProgressTracker, progressOf, emptyProgress, MAX_LOSS_POINTS, MAX_UNREAD_LINE, type Progress, type LossPoint, type Diverged } from './tracker';
export { estimateFinish, isStalled, stallThreshold, costOfSeconds, DEFAULT_STALL_SECONDS, type Finish, type RunPrice } from './eta';
export { detectCause, lastLines, END_CAUSE_KINDS, MAX_CAUSE_LINE, type EndCause, type EndCauseKind } from './causes';
export { causeSummary, causeRemedies, causeLang, EXTRA_DISK_GB, type CauseLang, type Remedy, type RemedyCode, type RemedyFacts } from './causeText';

/** What happens when a run ends: the final checkpoint sync first, then (only if it succeeded) the power action. */
export type EndAction = 'nothing' | 'sync' | 'sync-then-no-gpu' | 'sync-then-power-off';
export const END_ACTIONS: readonly EndAction[] = ['nothing', 'sync', 'sync-then-no-gpu', 'sync-then-power-off'];
export function isEndAction(v: unknown): v is EndAction {
  return typeof v === 'string' && (END_ACTIONS as readonly string[]).includes(v);
}
export { parseGpuLine, GpuWindow, gpuStreamCommand, addCapped, GPU_QUERY_FIELDS, GPU_VALUE_RANGES, MAX_GPUS, type GpuSample, type TimedSample } from './gpu';
