// When the guards speak: which notice fires for which instance at which moment. Pure (no
// vscode): the clock, the settings and the memos are handed in, so unit tests drive it with a
// fake clock. The words are in guardText.ts; the logic itself is core's (core/guards).
import { findPlatform, type Catalog } from '../core/catalog';
import { idleAdvice, type IdleActionKind, type IdleActionOption, type IdleAdvice } from '../core/guards/actions';
import { factsFor, factsFromCatalog, type GuardPlatformFacts } from '../core/guards/facts';
import { checkIdleSettings, judgeIdle, trimSamples, type IdleSample, type IdleSettings, type IdleSettingsError, type IdleVerdict } from '../core/guards/idle';
import { beijingDate, peakCheck, type PeakCheck } from '../core/guards/peak';
import { needsWarning, watchRelease, type ReleaseWatch } from '../core/guards/release';
import { spotCheck, type SpotCheck, type SpotInputError } from '../core/guards/spot';
import type { Instance } from '../core/instances';
import { currentState } from '../core/spend';

/** The platform's guard facts: the catalog's when it knows the platform, else the report's. */
export function guardFacts(catalog: Catalog, platform: string): GuardPlatformFacts {
  const p = findPlatform(catalog, platform);
  return p ? factsFromCatalog(p) : factsFor(platform);
}

/** The `gpuRent.idle.action` setting: which action the idle notice offers first. */
export type IdlePreference = 'recommended' | IdleActionKind;
export const IDLE_PREFERENCES: readonly IdlePreference[] = ['recommended', 'noGpuMode', 'stop', 'release'];

export interface IdleNotice {
  instanceId: string;
  verdict: IdleVerdict & { kind: 'idle' };
  advice: IdleAdvice;
  /** Actions to offer as buttons, the preferred (or recommended) one first; only those that save money. */
  offered: IdleActionOption[];
}

/** Offered actions: the user's preference when the platform allows it and it saves money, else core's recommendation, then the rest. */
export function offeredActions(advice: IdleAdvice, preference: IdlePreference): IdleActionOption[] {
  const saving = advice.options.filter((o) => o.savingPerHour > 0);
  if (!advice.recommended) return [];
  const first = (preference !== 'recommended' ? saving.find((o) => o.action === preference) : undefined) ?? advice.recommended;
  return [first, ...saving.filter((o) => o.action !== first.action)];
}

/**
 * Probes of each billing instance while the view is visible, judged by core's judgeIdle. One
 * notice per quiet stretch: it fires when the stretch reaches the window and not again until
 * the box has been busy (or unreadable) in between.
 */
export class IdleWatch {
  private readonly samples = new Map<string, IdleSample[]>();
  private readonly notified = new Map<string, number>();

  /** Records a probe and says whether to notify now. Instances not billing for a GPU are forgotten. */
  observe(inst: Instance, sample: IdleSample, settings: IdleSettings, facts: GuardPlatformFacts, preference: IdlePreference): { verdict: IdleVerdict; notice?: IdleNotice } {
    const state = currentState(inst.intervals);
    if (state !== 'running' && state !== 'spot') {
      this.forget(inst.id);
      return { verdict: { kind: 'cannotTell', reason: 'noSamples' } };
    }
    const kept = trimSamples([...(this.samples.get(inst.id) ?? []), sample], sample.at, settings);
    this.samples.set(inst.id, kept);
    const verdict = judgeIdle(kept, settings);
    if (verdict.kind !== 'idle') {
      // Busy or unreadable ends the stretch; quiet can only follow one of them.
      if (verdict.kind !== 'quiet') this.notified.delete(inst.id);
      return { verdict };
    }
    // The kept samples slide with the window, so quietSince moves: one notice until the stretch ends.
    if (this.notified.has(inst.id)) return { verdict };
    this.notified.set(inst.id, verdict.quietSince);
    const advice = idleAdvice(inst.pricing, facts, state);
    return { verdict, notice: { instanceId: inst.id, verdict, advice, offered: offeredActions(advice, preference) } };
  }

  samplesOf(id: string): readonly IdleSample[] {
    return this.samples.get(id) ?? [];
  }

  forget(id: string): void {
    this.samples.delete(id);
    this.notified.delete(id);
  }
}

/** Idle settings from the extension's settings (minutes there, seconds in core). */
export function idleSettingsOf(s: { idleUtilizationThresholdPct: number; idleWindowMinutes: number }): { ok: true; settings: IdleSettings } | { ok: false; error: IdleSettingsError } {
  return checkIdleSettings({ utilizationThresholdPct: s.idleUtilizationThresholdPct, windowSeconds: s.idleWindowMinutes * 60 });
}

export interface ReleaseNotice {
  instanceId: string;
  watch: ReleaseWatch;
}

/** Which stopped-instance warnings were shown: instance id → the key of the last one. */
export type ReleaseMemo = Record<string, string>;

/** Once per Beijing day per instance and deadline: day 12, 13 and 14 of AutoDL's 15 each get one reminder. */
function memoKey(w: ReleaseWatch, now: number): string {
  const d = beijingDate(now);
  const deadline = 'releaseAt' in w ? w.releaseAt : 'expiresAt' in w ? w.expiresAt : 0;
  return `${w.kind}:${deadline}:${d.year}-${d.month}-${d.day}`;
}

/**
 * Stopped instances whose platform rule needs a warning now, and the memo to store.
 * `platformWatch` gives the watch by the platform's own clock (AutoDL stopped_at / release_at)
 * where it is known; otherwise the stopped stretch recorded here counts.
 */
export function releaseNotices(instances: readonly Instance[], factsOf: (platform: string) => GuardPlatformFacts, now: number, memo: ReleaseMemo, platformWatch?: (inst: Instance, facts: GuardPlatformFacts) => ReleaseWatch | undefined): { notices: ReleaseNotice[]; memo: ReleaseMemo } {
  const next: ReleaseMemo = {};
  const notices: ReleaseNotice[] = [];
  for (const inst of instances) {
    const facts = factsOf(inst.platform);
    const w = (currentState(inst.intervals) !== 'released' ? platformWatch?.(inst, facts) : undefined) ?? watchRelease(inst.intervals, facts, now);
    if (!needsWarning(w)) continue;
    const key = memoKey(w, now);
    next[inst.id] = key;
    if (memo[inst.id] !== key) notices.push({ instanceId: inst.id, watch: w });
  }
  return { notices, memo: next };
}

/** The peak-hours notice for an instance that was just added or started, if any. */
export function peakNotice(inst: Instance, facts: GuardPlatformFacts, now: number): (PeakCheck & { kind: 'peak' }) | undefined {
  const state = currentState(inst.intervals);
  if (state !== 'running' && state !== 'spot') return undefined;
  const c = peakCheck(facts, now, inst.pricing);
  return c.kind === 'peak' ? c : undefined;
}

export type SpotDecision =
  /** Start without asking; `check` is shown as information when present. */
  | { kind: 'go'; check?: SpotCheck }
  /** Ask (modal) or, from a script without acceptSpotRisk, refuse. */
  | { kind: 'confirm'; reason: 'unknownLength' | 'long'; check?: SpotCheck }
  | { kind: 'badInput'; error: SpotInputError };

/**
 * Starting a job on a spot instance: core's spotCheck sizes the rework; a job over an hour (or
 * over the user's `training.spotWarnHours`, or of unknown length) needs an explicit yes.
 */
export function spotDecision(input: { spotRate: number; expectedHours: number | undefined; syncIntervalSeconds: number; warnHours: number; accepted: boolean }, facts?: GuardPlatformFacts): SpotDecision {
  if (input.expectedHours === undefined) return input.accepted ? { kind: 'go' } : { kind: 'confirm', reason: 'unknownLength' };
  const r = spotCheck({ spotRate: input.spotRate, jobSeconds: input.expectedHours * 3600, syncIntervalSeconds: input.syncIntervalSeconds }, facts);
  if (!r.ok) {
    // A zero-length estimate is a very short job: nothing to size, nothing to confirm.
    if (r.error.field === 'jobSeconds' && r.error.problem === 'mustBePositive') return { kind: 'go' };
    return { kind: 'badInput', error: r.error };
  }
  const long = r.check.needsConfirmation || input.expectedHours > input.warnHours;
  if (long && !input.accepted) return { kind: 'confirm', reason: 'long', check: r.check };
  return { kind: 'go', check: r.check };
}

/** Memory-only upload folders made per instance (wiped when it is released or removed). */
export type RamUploadMemo = Record<string, string[]>;

export function withRamDir(memo: RamUploadMemo, id: string, dir: string): RamUploadMemo {
  const dirs = memo[id] ?? [];
  return { ...memo, [id]: dirs.includes(dir) ? dirs : [...dirs, dir].slice(-50) };
}

export function withoutRamDir(memo: RamUploadMemo, id: string, dir?: string): RamUploadMemo {
  const next = { ...memo };
  const left = dir === undefined ? [] : (memo[id] ?? []).filter((d) => d !== dir);
  if (left.length) next[id] = left;
  else delete next[id];
  return next;
}

/** Reads the memo from storage; anything malformed counts as empty. */
export function ramMemoOf(raw: unknown): RamUploadMemo {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const out: RamUploadMemo = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (Array.isArray(v)) {
      const dirs = v.filter((d): d is string => typeof d === 'string' && d.startsWith('/') && d.length <= 4096);
      if (dirs.length) out[k] = dirs;
    }
  }
  return out;
}

/** A workspace-relative folder name for an instance's environment snapshot. */
export function envFolderName(inst: Pick<Instance, 'id' | 'name'>): string {
  const slug = inst.name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 40);
  return slug ? `${slug}-${inst.id}` : inst.id;
}
