// Idle-GPU detection over periodic probes. A box is idle only when three independent signals
// agree for a whole window: every GPU's utilisation is under the threshold, no compute process
// holds a GPU, and no job log grew. One busy signal in any probe resets the window, so a
// stalled loop (low utilisation, silent log) is caught while a busy GPU never is.
import type { SmiProcess, SmiResult } from '../smi/types';

export interface IdleSettings {
  /** A GPU at or above this utilisation (percent) counts as working. */
  utilizationThresholdPct: number;
  /** How long (seconds) every signal must stay quiet before the box is called idle. */
  windowSeconds: number;
}

export const DEFAULT_IDLE_SETTINGS: IdleSettings = { utilizationThresholdPct: 10, windowSeconds: 30 * 60 };

/** One probe of the box. */
export interface IdleSample {
  /** Epoch seconds when the probe ran. */
  at: number;
  /** Parsed nvidia-smi output (the doctor's parser), or its failure. */
  smi: SmiResult;
  /**
   * Byte size of each job log the box has (path → bytes). `{}` when there are no jobs;
   * null when the logs could not be read (then log progress cannot be ruled out).
   */
  logSizes: Record<string, number> | null;
}

/** Why a probe shows work going on. */
export type BusySignal = 'gpuUtilization' | 'gpuProcesses' | 'logGrowing';

export type CannotTellReason = 'noSamples' | 'probeFailed' | 'utilizationUnavailable' | 'logsUnreadable';

export type IdleVerdict =
  /** The latest probe shows work; `signals` says which. */
  | { kind: 'busy'; signals: BusySignal[]; maxUtilizationPct: number | null; computeProcesses: number }
  /** Quiet so far, but not for the whole window yet. */
  | { kind: 'quiet'; quietSince: number; quietSeconds: number; remainingSeconds: number }
  /** Quiet for at least the whole window: act. */
  | { kind: 'idle'; quietSince: number; quietSeconds: number }
  /** The latest probe cannot show idleness either way; never treated as idle. */
  | { kind: 'cannotTell'; reason: CannotTellReason };

/** Graphics-only clients (Xorg, a desktop shell) do not keep a training job alive. */
export function isComputeProcess(p: SmiProcess): boolean {
  const t = (p.type ?? '').toUpperCase();
  // An unknown type is counted as compute: a false "busy" costs nothing, a false "idle" does.
  return t === '' || t.includes('C') || t.includes('M');
}

type SampleReading = { kind: 'cannotTell'; reason: CannotTellReason } | { kind: 'read'; signals: BusySignal[]; maxUtilizationPct: number | null; computeProcesses: number };

function readSample(sample: IdleSample, previous: IdleSample | undefined, settings: IdleSettings): SampleReading {
  if (!sample.smi.ok) return { kind: 'cannotTell', reason: 'probeFailed' };
  const { gpus, processes } = sample.smi.report;
  if (gpus.length === 0) return { kind: 'cannotTell', reason: 'probeFailed' };
  const signals: BusySignal[] = [];
  const utils = gpus.map((g) => g.utilizationGpuPct);
  const known = utils.filter((u): u is number => typeof u === 'number' && Number.isFinite(u));
  const maxUtilizationPct = known.length ? Math.max(...known) : null;
  if (maxUtilizationPct !== null && maxUtilizationPct >= settings.utilizationThresholdPct) signals.push('gpuUtilization');
  const computeProcesses = processes.filter(isComputeProcess).length;
  if (computeProcesses > 0) signals.push('gpuProcesses');
  if (sample.logSizes && previous?.logSizes && logsGrew(previous.logSizes, sample.logSizes)) signals.push('logGrowing');
  if (signals.length) return { kind: 'read', signals, maxUtilizationPct, computeProcesses };
  // Nothing busy seen, but a blind spot keeps us from calling it quiet.
  if (known.length < utils.length) return { kind: 'cannotTell', reason: 'utilizationUnavailable' };
  if (sample.logSizes === null) return { kind: 'cannotTell', reason: 'logsUnreadable' };
  return { kind: 'read', signals, maxUtilizationPct, computeProcesses };
}

/** True when any log is new, or its size changed (a rotated, truncated log is activity too). */
export function logsGrew(before: Record<string, number>, after: Record<string, number>): boolean {
  for (const [path, size] of Object.entries(after)) {
    if (before[path] !== size) return true;
  }
  return false;
}

/** Judges the latest state of a box from its probes (any order; older ones beyond the window are ignored). */
export function judgeIdle(samples: readonly IdleSample[], settings: IdleSettings = DEFAULT_IDLE_SETTINGS): IdleVerdict {
  const sorted = [...samples].filter((s) => Number.isFinite(s.at)).sort((a, b) => a.at - b.at);
  const latest = sorted[sorted.length - 1];
  if (!latest) return { kind: 'cannotTell', reason: 'noSamples' };
  const latestReading = readSample(latest, sorted[sorted.length - 2], settings);
  if (latestReading.kind === 'cannotTell') return latestReading;
  if (latestReading.signals.length) {
    return { kind: 'busy', signals: latestReading.signals, maxUtilizationPct: latestReading.maxUtilizationPct, computeProcesses: latestReading.computeProcesses };
  }
  // Walk back while probes stay quiet; the earliest quiet one starts the quiet stretch.
  let quietSince = latest.at;
  for (let i = sorted.length - 2; i >= 0; i--) {
    const reading = readSample(sorted[i]!, sorted[i - 1], settings);
    if (reading.kind === 'cannotTell' || reading.signals.length) break;
    quietSince = sorted[i]!.at;
  }
  const window = Math.max(0, settings.windowSeconds);
  const quietSeconds = latest.at - quietSince;
  if (quietSeconds >= window && sorted.length >= 2) return { kind: 'idle', quietSince, quietSeconds };
  return { kind: 'quiet', quietSince, quietSeconds, remainingSeconds: Math.max(0, window - quietSeconds) };
}

/** Keeps only what judgeIdle needs: the probes inside the window plus one before it. */
export function trimSamples(samples: readonly IdleSample[], now: number, settings: IdleSettings = DEFAULT_IDLE_SETTINGS): IdleSample[] {
  const sorted = [...samples].sort((a, b) => a.at - b.at);
  const cutoff = now - settings.windowSeconds;
  let firstInside = sorted.findIndex((s) => s.at >= cutoff);
  if (firstInside === -1) firstInside = sorted.length;
  return sorted.slice(Math.max(0, firstInside - 2));
}

export type IdleSettingsError = { field: 'utilizationThresholdPct' | 'windowSeconds'; problem: 'notANumber' | 'outOfRange'; min: number; max: number };

/** Validates user settings; the adapters turn the error into words. */
export function checkIdleSettings(s: Partial<IdleSettings>): { ok: true; settings: IdleSettings } | { ok: false; error: IdleSettingsError } {
  const threshold = s.utilizationThresholdPct ?? DEFAULT_IDLE_SETTINGS.utilizationThresholdPct;
  const window = s.windowSeconds ?? DEFAULT_IDLE_SETTINGS.windowSeconds;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold)) return { ok: false, error: { field: 'utilizationThresholdPct', problem: 'notANumber', min: 1, max: 100 } };
  if (threshold < 1 || threshold > 100) return { ok: false, error: { field: 'utilizationThresholdPct', problem: 'outOfRange', min: 1, max: 100 } };
  if (typeof window !== 'number' || !Number.isFinite(window)) return { ok: false, error: { field: 'windowSeconds', problem: 'notANumber', min: 60, max: 7 * 86400 } };
  if (window < 60 || window > 7 * 86400) return { ok: false, error: { field: 'windowSeconds', problem: 'outOfRange', min: 60, max: 7 * 86400 } };
  return { ok: true, settings: { utilizationThresholdPct: threshold, windowSeconds: window } };
}
