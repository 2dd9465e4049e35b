// Every number a renter or a catalog file can give, with the largest (and smallest) value the
// cost model accepts. One table, read by the CLI's flag specs, the catalog schema, the
// calculator's form and the README. Beyond these a value is refused with its name, never
// silently clamped: the bounds are far above any real rental (the dearest price in the field
// report is ¥20,000/month for an A100-80G) and keep every product exact in integer fen
// (¥100,000/h × 8 cards × 100,000 h = 8×10¹² fen, far below 2⁵³ ≈ 9×10¹⁵).
// The calculator's form and message protocol, the extension's scripted arguments and its
// input boxes take their limits from here too (boundSchema, boundProblem), so no two of them
// can disagree.
import { z } from 'zod';

export interface Bound {
  min: number;
  max: number;
  /** min itself is refused (e.g. a job of 0 hours). */
  exclusiveMin?: boolean;
  integer?: boolean;
  unit: string;
  why: string;
}

const HOURS_IN_MONTH = 720;

export const BOUNDS = {
  /** Any price per GPU per hour (hour, spot), yuan. */
  yuanPerHour: { min: 0, max: 100_000, unit: '¥/h', why: 'no card rents for more; the report\'s dearest is ¥30/h' },
  /** A day/week/month price scales with its hours: ¥100,000/h × 720 h for a month. */
  yuanPerMonth: { min: 0, max: 100_000 * HOURS_IN_MONTH, unit: '¥/month', why: '¥100,000/h held for a month' },
  yuanPerGbDay: { min: 0, max: 1_000, unit: '¥/GB/day', why: 'the report\'s dearest disk is ¥1/GB/day' },
  /** A price for a whole instance (every card), as the extension stores it: the dearest card on the largest machine. */
  instanceYuanPerHour: { min: 0, max: 100_000 * 8, unit: '¥/h', why: '¥100,000/h per card × 8 cards' },
  /** No-GPU mode and other per-hour rates that are not a card price. */
  noGpuYuanPerHour: { min: 0, max: 100_000, unit: '¥/h', why: 'as a card price' },
  /** Bandwidth: below 0.1 Mbit/s a download would take years; above 10⁶ nothing rents. */
  mbps: { min: 0.1, max: 1_000_000, unit: 'Mbit/s', why: 'the report measured 2–10 Mbit/s' },
  bandwidthYuanPerMonth: { min: 0, max: 10_000_000, unit: '¥/month', why: 'big clouds sell bandwidth by the month' },
  /** Job length: at least one GPU-second, at most 10⁵ hours (11 years). */
  jobHours: { min: 1 / 3600, max: 100_000, unit: 'h', why: 'one GPU-second to 11 years' },
  hours: { min: 0, max: 100_000, unit: 'h', why: '11 years' },
  gb: { min: 0, max: 1_000_000, unit: 'GB', why: 'a petabyte' },
  days: { min: 0, max: 3650, unit: 'days', why: 'ten years' },
  /** Cards per instance: 8 is the largest single machine rented; more is a cluster, priced elsewhere. */
  gpus: { min: 1, max: 8, integer: true, unit: 'cards', why: 'the largest single rented machine has 8 cards' },
  reclaimRatePerHour: { min: 0, max: 10, unit: 'reclaims/h', why: 'one every 6 minutes' },
  checkpointHours: { min: 1 / 60, max: 100_000, unit: 'h', why: 'one minute to the longest job' },
  budgetYuanPerMonth: { min: 0, max: 10_000_000, unit: '¥/month', why: 'ten million yuan a month' },
  vramGb: { min: 0, max: 10_000, unit: 'GB', why: 'far beyond any card' },
  steps: { min: 1, max: 1_000_000_000, integer: true, unit: 'steps', why: 'a billion steps' },
  secPerStep: { min: 0, max: 100_000, exclusiveMin: true, unit: 's', why: 'a day per step' },
  minutes: { min: 0, max: 100_000, unit: 'min', why: 'a queue of two months' },
  /** A catalog file: bigger than this is not a price list (the built-in one is 20 KB). */
  catalogFileBytes: { min: 0, max: 5 * 1024 * 1024, integer: true, unit: 'bytes', why: '5 MiB; the built-in catalog is ~20 KB' },
} as const satisfies Record<string, Bound>;

export type BoundName = keyof typeof BOUNDS;

/**
 * The most a single quote row may total: ¥10¹⁰. Only combinations of extreme inputs reach it
 * (e.g. 10 reclaims/h on a 10⁵ h job); such a row is refused rather than printed.
 */
export const MAX_TOTAL_FEN = 1e12;

/** The largest per-period price for a billing mode, yuan. */
export function maxYuanPerPeriod(periodHours: number): number {
  return BOUNDS.yuanPerHour.max * Math.max(1, periodHours);
}

/** Whether `v` is inside `b`. */
export function withinBound(v: number, b: Bound): boolean {
  if (!Number.isFinite(v)) return false;
  if (b.exclusiveMin ? v <= b.min : v < b.min) return false;
  if (v > b.max) return false;
  return !(b.integer && !Number.isInteger(v));
}

/** Plain number for messages: 100000 → "100,000"; 1/3600 → "0.000278". */
export function formatBoundNumber(v: number): string {
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return String(Number(v.toPrecision(3)));
}

/** What is wrong with a typed or posted number, as a code the caller puts into words. */
export type BoundProblem = 'notNumber' | 'notInteger' | 'belowMin' | 'aboveMax';

/** The same test as withinBound, saying which side failed. */
export function boundProblem(v: number, b: Bound): BoundProblem | undefined {
  if (!Number.isFinite(v)) return 'notNumber';
  if (b.integer && !Number.isInteger(v)) return 'notInteger';
  if (b.exclusiveMin ? v <= b.min : v < b.min) return 'belowMin';
  if (v > b.max) return 'aboveMax';
  return undefined;
}

/** A zod number accepting exactly what withinBound accepts. */
export function boundSchema(b: Bound): z.ZodNumber {
  const base = b.integer ? z.number().int() : z.number();
  return (b.exclusiveMin ? base.gt(b.min) : base.min(b.min)).max(b.max);
}

/** `b` with 0 allowed: a form field that holds 0 while the other work mode is chosen. */
export function orZero(b: Bound): Bound {
  return { ...b, min: 0, exclusiveMin: false };
}
