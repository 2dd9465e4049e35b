// Spend accounting over recorded state intervals. Each interval carries the prices that were
// in force when it opened, so a later price change never rewrites history. Money is integer
// fen; time is epoch seconds; calendar boundaries are Beijing time (UTC+8, no DST since 1991).
import type { BillingMode as CatalogMode } from './catalog/schema';
import type { Fen } from './money';

/** What the instance is doing, as the renter switches it on the platform's console. */
export type InstanceState = 'running' | 'noGpu' | 'stopped' | 'spot' | 'released';
export const INSTANCE_STATES: readonly InstanceState[] = ['running', 'noGpu', 'stopped', 'spot', 'released'];

/**
 * How the GPU is paid for: by the hour, or a package (day/week/month) that bills whatever the
 * state. The catalog's words (its `spot` is a price, not a plan: spot is an instance state).
 */
export type BillingMode = Exclude<CatalogMode, 'spot'>;
export const BILLING_MODES: readonly BillingMode[] = ['hour', 'day', 'week', 'month'];
/** Hours a plan covers. */
export const PLAN_HOURS: Record<BillingMode, number> = { hour: 1, day: 24, week: 168, month: 720 };

/** The words stored before one vocabulary ('hourly' …) still read. */
const LEGACY_MODES: Record<string, BillingMode> = { hourly: 'hour', daily: 'day', weekly: 'week', monthly: 'month' };
export function normalizeBillingMode(v: unknown): unknown {
  return typeof v === 'string' && v in LEGACY_MODES ? LEGACY_MODES[v] : v;
}

/** The prices the renter agreed to, as entered (pre-filled from the catalog). */
export interface Pricing {
  billingMode: BillingMode;
  /** GPU price per hour for the whole instance (all its cards), fen/h. For a package: its price spread over its hours. */
  hourlyRate: Fen;
  /** Spot price per hour, fen/h; absent when the platform has no spot offer for this card. */
  spotRate?: Fen;
  /** AutoDL-style "no-GPU mode" price per hour, fen/h (0 when the platform has none). */
  noGpuModeRate: Fen;
  /** Data disk price per GB per day, fen. */
  storageGbDay: Fen;
  /** Billed data disk size in GB (the part beyond any free allowance). */
  dataDiskGb: number;
  /**
   * The billed disk size is not known (an instance first seen on a platform that does not say
   * it): its storage cost is shown as `?`, never as ¥0.00 (issue 41 bug 5). Cleared when the
   * renter enters the size.
   */
  dataDiskUnknown?: true;
}

/** Whether an instance's storage cost is not known now (its disk size was never given), so its rate is shown with `?`. */
export function storageUnknown(pricing: Pick<Pricing, 'dataDiskUnknown'>, state: InstanceState | undefined): boolean {
  return pricing.dataDiskUnknown === true && state !== undefined && state !== 'released';
}

/** One stretch of time in one state, with the prices in force when it started. */
export interface StateInterval {
  state: InstanceState;
  /** Epoch seconds. */
  from: number;
  /** Epoch seconds; absent while this is the current state. */
  to?: number;
  /** Compute charge for this state, fen per hour. */
  computeRate: Fen;
  /** Storage charge (all billed GB together), fen per day. */
  storageRate: Fen;
}

export const SECONDS_PER_HOUR = 3600;
export const SECONDS_PER_DAY = 86400;
const BEIJING_OFFSET = 8 * SECONDS_PER_HOUR;

const prepaid = (mode: BillingMode): boolean => mode !== 'hour';
const safe = (n: number): number => (Number.isFinite(n) && n > 0 ? n : 0);

/** Fen per hour charged for compute in `state`. A prepaid package bills until released. */
export function computeRateFor(pricing: Pricing, state: InstanceState): Fen {
  if (state === 'released') return 0;
  if (prepaid(pricing.billingMode)) return safe(pricing.hourlyRate);
  switch (state) {
    case 'running':
      return safe(pricing.hourlyRate);
    case 'spot':
      return safe(pricing.spotRate ?? pricing.hourlyRate);
    case 'noGpu':
      return safe(pricing.noGpuModeRate);
    case 'stopped':
      return 0;
  }
}

/** Fen per day charged for the data disk in `state`: everything but a released instance keeps its disk. */
export function storageRateFor(pricing: Pricing, state: InstanceState): Fen {
  if (state === 'released') return 0;
  return Math.round(safe(pricing.storageGbDay) * safe(pricing.dataDiskGb));
}

export function openInterval(state: InstanceState, pricing: Pricing, now: number): StateInterval {
  return { state, from: now, computeRate: computeRateFor(pricing, state), storageRate: storageRateFor(pricing, state) };
}

export type TransitionError = { kind: 'alreadyReleased' } | { kind: 'sameState' } | { kind: 'timeBeforeCurrent'; currentFrom: number };

/** Closes the current interval at `now` and opens one in `state` at today's prices. */
export function switchState(
  intervals: readonly StateInterval[],
  state: InstanceState,
  pricing: Pricing,
  now: number,
): { ok: true; intervals: StateInterval[] } | { ok: false; error: TransitionError } {
  const current = currentInterval(intervals);
  if (current) {
    if (current.state === 'released') return { ok: false, error: { kind: 'alreadyReleased' } };
    if (current.state === state) return { ok: false, error: { kind: 'sameState' } };
    if (now < current.from) return { ok: false, error: { kind: 'timeBeforeCurrent', currentFrom: current.from } };
  }
  return { ok: true, intervals: [...closeCurrent(intervals, now), openInterval(state, pricing, now)] };
}

/** A price edit: history keeps its old prices; from `now` on the same state bills at the new ones. */
export function repriceCurrent(intervals: readonly StateInterval[], pricing: Pricing, now: number): StateInterval[] {
  const current = currentInterval(intervals);
  if (!current || current.state === 'released') return [...intervals];
  const next = openInterval(current.state, pricing, Math.max(now, current.from));
  if (next.computeRate === current.computeRate && next.storageRate === current.storageRate) return [...intervals];
  if (next.from === current.from) return [...intervals.slice(0, -1), next];
  return [...closeCurrent(intervals, next.from), next];
}

function closeCurrent(intervals: readonly StateInterval[], now: number): StateInterval[] {
  return intervals.map((iv, i) => (i === intervals.length - 1 && iv.to === undefined ? { ...iv, to: Math.max(now, iv.from) } : iv));
}

export function currentInterval(intervals: readonly StateInterval[]): StateInterval | undefined {
  const last = intervals[intervals.length - 1];
  return last && last.to === undefined ? last : undefined;
}

export function currentState(intervals: readonly StateInterval[]): InstanceState | undefined {
  return currentInterval(intervals)?.state;
}

/** Seconds spent in the current state so far (0 when there is none). */
export function secondsInState(intervals: readonly StateInterval[], now: number): number {
  const c = currentInterval(intervals);
  return c ? Math.max(0, now - c.from) : 0;
}

/**
 * Cost of the intervals inside [from, to), in fen, rounded once at the end. The sum is kept
 * in fen·seconds per day (an integer for integer rates) so that many short intervals do not
 * accumulate rounding error.
 */
export function accruedFen(intervals: readonly StateInterval[], now: number, window?: { from: number; to: number }): Fen {
  let fenSecondsPerDay = 0;
  for (const iv of intervals) {
    const start = Math.max(iv.from, window?.from ?? -Infinity);
    const end = Math.min(iv.to ?? now, now, window?.to ?? Infinity);
    const secs = end - start;
    if (!(secs > 0)) continue;
    fenSecondsPerDay += safe(iv.computeRate) * 24 * secs + safe(iv.storageRate) * secs;
  }
  return Math.round(fenSecondsPerDay / SECONDS_PER_DAY);
}

/** What the instance costs per hour right now (compute + storage), in fen/h, unrounded. */
export function burnRateFenPerHour(intervals: readonly StateInterval[]): number {
  const c = currentInterval(intervals);
  return c ? safe(c.computeRate) + safe(c.storageRate) / 24 : 0;
}

// Beijing calendar boundaries, as epoch seconds.

export function beijingDayStart(t: number): number {
  return Math.floor((t + BEIJING_OFFSET) / SECONDS_PER_DAY) * SECONDS_PER_DAY - BEIJING_OFFSET;
}

export function beijingMonthStart(t: number): number {
  const d = new Date((t + BEIJING_OFFSET) * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000 - BEIJING_OFFSET;
}

export function beijingNextMonthStart(t: number): number {
  const d = new Date((t + BEIJING_OFFSET) * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000 - BEIJING_OFFSET;
}

/** "2026-11-09 16:01": the Beijing date and time of t, to the minute. */
export function beijingDateTime(t: number): string {
  return new Date((t + BEIJING_OFFSET) * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** "2026-11-09": the Beijing calendar day of t. */
export function beijingDate(t: number): string {
  return beijingDateTime(t).slice(0, 10);
}

/** "2026-11" for the Beijing month containing t. */
export function beijingMonthKey(t: number): string {
  const d = new Date((t + BEIJING_OFFSET) * 1000);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

export interface SpendSubject {
  id: string;
  platform: string;
  intervals: readonly StateInterval[];
}

export interface InstanceSpend {
  id: string;
  platform: string;
  state: InstanceState | undefined;
  todayFen: Fen;
  monthFen: Fen;
  totalFen: Fen;
  /** fen/h, unrounded. */
  burnRate: number;
  secondsInState: number;
}

export type BudgetLevel = 'none' | 'ok' | 'warning' | 'exceeded';

export interface BudgetStatus {
  level: BudgetLevel;
  budgetFen: Fen;
  /** monthFen / budget, 0 when there is no budget. */
  ratio: number;
  /** True when the projected month-end total passes the budget. */
  projectedOver: boolean;
}

export interface SpendSummary {
  now: number;
  todayFen: Fen;
  monthFen: Fen;
  /** fen/h across every instance, unrounded. */
  burnRate: number;
  /** This month so far plus the current burn rate until the month ends (Beijing time). */
  projectedMonthEndFen: Fen;
  /** True when any instance is billing right now (the status bar ticks only then). */
  billing: boolean;
  perInstance: InstanceSpend[];
  perPlatform: { platform: string; monthFen: Fen; burnRate: number }[];
  budget: BudgetStatus;
}

export const BUDGET_WARNING_RATIO = 0.8;

export function budgetStatus(monthFen: Fen, projectedMonthEndFen: Fen, budgetFen: Fen | undefined): BudgetStatus {
  if (!budgetFen || !(budgetFen > 0)) return { level: 'none', budgetFen: 0, ratio: 0, projectedOver: false };
  const ratio = monthFen / budgetFen;
  const level: BudgetLevel = ratio >= 1 ? 'exceeded' : ratio >= BUDGET_WARNING_RATIO ? 'warning' : 'ok';
  return { level, budgetFen, ratio, projectedOver: projectedMonthEndFen > budgetFen };
}

export function summarizeSpend(subjects: readonly SpendSubject[], now: number, budgetFen?: Fen): SpendSummary {
  const day = { from: beijingDayStart(now), to: now };
  const month = { from: beijingMonthStart(now), to: now };
  const monthEnd = beijingNextMonthStart(now);
  const perInstance: InstanceSpend[] = subjects.map((s) => ({
    id: s.id,
    platform: s.platform,
    state: currentState(s.intervals),
    todayFen: accruedFen(s.intervals, now, day),
    monthFen: accruedFen(s.intervals, now, month),
    totalFen: accruedFen(s.intervals, now),
    burnRate: burnRateFenPerHour(s.intervals),
    secondsInState: secondsInState(s.intervals, now),
  }));
  const todayFen = perInstance.reduce((a, p) => a + p.todayFen, 0);
  const monthFen = perInstance.reduce((a, p) => a + p.monthFen, 0);
  const burnRate = perInstance.reduce((a, p) => a + p.burnRate, 0);
  const projectedMonthEndFen = monthFen + Math.round((burnRate * Math.max(0, monthEnd - now)) / SECONDS_PER_HOUR);
  const platforms = new Map<string, { platform: string; monthFen: number; burnRate: number }>();
  for (const p of perInstance) {
    const e = platforms.get(p.platform) ?? { platform: p.platform, monthFen: 0, burnRate: 0 };
    e.monthFen += p.monthFen;
    e.burnRate += p.burnRate;
    platforms.set(p.platform, e);
  }
  return {
    now,
    todayFen,
    monthFen,
    burnRate,
    projectedMonthEndFen,
    billing: burnRate > 0,
    perInstance,
    perPlatform: [...platforms.values()].sort((a, b) => b.monthFen - a.monthFen),
    budget: budgetStatus(monthFen, projectedMonthEndFen, budgetFen),
  };
}
