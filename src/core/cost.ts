// The cost of a completed job on platform × card × billing mode, in integer fen. A job is
// stated as hours on one reference card; each row converts that to its own card (an
// estimate unless the card is the reference), then adds what the field report says the
// ¥/hour hides: data disk per GB per day (stopped days included), hours stopped between
// runs, hours spent downloading at the platform's bandwidth, and work redone after a spot
// reclaim.
//
// Rules (each documented where the report gives no rule):
// - hour/spot: GPU = gpus × wall hours × rate.
// - day/week/month: the card is held for the whole span (max of --days and the hours the
//   job, idle time and downloads take), charged in whole periods (ceil; month = 30 days).
//   Idle and download hours cost nothing extra then.
// - storage: GB × storage days × ¥/GB/day, storage days = max(days, ceil(busy hours / 24)).
//   Bundled storage (big clouds: "you pay CPU, RAM, system disk, data disk and bandwidth with
//   the GPU") is a cost of its own: `?` unless the catalog gives its ¥/GB/day.
// - bandwidth bought separately (big clouds): its ¥/month pro rata for the storage days, in
//   the download column; `?` unless the catalog gives it.
// - idle hours (instance kept but stopped): at the no-GPU-mode rate where known; at the full
//   instance rate where a stopped instance bills everything (big clouds) or stopping loses
//   the data (秘塔: kept running instead); nothing extra where stopping bills storage only;
//   "unpriced" where the report gives no figure.
// - downloads: GB × 8000 / Mbps / 3600 hours, billed at the GPU rate (or the no-GPU rate
//   when the user downloads in no-GPU mode and the platform has one).
// - spot rework: reclaims = rate λ × wall hours T, each losing the work since the last
//   checkpoint, which is never more than the work done so far. A reclaim equally likely at
//   any moment of the job loses on average (k·c² + r²) / (2T), where c is the checkpoint
//   interval, k = ⌊T / c⌋ and r = T − k·c: half an interval for a long job, half the job when
//   the interval is longer than the job. Rework = λ·(k·c² + r²)/2 hours at the spot rate.
//   Defaults: 0.1 reclaims per hour and a 1 h interval (assumptions; the report's one
//   reclaim came at hour 2 of an 8 h run with no checkpoint and lost those 2 h).
// - multi-GPU: the report's 2 cards = 1.6×; more cards are an estimate (perf.ts).
// - the star ("cheapest completed job") goes only to a row a careful renter would run the
//   job on: every cost priced, and not spot for a job over the report's 1 h spot limit.
// Components without a figure in the catalog are listed in `unpriced` and left out of the
// total, never guessed.
import { MAX_TOTAL_FEN } from './bounds';
import { findCard, type CardSpec } from './cards';
import type { BillingMode, Catalog, FenRange, NumRange, Platform, Provenance, WarningCode } from './catalog';
import type { Fen } from './money';
import { unitPrice } from './billing-modes';
import { addRanges, cardAndPlatformNotes, dataDiskCost, downloadCost, gpuTimeCost, idleCost, rowBasis, spotReworkCost } from './cost-components';
import { SPOT_LIMIT_HOURS } from './spot-model';

export { PERIOD_HOURS } from './catalog';
export { addRanges, downloadHours } from './cost-components';
export { breakEvenHours, unitPrice, type BreakEven } from './billing-modes';
export { DEFAULT_CHECKPOINT_INTERVAL_HOURS, DEFAULT_RECLAIM_RATE_PER_HOUR, expectedLossPerReclaim, reworkHoursIfReclaimedAt, SPOT_LIMIT_HOURS } from './spot-model';

export interface JobInput {
  /** Hours the job takes on one `refCard`. */
  gpuHours: number;
  /** Card id the hours were measured or planned on. Default rtx3090. */
  refCard?: string;
  /**
   * Hours measured for this job on other cards (card id or alias → hours on one card).
   * They replace the spec-based estimate for that card; more cards still scale from them.
   */
  measuredHours?: Record<string, number>;
  /** Cards to quote (ids or aliases); default every card with a price. */
  cards?: string[];
  /** Platform ids to quote; default all. */
  platforms?: string[];
  gpus?: number;
  /**
   * Speed each extra card adds, when the renter measured it. Default: the report's 2 cards =
   * 1.6×, and a declining estimate beyond (perf.ts multiGpuSpeedup).
   */
  scalingEfficiency?: number;
  storageGb?: number;
  /** Calendar days the instance and data are kept (at least the busy hours). */
  days?: number;
  /** Hours the instance sits stopped but kept (between runs). */
  idleHours?: number;
  downloadGb?: number;
  downloadInNoGpuMode?: boolean;
  /** Include spot rows (where a platform has spot). */
  includeSpot?: boolean;
  reclaimRatePerHour?: number;
  checkpointIntervalHours?: number;
  /** VRAM the job needs on each card, GB; cards with less are skipped (or flagged when asked for). */
  vramNeededGb?: number;
  /** Billing modes to quote; default all. */
  modes?: BillingMode[];
}

export type CostComponent = 'gpu' | 'storage' | 'idle' | 'download' | 'spotRework';

export type RowNote =
  | WarningCode
  | 'hoursEstimated'
  | 'vramShort'
  | 'noCuda'
  | 'exceedsFreeQuota'
  | 'spotLongJob'
  | 'storageBundled'
  | 'idleKeptRunning'
  | 'priceDerived'
  | 'multiGpuPcie'
  | 'multiGpuEstimate'
  | 'storageBundledUnpriced'
  | 'bandwidthBundledUnpriced';

/**
 * How a row's idle (stopped but kept) hours were billed, shown in the row:
 * noGpuMode: the no-GPU-mode rate, on top of the data disk per day (AutoDL's ¥0.1/h);
 * fullRate: the whole instance bills while it exists (big clouds);
 * keptRunning: stopping wipes the disk here (秘塔), so the instance stays running;
 * storageOnly: stopped costs only the data disk per day;
 * inPlan: a day/week/month plan already holds the card; unpriced: no figure; none: no idle hours.
 */
export type IdleBasis = 'noGpuMode' | 'fullRate' | 'keptRunning' | 'storageOnly' | 'inPlan' | 'unpriced' | 'none';

export interface QuoteRow {
  platform: string;
  platformName: { zh: string; en: string };
  card: string;
  mode: BillingMode;
  gpus: number;
  /** Wall-clock hours of GPU work on this card. */
  wallHours: number;
  hoursEstimated: boolean;
  /** Whole periods charged (day/week/month); null for hour/spot. */
  periods: number | null;
  downloadHours: NumRange | null;
  breakdown: Record<CostComponent, FenRange>;
  total: FenRange;
  /** Components with no figure in the catalog (left out of the total). */
  unpriced: Exclude<CostComponent, 'gpu'>[];
  idleBasis: IdleBasis;
  /** Expected reclaims and hours redone (spot rows only). */
  spot: { reclaims: number; reworkHours: number } | null;
  /** The unit price used (per GPU per period) with its source and date. */
  price: Provenance & { perPeriod: FenRange; derived: boolean };
  notes: RowNote[];
}

/** Why a row may not carry the star, or null when it may. */
export function starExclusion(r: QuoteRow): 'unpriced' | 'spotOverLimit' | null {
  if (r.unpriced.length > 0) return 'unpriced';
  if (r.mode === 'spot' && r.wallHours > SPOT_LIMIT_HOURS) return 'spotOverLimit';
  return null;
}

/**
 * The cheapest row a careful renter would run the job on: every cost has a figure (a row with
 * an unpriced disk, bandwidth or idle cost can look cheaper only because part of its bill is
 * unknown), and not spot for a job over the report's 1 h spot limit (its one long spot run
 * was reclaimed and lost). Rows sorted cheapest first.
 */
export function cheapestPricedRow(rows: readonly QuoteRow[]): QuoteRow | undefined {
  return rows.find((r) => starExclusion(r) === null);
}
export { cheapestPricedRow as cheapestCompletedRow };

export type SkipReason = 'noFigure' | 'vramShort' | 'noSpeedEstimate' | 'noPrices' | 'cardNotPriced' | 'beyondBounds';

export interface Skipped {
  platform: string;
  card: string | null;
  mode: BillingMode | null;
  reason: SkipReason;
}

export interface QuoteResult {
  rows: QuoteRow[];
  skipped: Skipped[];
}

/** The figure a range is sorted and summarized by: its midpoint, rounded to a fen. */
export function midpoint(r: FenRange): Fen {
  return Math.round((r.min + r.max) / 2);
}

function resolveCards(catalog: Catalog, names: string[] | undefined): CardSpec[] | null {
  if (!names || names.length === 0) return null;
  const out: CardSpec[] = [];
  for (const n of names) {
    const c = findCard(n, catalog.cards);
    if (c && !out.includes(c)) out.push(c);
  }
  return out;
}

/** Quotes one platform × card × mode; null when there is no price figure (or no speed estimate, or a total beyond bounds). */
export function quoteRow(platform: Platform, card: CardSpec, mode: BillingMode, input: JobInput, catalog: Catalog): QuoteRow | null {
  const r = quoteRowOrSkip(platform, card, mode, input, catalog);
  return typeof r === 'string' ? null : r;
}

/** One row, its bill assembled component by component (cost-components.ts), or why there is none. */
function quoteRowOrSkip(platform: Platform, card: CardSpec, mode: BillingMode, input: JobInput, catalog: Catalog): QuoteRow | SkipReason {
  const price = unitPrice(platform, card.id, mode);
  if (!price) return 'noFigure';
  const b = rowBasis(platform, card, mode, input, catalog, price);
  if (typeof b === 'string') return b;
  const { gpu, periods } = gpuTimeCost(b);
  const storage = dataDiskCost(b);
  const { idle, idleBasis } = idleCost(b);
  const download = downloadCost(b);
  const { spotRework, spot } = spotReworkCost(b);
  cardAndPlatformNotes(b, card);

  const breakdown = { gpu, storage, idle, download, spotRework };
  const total = addRanges(gpu, storage, idle, download, spotRework);
  if (!(total.max <= MAX_TOTAL_FEN)) return 'beyondBounds';
  return {
    platform: platform.id,
    platformName: platform.name,
    card: card.id,
    mode,
    gpus: b.gpus,
    wallHours: b.wallHours,
    hoursEstimated: b.hoursEstimated,
    periods,
    downloadHours: b.dlHours,
    breakdown,
    total,
    unpriced: b.unpriced,
    idleBasis,
    spot,
    price,
    notes: b.notes,
  };
}

function compareRows(a: QuoteRow, b: QuoteRow): number {
  return midpoint(a.total) - midpoint(b.total) || a.total.max - b.total.max || a.platform.localeCompare(b.platform) || a.card.localeCompare(b.card);
}

/** Quotes every platform × card × mode the input selects, sorted by total (midpoint), cheapest first. */
export function quoteCatalog(catalog: Catalog, input: JobInput): QuoteResult {
  const wanted = resolveCards(catalog, input.cards);
  const explicitCards = wanted !== null;
  const platforms = input.platforms?.length ? catalog.platforms.filter((p) => input.platforms!.includes(p.id)) : catalog.platforms;
  const rows: QuoteRow[] = [];
  const skipped: Skipped[] = [];
  for (const platform of platforms) {
    const cardIds = [...new Set(platform.prices.map((p) => p.card))];
    if (cardIds.length === 0) {
      skipped.push({ platform: platform.id, card: null, mode: null, reason: 'noPrices' });
      continue;
    }
    if (wanted && input.platforms?.length && !wanted.some((c) => cardIds.includes(c.id))) {
      for (const c of wanted) skipped.push({ platform: platform.id, card: c.id, mode: null, reason: 'cardNotPriced' });
      continue;
    }
    for (const cardId of cardIds) {
      const card = findCard(cardId, catalog.cards);
      if (!card || (wanted && !wanted.includes(card))) continue;
      if (!explicitCards && input.vramNeededGb !== undefined && card.vramGb < input.vramNeededGb) {
        skipped.push({ platform: platform.id, card: card.id, mode: null, reason: 'vramShort' });
        continue;
      }
      for (const mode of platform.billingModes) {
        if (mode === 'spot' && !input.includeSpot) continue;
        if (input.modes && !input.modes.includes(mode)) continue;
        const row = quoteRowOrSkip(platform, card, mode, input, catalog);
        if (typeof row !== 'string') rows.push(row);
        else if (row === 'noFigure') {
          if (platform.prices.some((p) => p.card === card.id && p.mode === mode)) skipped.push({ platform: platform.id, card: card.id, mode, reason: 'noFigure' });
        } else skipped.push({ platform: platform.id, card: card.id, mode, reason: row });
      }
    }
  }
  rows.sort(compareRows);
  return { rows, skipped };
}

/** The rows of quoteCatalog, cheapest first. */
export function quoteJob(catalog: Catalog, input: JobInput): QuoteRow[] {
  return quoteCatalog(catalog, input).rows;
}

/** The cheapest billing mode on one platform for one card and usage pattern (null: no price). */
export function cheapestBillingMode(catalog: Catalog, platformId: string, card: string, usage: JobInput): { mode: BillingMode; row: QuoteRow; all: QuoteRow[] } | null {
  const c = findCard(card, catalog.cards);
  if (!c) return null;
  const rows = quoteCatalog(catalog, { ...usage, platforms: [platformId], cards: [c.id], refCard: usage.refCard ?? c.id }).rows;
  const best = rows[0];
  return best ? { mode: best.mode, row: best, all: rows } : null;
}
