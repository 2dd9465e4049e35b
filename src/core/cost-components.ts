// The parts of one quote row's bill, one small function each (cost.ts's header states the
// rules): the row's basis (the job's wall hours on this card, the quantities asked for, how
// long downloads take and the data disk is kept), then GPU time, the data disk, idle (stopped
// but kept) hours, downloads with bandwidth bought separately, and spot rework. Each appends
// its notes and unpriced components to the basis in the order the row lists them.
import { BOUNDS, type Bound } from './bounds';
import { cardById, findCard, type CardSpec } from './cards';
import { PERIOD_HOURS, type BillingMode, type Catalog, type FenRange, type NumRange, type Platform, type Provenance } from './catalog';
import { roundFen } from './money';
import { beyondMeasuredGpus, jobWallHours, REFERENCE_CARD } from './perf';
import { DEFAULT_CHECKPOINT_INTERVAL_HOURS, DEFAULT_RECLAIM_RATE_PER_HOUR, expectedLossPerReclaim, SPOT_LIMIT_HOURS } from './spot-model';
import type { IdleBasis, JobInput, QuoteRow, RowNote } from './cost';

export const ZERO: FenRange = { min: 0, max: 0 };

/**
 * A non-negative finite input within its bound (core/bounds.ts); anything else takes the
 * default. The front ends refuse out-of-bound values with the flag's name, so the clamp here
 * only keeps direct callers' products finite.
 */
function num(x: number | undefined, dflt: number, b: Bound = BOUNDS.hours): number {
  return x !== undefined && Number.isFinite(x) && x >= 0 ? Math.min(x, b.max) : dflt;
}

function scale(r: FenRange, k: number): FenRange {
  return { min: roundFen(r.min * k), max: roundFen(r.max * k) };
}

function scaleByRange(r: FenRange, k: NumRange): FenRange {
  return { min: roundFen(r.min * k.min), max: roundFen(r.max * k.max) };
}

export function addRanges(...rs: FenRange[]): FenRange {
  return rs.reduce((a, b) => ({ min: a.min + b.min, max: a.max + b.max }), ZERO);
}

/** Hours to move `gb` at `mbps` (1 GB = 8000 Mb). */
export function downloadHours(gb: number, mbps: NumRange): NumRange {
  const h = (m: number) => (m > 0 ? (gb * 8000) / m / 3600 : Infinity);
  return { min: h(mbps.max), max: h(mbps.min) };
}

/** Hours measured on `card` (by id or alias), when the input gives them and they are usable. */
function measuredOn(measuredHours: JobInput['measuredHours'], card: CardSpec, catalog: Catalog): number | null {
  for (const [name, hours] of Object.entries(measuredHours ?? {})) {
    if (findCard(name, catalog.cards)?.id === card.id && Number.isFinite(hours) && hours > 0) return hours;
  }
  return null;
}

export type UnitPrice = Provenance & { perPeriod: FenRange; derived: boolean };

/** What every component of one row reads, and the notes and unpriced components gathered so far. */
export interface RowBasis {
  platform: Platform;
  mode: BillingMode;
  input: JobInput;
  price: UnitPrice;
  gpus: number;
  /** Wall-clock hours of GPU work on this card, and whether they are an estimate. */
  wallHours: number;
  hoursEstimated: boolean;
  /** day/week/month: the card is held for the whole span. */
  subscription: boolean;
  storageGb: number;
  idleHours: number;
  downloadGb: number;
  days: number;
  /** Hours the downloads take (zero without any); null: the platform gives no bandwidth. */
  dlHours: NumRange | null;
  /** Days the data disk is kept, with the fastest (min) and slowest (max) downloads. */
  storageDays: NumRange;
  /** The instance's price per hour with its cards (zero on a day/week/month plan). */
  hourlyInstance: FenRange;
  notes: RowNote[];
  unpriced: QuoteRow['unpriced'];
}

/** Download time: null (and `download` unpriced, outside a plan) when the platform states no bandwidth. */
function downloadTime(platform: Platform, downloadGb: number, subscription: boolean, unpriced: QuoteRow['unpriced']): NumRange | null {
  if (downloadGb <= 0) return { min: 0, max: 0 };
  const bw = platform.bandwidthMbps.value;
  if (bw && bw.min > 0) return downloadHours(downloadGb, bw);
  if (!subscription) unpriced.push('download');
  return null;
}

/** The job on this card and the quantities asked for; no speed estimate for the card: none. */
export function rowBasis(platform: Platform, card: CardSpec, mode: BillingMode, input: JobInput, catalog: Catalog, price: UnitPrice): RowBasis | 'noSpeedEstimate' {
  const refCard = findCard(input.refCard ?? REFERENCE_CARD, catalog.cards) ?? cardById(REFERENCE_CARD)!;
  const gpus = Math.max(1, Math.floor(num(input.gpus, 1, BOUNDS.gpus)));
  const measured = measuredOn(input.measuredHours, card, catalog);
  const eff = input.scalingEfficiency !== undefined && Number.isFinite(input.scalingEfficiency) ? Math.min(1, Math.max(0, input.scalingEfficiency)) : undefined;
  const wall = measured
    ? jobWallHours(Math.min(measured, BOUNDS.jobHours.max), card, card, gpus, eff)
    : jobWallHours(num(input.gpuHours, 0, BOUNDS.jobHours), refCard, card, gpus, eff);
  if (!wall) return 'noSpeedEstimate';
  const notes: RowNote[] = [];
  const unpriced: QuoteRow['unpriced'] = [];
  if (price.derived) notes.push('priceDerived');
  if (wall.estimated && refCard.id !== card.id && !measured) notes.push('hoursEstimated');
  if (gpus > 1) notes.push('multiGpuPcie');
  if (beyondMeasuredGpus(gpus) && eff === undefined) notes.push('multiGpuEstimate');

  const storageGb = num(input.storageGb, 0, BOUNDS.gb);
  const idleHours = num(input.idleHours, 0, BOUNDS.hours);
  const downloadGb = num(input.downloadGb, 0, BOUNDS.gb);
  const subscription = mode === 'day' || mode === 'week' || mode === 'month';
  const dlHours = downloadTime(platform, downloadGb, subscription, unpriced);
  const days = num(input.days, 0, BOUNDS.days);
  const busyDays = (dl: number) => Math.max(days, Math.ceil((wall.hours + idleHours + dl) / 24 - 1e-9));
  return {
    platform,
    mode,
    input,
    price,
    gpus,
    wallHours: wall.hours,
    hoursEstimated: wall.estimated,
    subscription,
    storageGb,
    idleHours,
    downloadGb,
    days,
    dlHours,
    storageDays: { min: busyDays(dlHours?.min ?? 0), max: busyDays(dlHours?.max ?? 0) },
    hourlyInstance: subscription ? ZERO : { min: price.perPeriod.min * gpus, max: price.perPeriod.max * gpus },
    notes,
    unpriced,
  };
}

/** GPU time: gpus × wall hours × rate; on a plan, whole periods over the span the card is held. */
export function gpuTimeCost(b: RowBasis): { gpu: FenRange; periods: number | null } {
  if (!b.subscription) return { gpu: scale(b.price.perPeriod, b.gpus * b.wallHours), periods: null };
  const spanHours = Math.max(b.days * 24, b.wallHours + b.idleHours + (b.dlHours?.max ?? 0));
  const periods = Math.max(1, Math.ceil(spanHours / PERIOD_HOURS[b.mode] - 1e-9));
  return { gpu: scale(b.price.perPeriod, b.gpus * periods), periods };
}

/** Data disk: GB × storage days × ¥/GB/day; bundled disks are a cost of their own (the report: paid with the GPU), `?` without a figure. */
export function dataDiskCost(b: RowBasis): FenRange {
  if (b.storageGb <= 0) return ZERO;
  const rate = b.platform.dataDisk.fenPerGbDay;
  if (rate) return scaleByRange(rate, { min: b.storageGb * b.storageDays.min, max: b.storageGb * b.storageDays.max });
  b.unpriced.push('storage');
  if (b.platform.dataDisk.bundled) b.notes.push('storageBundledUnpriced');
  return ZERO;
}

/** Idle (stopped but kept) hours, and how they were billed. */
export function idleCost(b: RowBasis): { idle: FenRange; idleBasis: IdleBasis } {
  if (b.idleHours <= 0) return { idle: ZERO, idleBasis: 'none' };
  if (b.subscription) return { idle: ZERO, idleBasis: 'inPlan' };
  const ng = b.platform.noGpuMode;
  const hasNoGpuMode = ng.support === 'yes' || ng.support === 'partial';
  if (hasNoGpuMode && ng.hourlyRate) return { idle: scale(ng.hourlyRate, b.idleHours), idleBasis: 'noGpuMode' };
  const stopped = b.platform.stoppedBills;
  if (stopped === 'everything') return { idle: scale(b.hourlyInstance, b.idleHours), idleBasis: 'fullRate' };
  if (stopped === 'dataLost') {
    b.notes.push('idleKeptRunning');
    return { idle: scale(b.hourlyInstance, b.idleHours), idleBasis: 'keptRunning' };
  }
  if (stopped === 'storageOnly' && !hasNoGpuMode) return { idle: ZERO, idleBasis: 'storageOnly' };
  b.unpriced.push('idle');
  return { idle: ZERO, idleBasis: 'unpriced' };
}

/** Download hours (at the GPU rate, or the no-GPU rate when asked and offered), and bandwidth bought separately (big clouds) pro rata for the days kept. */
export function downloadCost(b: RowBasis): FenRange {
  let download = ZERO;
  if (b.dlHours && b.downloadGb > 0 && !b.subscription) {
    const ngRate = b.platform.noGpuMode.hourlyRate;
    const rate = b.input.downloadInNoGpuMode && ngRate ? ngRate : b.hourlyInstance;
    download = scaleByRange(rate, b.dlHours);
  }
  if (b.platform.warnings.includes('bandwidthExtra')) {
    const bwMonth = b.platform.bandwidthMbps.fenPerMonth;
    if (bwMonth) download = addRanges(download, scaleByRange(bwMonth, { min: b.storageDays.min / 30, max: b.storageDays.max / 30 }));
    else {
      if (!b.unpriced.includes('download')) b.unpriced.push('download');
      b.notes.push('bandwidthBundledUnpriced');
    }
  }
  return download;
}

/** Spot rework: each reclaim loses the work since the last checkpoint, at most the work so far. */
export function spotReworkCost(b: RowBasis): { spotRework: FenRange; spot: QuoteRow['spot'] } {
  if (b.mode !== 'spot') return { spotRework: ZERO, spot: null };
  const reclaims = num(b.input.reclaimRatePerHour, DEFAULT_RECLAIM_RATE_PER_HOUR, BOUNDS.reclaimRatePerHour) * b.wallHours;
  const interval = num(b.input.checkpointIntervalHours, DEFAULT_CHECKPOINT_INTERVAL_HOURS, BOUNDS.checkpointHours) || DEFAULT_CHECKPOINT_INTERVAL_HOURS;
  const lostHours = reclaims * expectedLossPerReclaim(b.wallHours, interval);
  if (b.wallHours > SPOT_LIMIT_HOURS) b.notes.push('spotLongJob');
  return { spotRework: scale(b.price.perPeriod, b.gpus * lostHours), spot: { reclaims, reworkHours: lostHours } };
}

/** What the card and platform add to the row's notes: no CUDA, too little VRAM, over a free quota, the platform's warnings. */
export function cardAndPlatformNotes(b: RowBasis, card: CardSpec): void {
  if (!card.cuda) b.notes.push('noCuda');
  if (b.input.vramNeededGb !== undefined && card.vramGb < b.input.vramNeededGb) b.notes.push('vramShort');
  const quota = b.platform.freeQuotaHours?.value;
  if (b.platform.kind === 'free' && quota && b.wallHours > quota.max) b.notes.push('exceedsFreeQuota');
  for (const w of b.platform.warnings) b.notes.push(w);
}
