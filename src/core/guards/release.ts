// Watches a stopped instance against its platform's release rules: AutoDL releases an instance,
// data and all, after 15 consecutive days shut down (warn from day 12, with the date);
// 矩池云 keeps a free snapshot for 24 hours after a stop.
import type { StateInterval } from '../spend';
import type { GuardPlatformFacts, ReleaseRule } from './facts';

const DAY = 86400;
const HOUR = 3600;

export type ReleaseWatch =
  /** Not stopped, or no rule applies. */
  | { kind: 'ok' }
  /** Stopped, rule known, not yet in the warning period. */
  | { kind: 'counting'; rule: ReleaseRule; stoppedSince: number; releaseAt: number; dayNumber: number }
  /** Inside the warning period: `releaseAt` is the date to show. */
  | { kind: 'releaseSoon'; rule: ReleaseRule; stoppedSince: number; releaseAt: number; dayNumber: number; secondsLeft: number }
  /** Past the deadline: the platform has (probably) released it. */
  | { kind: 'probablyReleased'; rule: ReleaseRule; stoppedSince: number; releaseAt: number }
  /** 矩池云: the free snapshot runs out at `expiresAt`. */
  | { kind: 'snapshotExpires'; rule: ReleaseRule; stoppedSince: number; expiresAt: number; secondsLeft: number }
  | { kind: 'snapshotExpired'; rule: ReleaseRule; stoppedSince: number; expiresAt: number };

/** When the current unbroken stopped stretch began, or null when the instance is not stopped now. */
export function stoppedSince(intervals: readonly StateInterval[]): number | null {
  const last = intervals[intervals.length - 1];
  if (!last || last.to !== undefined || last.state !== 'stopped') return null;
  let since = last.from;
  // Consecutive stopped intervals (a price edit splits one) count as one stretch.
  for (let i = intervals.length - 2; i >= 0; i--) {
    const iv = intervals[i]!;
    if (iv.state !== 'stopped' || iv.to !== since) break;
    since = iv.from;
  }
  return since;
}

export function watchRule(rule: ReleaseRule, since: number, now: number): ReleaseWatch {
  if (rule.kind === 'releaseAfterStoppedDays') {
    const releaseAt = since + rule.days * DAY;
    if (now >= releaseAt) return { kind: 'probablyReleased', rule, stoppedSince: since, releaseAt };
    // Day 1 is the first 24 hours after the stop.
    const dayNumber = Math.floor(Math.max(0, now - since) / DAY) + 1;
    if (dayNumber >= rule.warnFromDay) return { kind: 'releaseSoon', rule, stoppedSince: since, releaseAt, dayNumber, secondsLeft: releaseAt - now };
    return { kind: 'counting', rule, stoppedSince: since, releaseAt, dayNumber };
  }
  const expiresAt = since + rule.hours * HOUR;
  if (now >= expiresAt) return { kind: 'snapshotExpired', rule, stoppedSince: since, expiresAt };
  return { kind: 'snapshotExpires', rule, stoppedSince: since, expiresAt, secondsLeft: expiresAt - now };
}

/** The most urgent watch over every rule of the platform (earliest deadline first). */
export function watchRelease(intervals: readonly StateInterval[], facts: GuardPlatformFacts, now: number): ReleaseWatch {
  const since = stoppedSince(intervals);
  if (since === null || !facts.releaseRules.length) return { kind: 'ok' };
  const watches = facts.releaseRules.map((r) => watchRule(r, since, now));
  const deadline = (w: ReleaseWatch) => ('releaseAt' in w ? w.releaseAt : 'expiresAt' in w ? w.expiresAt : Infinity);
  return watches.sort((a, b) => deadline(a) - deadline(b))[0]!;
}

/** True for the watches the user must be told about now. */
export function needsWarning(w: ReleaseWatch): boolean {
  return w.kind === 'releaseSoon' || w.kind === 'probablyReleased' || w.kind === 'snapshotExpires' || w.kind === 'snapshotExpired';
}

/** A file on the box, as listed for the release guard. */
export interface CheckpointFile {
  /** Path relative to the checkpoint folder, '/'-separated. */
  rel: string;
  size: number;
  /** Whole seconds. */
  mtime: number;
}

export interface AtRiskFile extends CheckpointFile {
  /** missing: no local copy; differs: the local copy has another size or time (sync keeps the box's mtime). */
  reason: 'missing' | 'differs';
}

/** What releasing the box would lose: box files with no identical local copy, biggest first. */
export function checkpointsAtRisk(remote: readonly CheckpointFile[], local: ReadonlyMap<string, { size: number; mtime: number }>): { files: AtRiskFile[]; bytes: number } {
  const files: AtRiskFile[] = [];
  for (const f of remote) {
    const l = local.get(f.rel);
    if (!l) files.push({ ...f, reason: 'missing' });
    else if (l.size !== f.size || Math.floor(l.mtime) !== Math.floor(f.mtime)) files.push({ ...f, reason: 'differs' });
  }
  files.sort((a, b) => b.size - a.size || a.rel.localeCompare(b.rel));
  return { files, bytes: files.reduce((a, f) => a + f.size, 0) };
}
