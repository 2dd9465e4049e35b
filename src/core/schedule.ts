// Power schedules per instance: "mon-fri 17:00: power on (GPU)", "daily 01:00: switch to
// no-GPU", "daily 02:00: power off", always on the Beijing clock (UTC+8, no daylight saving,
// whatever the machine's time zone). Pure: the clock is passed in. A rule whose time passed
// while nothing was checking (the laptop slept) runs once when next checked only while it is
// still inside the grace window; later than that it is reported as missed, never run late.
import { z } from 'zod';
import { can, type Capability, type PlatformKind } from './platforms/types';
import { descriptorOf } from './platforms/descriptors';

const BEIJING_OFFSET = 8 * 3600;
const DAY = 86400;

export const SCHEDULE_ACTIONS = ['power-on', 'no-gpu', 'power-off'] as const;
export type ScheduleAction = (typeof SCHEDULE_ACTIONS)[number];

/** A missed rule still runs this long after its time (seconds). */
export const DEFAULT_GRACE_S = 30 * 60;
export const MAX_GRACE_S = 6 * 3600;
export const MAX_RULES = 200;

/** ISO weekdays: 1 Monday … 7 Sunday. */
const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export const ScheduleRuleSchema = z.strictObject({
  /** Short stable id for `schedule remove`. */
  id: z.string().regex(/^[a-z0-9]{4,16}$/),
  account: z.string().min(1).max(64),
  /** The platform's id of the instance. */
  ref: z.string().min(1).max(128),
  /** The instance's name when added (shown only). */
  name: z.string().max(128),
  /** ISO weekdays, ascending, no repeats. */
  days: z.array(z.number().int().min(1).max(7)).min(1).max(7),
  /** Minute of the Beijing day, 0–1439. */
  minute: z.number().int().min(0).max(1439),
  action: z.enum(SCHEDULE_ACTIONS),
  /** Epoch seconds when it was added: times before it are never due. */
  createdAt: z.number().int().min(0),
  /** Epoch seconds of the last occurrence handled (done, refused, failed or missed). */
  handledUntil: z.number().int().min(0).optional(),
});
export type ScheduleRule = z.infer<typeof ScheduleRuleSchema>;

export interface ScheduleTime {
  days: number[];
  minute: number;
}

export class ScheduleParseError extends Error {}

function dayIndex(word: string): number | undefined {
  const i = (DAY_NAMES as readonly string[]).indexOf(word.slice(0, 3));
  // "mon", "monday", "tues" … but not "monkey".
  if (i === -1) return undefined;
  const full = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'][i]!;
  return full.startsWith(word) && word.length >= 3 ? i + 1 : undefined;
}

function parseDays(text: string): number[] {
  const named: Record<string, number[]> = { daily: [1, 2, 3, 4, 5, 6, 7], everyday: [1, 2, 3, 4, 5, 6, 7], weekdays: [1, 2, 3, 4, 5], weekends: [6, 7] };
  const set = new Set<number>();
  for (const part of text.split(',')) {
    const p = part.trim();
    if (named[p]) {
      for (const d of named[p]) set.add(d);
      continue;
    }
    const ends = p.split('-');
    if (ends.length > 2) throw new ScheduleParseError(`"${p}" is not a day or a range of days`);
    const from = dayIndex(ends[0]!.trim());
    const to = ends.length === 2 ? dayIndex(ends[1]!.trim()) : from;
    if (from === undefined || to === undefined) throw new ScheduleParseError(`"${p}" is not a day (mon … sun, weekdays, weekends, daily)`);
    // A range may wrap round the week: fri-mon is fri, sat, sun, mon.
    for (let d = from, n = 0; n < 7; d = (d % 7) + 1, n++) {
      set.add(d);
      if (d === to) break;
    }
  }
  return [...set].sort((a, b) => a - b);
}

/**
 * `"mon-fri 17:00"`, `"daily 01:00"`, `"sat,sun 9:30"`, `"fri-mon 23:00"`, or `"17:00"` (every
 * day): days then a 24-hour Beijing time.
 */
export function parseScheduleAt(text: string): ScheduleTime {
  const t = text.trim().toLowerCase();
  if (!t || t.length > 80) throw new ScheduleParseError('expects days and a time, e.g. "mon-fri 17:00" or "daily 01:00"');
  const words = t.split(/\s+/);
  const clock = words.pop()!;
  const m = /^(\d{1,2}):(\d{2})$/.exec(clock);
  if (!m) throw new ScheduleParseError(`"${clock}" is not a time: use 24-hour HH:MM, Beijing time (e.g. 17:00)`);
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  if (hour > 23 || minute > 59) throw new ScheduleParseError(`"${clock}" is not a time of day (00:00 … 23:59)`);
  const days = words.length ? parseDays(words.join('')) : [1, 2, 3, 4, 5, 6, 7];
  return { days, minute: hour * 60 + minute };
}

/** "mon-fri 17:00", "daily 01:00", "mon,wed,fri 09:30": the compact form back. */
export function scheduleAtText(r: ScheduleTime): string {
  const hhmm = `${String(Math.floor(r.minute / 60)).padStart(2, '0')}:${String(r.minute % 60).padStart(2, '0')}`;
  const key = r.days.join(',');
  const days = key === '1,2,3,4,5,6,7' ? 'daily' : key === '1,2,3,4,5' ? 'mon-fri' : key === '6,7' ? 'sat-sun' : r.days.map((d) => DAY_NAMES[d - 1]).join(',');
  return `${days} ${hhmm}`;
}

/** The ISO weekday (1 Monday … 7 Sunday) of Beijing day number `n` (days since 1970-01-01, a Thursday). */
function weekday(n: number): number {
  return ((((n + 3) % 7) + 7) % 7) + 1;
}

function occurrence(n: number, minute: number): number {
  return n * DAY + minute * 60 - BEIJING_OFFSET;
}

/** Epoch seconds of the rule's next time strictly after `now`. */
export function nextDue(r: ScheduleTime, now: number): number {
  const today = Math.floor((now + BEIJING_OFFSET) / DAY);
  for (let d = 0; d <= 7; d++) {
    const at = occurrence(today + d, r.minute);
    if (at > now && r.days.includes(weekday(today + d))) return at;
  }
  // Unreachable for a validated rule (at least one day).
  throw new RangeError('a schedule with no days');
}

/** Epoch seconds of the rule's latest time at or before `now`. */
export function lastDue(r: ScheduleTime, now: number): number {
  const today = Math.floor((now + BEIJING_OFFSET) / DAY);
  for (let d = 0; d <= 7; d++) {
    const at = occurrence(today - d, r.minute);
    if (at <= now && r.days.includes(weekday(today - d))) return at;
  }
  throw new RangeError('a schedule with no days');
}

/** How many times the rule came round in (after, upTo], counted up to `cap`. */
function countBetween(r: ScheduleTime, after: number, upTo: number, cap = 1000): number {
  let n = 0;
  for (let at = lastDue(r, upTo); at > after && n < cap; at = lastDue(r, at - 1)) n++;
  return n;
}

export type DueVerdict =
  /** Run it now: its time `at` is inside the grace window. */
  | { kind: 'due'; rule: ScheduleRule; at: number; missedBefore: number }
  /** Its time passed outside the window (nothing checked in time): reported, not run. */
  | { kind: 'missed'; rule: ScheduleRule; at: number; lateS: number; missedBefore: number }
  /** A later rule of the same instance is due too: only the latest one runs. */
  | { kind: 'superseded'; rule: ScheduleRule; at: number; by: string };

/**
 * What to do at `now`: for each rule, its latest time after both its creation and the last
 * occurrence handled. Inside the grace window it is due; outside it, missed. Of several due
 * rules of one instance only the latest runs (a power-on and a power-off both due after a
 * sleep must not both happen, in the wrong order).
 */
export function dueRules(rules: readonly ScheduleRule[], now: number, graceS = DEFAULT_GRACE_S): DueVerdict[] {
  const out: DueVerdict[] = [];
  for (const rule of rules) {
    const since = Math.max(rule.createdAt, rule.handledUntil ?? 0);
    const at = lastDue(rule, now);
    if (at <= since) continue;
    const missedBefore = countBetween(rule, since, at - 1);
    if (now - at <= graceS) out.push({ kind: 'due', rule, at, missedBefore });
    else out.push({ kind: 'missed', rule, at, lateS: now - at, missedBefore });
  }
  const latest = new Map<string, DueVerdict>();
  for (const v of out) {
    if (v.kind !== 'due') continue;
    const key = `${v.rule.account}/${v.rule.ref}`;
    const prev = latest.get(key);
    if (!prev || v.at > prev.at || (v.at === prev.at && v.rule.id > prev.rule.id)) latest.set(key, v);
  }
  return out
    .map((v): DueVerdict => {
      if (v.kind !== 'due') return v;
      const win = latest.get(`${v.rule.account}/${v.rule.ref}`)!;
      return win === v ? v : { kind: 'superseded', rule: v.rule, at: v.at, by: win.rule.id };
    })
    .sort((a, b) => a.at - b.at || a.rule.id.localeCompare(b.rule.id));
}

/** The capability an action needs on a platform; undefined where the platform's API cannot do it. */
export function actionCapability(kind: PlatformKind, action: ScheduleAction): Capability | undefined {
  if (action === 'power-on') return can(kind, 'powerOn:gpu') ? 'powerOn:gpu' : undefined;
  if (action === 'no-gpu') return can(kind, 'powerOn:noGpu') ? 'powerOn:noGpu' : undefined;
  if (can(kind, 'powerOff:stopCharging')) return 'powerOff:stopCharging';
  return can(kind, 'powerOff:keep') ? 'powerOff:keep' : undefined;
}

/** What a rule does with an instance in a given state, decided before anything is sent. */
export type ActionPlan =
  | { kind: 'powerOn'; mode: 'gpu' | 'noGpu' }
  /** Running with its GPU: shut it down, then start it in no-GPU mode. */
  | { kind: 'switchToNoGpu' }
  | { kind: 'powerOff' }
  | { kind: 'skip'; reason: 'alreadyRunning' | 'alreadyNoGpu' | 'alreadyStopped' | 'stoppedNotStarted' | 'changingState' | 'released' };

export function planAction(action: ScheduleAction, state: string): ActionPlan {
  if (state === 'released' || state === 'releasing') return { kind: 'skip', reason: 'released' };
  if (state === 'starting' || state === 'stopping' || state === 'unknown') return { kind: 'skip', reason: 'changingState' };
  if (action === 'power-on') return state === 'running' ? { kind: 'skip', reason: 'alreadyRunning' } : state === 'noGpu' ? { kind: 'skip', reason: 'alreadyNoGpu' } : { kind: 'powerOn', mode: 'gpu' };
  if (action === 'power-off') return state === 'stopped' ? { kind: 'skip', reason: 'alreadyStopped' } : { kind: 'powerOff' };
  // no-gpu: a shut-down instance is not started just to be in no-GPU mode (that would start billing).
  if (state === 'noGpu') return { kind: 'skip', reason: 'alreadyNoGpu' };
  if (state === 'stopped') return { kind: 'skip', reason: 'stoppedNotStarted' };
  return { kind: 'switchToNoGpu' };
}

/**
 * Whether a platform can keep a rule's time itself (running while this computer sleeps), and
 * why not. Checked against the real requests: AutoDL Pro's developer API has no timer (a timed
 * shutdown set in the console shows as the list row's `timed_shutdown_at`); the AutoDL
 * console's `/api/v1/instance/timed/shutdown` arms one shut-down at one time, not a weekly rule
 * (`gpu-rent shutdown-timer` arms it: core/platforms/timedShutdown.ts); 阿里云's only timer, ModifyInstanceAutoReleaseTime, and 腾讯云's,
 * ImportInstancesActionTimer (TimerAction TerminateInstances only), DESTROY the instance, which
 * no power-off rule asks for; no platform starts an instance on a timer.
 */
export type NoPlatformTimer = 'noTimedStart' | 'proNoTimerApi' | 'oneOffTimer' | 'releaseOnly' | 'terminateOnly' | 'noTimer';

/** Why the platform cannot keep this rule's time (no connector arms a timer today: each reason is a real limit). */

export function noPlatformTimer(kind: PlatformKind, action: ScheduleAction): NoPlatformTimer {
  if (action === 'power-on') return 'noTimedStart';
  return descriptorOf(kind).stopTimerLimit;
}
