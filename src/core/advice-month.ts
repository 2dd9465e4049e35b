// A month of a task's usage on one platform × card × billing mode, priced by the same cost
// model as `quote` (GPU hours, no-GPU hours, data disk for the days kept, downloads). The
// advice never says "within budget" unless this month's total — its maximum, for a range —
// fits the budget with every cost priced.
import type { BillingMode, Catalog, FenRange } from './catalog';
import { findCard } from './cards';
import { quoteCatalog, type CostComponent, type JobInput, type QuoteRow } from './cost';
import type { Fen } from './money';
import { multiGpuSpeedup, relativeSpeed, REFERENCE_CARD } from './perf';
import { cardById } from './cards';

export const MONTH_DAYS = 30;
export const MONTH_HOURS = MONTH_DAYS * 24;

/**
 * How the month is used:
 * free — a free quota; plan — a week or month plan holds the card (data disk kept for the
 * plan's days, moved off afterwards); hourlyKept — GPU hours by the hour, the instance kept
 * in no-GPU mode between runs with the data disk all month (the report's "无卡模式");
 * hourlyRuns — runs by the hour on separate days, the data disk only on run days (released or
 * wiped between runs: "用完就把数据和权重传到网盘", or 秘塔's disk wiped at shutdown).
 */
export type UsagePattern = 'free' | 'plan' | 'hourlyKept' | 'hourlyRuns';

export interface MonthUsage {
  pattern: UsagePattern;
  /** Hours the instance runs with its GPUs (wall-clock; for a plan, the hours it holds the card). */
  gpuHours: number;
  /** Hours kept stopped in no-GPU mode. */
  noGpuHours: number;
  dataDiskGb: number;
  /** Days the data disk is billed. */
  days: number;
  downloadGb: number;
  gpus: number;
  /** hourlyRuns: how many runs; plan: how many periods. */
  count: number;
}

export interface Month {
  mode: BillingMode;
  usage: MonthUsage;
  total: FenRange;
  breakdown: { gpu: FenRange; storage: FenRange; idle: FenRange; download: FenRange };
  unpriced: Exclude<CostComponent, 'gpu'>[];
  withinBudget: boolean;
  row: QuoteRow;
}

/** The `quote` input for a month of usage (what `gpu-rent quote` would be given for it). */
export function monthJobInput(platform: string, card: string, mode: BillingMode, u: MonthUsage): JobInput {
  return {
    // quote's hours are on one card; the instance's wall hours × its speed-up.
    gpuHours: u.gpuHours * multiGpuSpeedup(u.gpus),
    refCard: card,
    cards: [card],
    platforms: [platform],
    modes: [mode],
    includeSpot: false,
    gpus: u.gpus,
    storageGb: u.dataDiskGb,
    days: u.days,
    idleHours: u.noGpuHours,
    downloadGb: u.downloadGb,
    downloadInNoGpuMode: u.noGpuHours > 0,
  };
}

/** Prices one month; null when the platform has no figure for this card and mode. */
export function priceMonth(catalog: Catalog, platform: string, card: string, mode: BillingMode, u: MonthUsage, budget: Fen): Month | null {
  const row = quoteCatalog(catalog, monthJobInput(platform, card, mode, u)).rows.find((r) => r.mode === mode);
  if (!row) return null;
  const { gpu, storage, idle, download } = row.breakdown;
  const withinBudget = row.unpriced.length === 0 && row.total.max <= budget;
  return { mode, usage: u, total: row.total, breakdown: { gpu, storage, idle, download }, unpriced: row.unpriced, withinBudget, row };
}

export interface TaskProfile {
  dataDiskGb: number;
  /** Hours of one run on `card` (one card). */
  runHours: (card: string) => number;
}

/** Hours of the report's LoRA job on a card: measured on the 3090 (15 h) and 4090 (5 h), else scaled by FP16. */
export function loraRunHours(card: string): number {
  if (card === 'rtx3090') return 15;
  if (card === 'rtx4090') return 5;
  const c = findCard(card);
  const s = c ? relativeSpeed(cardById(REFERENCE_CARD)!, c) : null;
  return s ? 15 / s : 15;
}

export type Candidate = { kind: 'free'; quotaHours: number } | { kind: 'plan'; mode: 'week' | 'month' } | { kind: 'hourlyKept' } | { kind: 'hourlyRuns'; runHours?: number; maxRuns?: number };

function largest(lo: number, hi: number, fits: (n: number) => boolean): number | null {
  if (hi < lo || !fits(lo)) return null;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The month a candidate gives for a budget: as much use as fits (most weeks, GPU hours or
 * runs), never more hours than a month has, and by the hour never past the point where the
 * platform's monthly plan (`planFloorFen`, its cheapest total) would cost less; the smallest
 * use when nothing fits (over budget).
 */
export function candidateMonth(catalog: Catalog, platform: string, card: string, gpus: number, c: Candidate, profile: TaskProfile, budget: Fen, planFloorFen?: Fen): Month | null {
  const disk = profile.dataDiskGb;
  const base = { noGpuHours: 0, dataDiskGb: disk, downloadGb: 0, gpus };
  const run = Math.max(1 / 60, profile.runHours(card) / (gpus > 1 ? multiGpuSpeedup(gpus) : 1));
  const tryUsage = (mode: BillingMode, usageOf: (n: number) => MonthUsage, lo: number, hi: number): Month | null => {
    const price = (n: number) => priceMonth(catalog, platform, card, mode, usageOf(n), budget);
    const first = price(lo);
    if (!first) return null;
    const hourly = mode === 'hour';
    const n = largest(lo, hi, (k) => {
      const m = price(k);
      // Sized by the priced part: a month with a `?` is never within budget, but still shows what the budget buys.
      return m !== null && m.total.max <= budget && !(hourly && planFloorFen !== undefined && m.total.max > planFloorFen);
    });
    return n === null ? first : price(n);
  };
  switch (c.kind) {
    case 'free': {
      const hours = Math.min(MONTH_HOURS, Math.max(0, c.quotaHours));
      return priceMonth(catalog, platform, card, 'hour', { ...base, pattern: 'free', gpuHours: hours, dataDiskGb: 0, days: 0, count: 1 }, budget);
    }
    case 'plan': {
      if (c.mode === 'month') return tryUsage('month', () => ({ ...base, pattern: 'plan', gpuHours: MONTH_HOURS, days: MONTH_DAYS, count: 1 }), 1, 1);
      // Whole weeks within the month; five weeks would cost more than the month has days.
      return tryUsage('week', (k) => ({ ...base, pattern: 'plan', gpuHours: 168 * k, days: 7 * k, count: k }), 1, 4);
    }
    case 'hourlyKept': {
      const lo = Math.max(1, Math.ceil(run));
      return tryUsage('hour', (h) => ({ ...base, pattern: 'hourlyKept', gpuHours: h, noGpuHours: MONTH_HOURS - h, days: MONTH_DAYS, count: 1 }), lo, MONTH_HOURS);
    }
    case 'hourlyRuns': {
      const r = c.runHours ?? run;
      const maxRuns = Math.max(1, Math.min(c.maxRuns ?? MONTH_DAYS, MONTH_DAYS, Math.floor(MONTH_HOURS / r)));
      return tryUsage('hour', (n) => ({ ...base, pattern: 'hourlyRuns', gpuHours: n * r, days: n * Math.max(1, Math.ceil(r / 24 - 1e-9)), count: n }), 1, maxRuns);
    }
  }
}

/**
 * Of several candidates: the one giving the most GPU hours within budget (cheaper on a tie);
 * else the most hours whose priced part fits (a `?` month); else the cheapest, over budget.
 */
export function bestMonth(months: readonly (Month | null)[], budget: Fen): Month | null {
  const ms = months.filter((m): m is Month => m !== null);
  const fit = ms.filter((m) => m.withinBudget);
  const pricedFit = ms.filter((m) => m.total.max <= budget);
  const pool = fit.length ? fit : pricedFit.length ? pricedFit : ms;
  const byHours = fit.length > 0 || pricedFit.length > 0;
  const sorted = [...pool].sort((a, b) => (byHours ? b.usage.gpuHours - a.usage.gpuHours : 0) || a.total.max - b.total.max);
  return sorted[0] ?? null;
}
