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
//   Bundled storage (big clouds) is in the instance price: 0.
// - idle hours (instance kept but stopped): at the no-GPU-mode rate where known; at the full
//   instance rate where a stopped instance bills everything (big clouds) or stopping loses
//   the data (秘塔: kept running instead); nothing extra where stopping bills storage only;
//   "unpriced" where the report gives no figure.
// - downloads: GB × 8000 / Mbps / 3600 hours, billed at the GPU rate (or the no-GPU rate
//   when the user downloads in no-GPU mode and the platform has one).
// - spot rework: reclaims = reclaim rate per hour × wall hours, each losing on average half
//   a checkpoint interval, billed at the spot rate. Defaults: 0.1 reclaims per hour and a
//   1 h checkpoint interval (assumptions; the report saw one reclaim 2 h into an 8 h job).
// Components without a figure in the catalog are listed in `unpriced` and left out of the
// total, never guessed.
import { cardById, findCard, type CardSpec } from './cards';
import type { BillingMode, Catalog, CardPrice, FenRange, NumRange, Platform, Provenance, WarningCode } from './catalog';
import { roundFen, type Fen } from './money';
import { jobWallHours, MULTI_GPU_EFFICIENCY, REFERENCE_CARD } from './perf';

export const PERIOD_HOURS: Record<BillingMode, number> = { hour: 1, spot: 1, day: 24, week: 168, month: 720 };
export const DEFAULT_RECLAIM_RATE_PER_HOUR = 0.1;
export const DEFAULT_CHECKPOINT_INTERVAL_HOURS = 1;

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
  /** Speed each extra card adds (default 0.6: the report's 2×4090 = 1.6×). */
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
  | 'multiGpuPcie';

/** Hours measured on `card` (by id or alias), when the input gives them and they are usable. */
function measuredOn(measuredHours: JobInput['measuredHours'], card: CardSpec, catalog: Catalog): number | null {
  for (const [name, hours] of Object.entries(measuredHours ?? {})) {
    if (findCard(name, catalog.cards)?.id === card.id && Number.isFinite(hours) && hours > 0) return hours;
  }
  return null;
}

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
  /** The unit price used (per GPU per period) with its source and date. */
  price: Provenance & { perPeriod: FenRange; derived: boolean };
  notes: RowNote[];
}

/**
 * The cheapest row whose every cost has a figure: a row with an unpriced disk or idle
 * cost can look cheaper only because part of its bill is unknown. Rows sorted cheapest first.
 */
export function cheapestPricedRow(rows: readonly QuoteRow[]): QuoteRow | undefined {
  return rows.find((r) => r.unpriced.length === 0);
}

export type SkipReason = 'noFigure' | 'vramShort' | 'noSpeedEstimate' | 'noPrices' | 'cardNotPriced';

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

const ZERO: FenRange = { min: 0, max: 0 };

/** Non-negative finite inputs, capped at 1e9 so products stay finite; anything else takes the default. */
function num(x: number | undefined, dflt: number): number {
  return x !== undefined && Number.isFinite(x) && x >= 0 ? Math.min(x, 1e9) : dflt;
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

/** The figure a range is sorted and summarized by: its midpoint, rounded to a fen. */
export function midpoint(r: FenRange): Fen {
  return Math.round((r.min + r.max) / 2);
}

/** The per-GPU price of `mode` for `card`, deriving spot from hourly where only a discount is known. */
export function unitPrice(platform: Platform, cardId: string, mode: BillingMode): (Provenance & { perPeriod: FenRange; derived: boolean }) | null {
  const direct = platform.prices.find((p) => p.card === cardId && p.mode === mode);
  if (direct) return direct.price ? { source: direct.source, asOf: direct.asOf, ...(direct.note ? { note: direct.note } : {}), perPeriod: direct.price, derived: false } : null;
  if (mode === 'spot' && platform.spot && platform.billingModes.includes('spot')) {
    const hourly = platform.prices.find((p) => p.card === cardId && p.mode === 'hour');
    if (!hourly?.price) return null;
    const k = 1 - platform.spot.discount;
    return {
      source: `${hourly.source}; spot = hourly × ${k.toFixed(2)} (${platform.spot.source})`,
      asOf: hourly.asOf,
      perPeriod: { min: hourly.price.min * k, max: hourly.price.max * k },
      derived: true,
    };
  }
  return null;
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

/** Hours to move `gb` at `mbps` (1 GB = 8000 Mb). */
export function downloadHours(gb: number, mbps: NumRange): NumRange {
  const h = (m: number) => (m > 0 ? (gb * 8000) / m / 3600 : Infinity);
  return { min: h(mbps.max), max: h(mbps.min) };
}

/** Quotes one platform × card × mode; null when there is no price figure. */
export function quoteRow(platform: Platform, card: CardSpec, mode: BillingMode, input: JobInput, catalog: Catalog): QuoteRow | null {
  const price = unitPrice(platform, card.id, mode);
  if (!price) return null;
  const refCard = findCard(input.refCard ?? REFERENCE_CARD, catalog.cards) ?? cardById(REFERENCE_CARD)!;
  const gpus = Math.max(1, Math.floor(num(input.gpus, 1)));
  const measured = measuredOn(input.measuredHours, card, catalog);
  const wall = measured
    ? jobWallHours(measured, card, card, gpus, num(input.scalingEfficiency, MULTI_GPU_EFFICIENCY))
    : jobWallHours(num(input.gpuHours, 0), refCard, card, gpus, num(input.scalingEfficiency, MULTI_GPU_EFFICIENCY));
  if (!wall) return null;
  const notes: RowNote[] = [];
  const unpriced: QuoteRow['unpriced'] = [];
  if (price.derived) notes.push('priceDerived');
  if (wall.estimated && refCard.id !== card.id && !measured) notes.push('hoursEstimated');
  if (gpus > 1) notes.push('multiGpuPcie');

  const storageGb = num(input.storageGb, 0);
  const idleHours = num(input.idleHours, 0);
  const dlGb = num(input.downloadGb, 0);
  const subscription = mode === 'day' || mode === 'week' || mode === 'month';

  // Download time.
  let dlHours: NumRange | null = null;
  if (dlGb > 0) {
    const bw = platform.bandwidthMbps.value;
    if (bw && bw.min > 0) dlHours = downloadHours(dlGb, bw);
    else if (!subscription) unpriced.push('download');
  } else dlHours = { min: 0, max: 0 };

  const busyMax = wall.hours + idleHours + (dlHours?.max ?? 0);
  const busyMin = wall.hours + idleHours + (dlHours?.min ?? 0);
  const days = num(input.days, 0);

  // GPU time.
  let gpu: FenRange;
  let periods: number | null = null;
  if (subscription) {
    const spanHours = Math.max(days * 24, busyMax);
    periods = Math.max(1, Math.ceil(spanHours / PERIOD_HOURS[mode] - 1e-9));
    gpu = scale(price.perPeriod, gpus * periods);
  } else {
    gpu = scale(price.perPeriod, gpus * wall.hours);
  }

  // Storage.
  let storage = ZERO;
  if (storageGb > 0) {
    if (platform.dataDisk.bundled) notes.push('storageBundled');
    else if (platform.dataDisk.fenPerGbDay) {
      const storageDays = Math.max(days, Math.ceil(busyMax / 24 - 1e-9));
      const storageDaysMin = Math.max(days, Math.ceil(busyMin / 24 - 1e-9));
      storage = scaleByRange(platform.dataDisk.fenPerGbDay, { min: storageGb * storageDaysMin, max: storageGb * storageDays });
    } else unpriced.push('storage');
  }

  // Idle (stopped but kept) hours.
  let idle = ZERO;
  const hourlyInstance: FenRange = subscription ? ZERO : { min: price.perPeriod.min * gpus, max: price.perPeriod.max * gpus };
  if (idleHours > 0 && !subscription) {
    const ng = platform.noGpuMode;
    if ((ng.support === 'yes' || ng.support === 'partial') && ng.hourlyRate) idle = scale(ng.hourlyRate, idleHours);
    else if (platform.stoppedBills === 'everything') idle = scale(hourlyInstance, idleHours);
    else if (platform.stoppedBills === 'dataLost') {
      idle = scale(hourlyInstance, idleHours);
      notes.push('idleKeptRunning');
    } else if (platform.stoppedBills === 'storageOnly' && ng.support !== 'yes' && ng.support !== 'partial') idle = ZERO;
    else unpriced.push('idle');
  }

  // Download hours.
  let download = ZERO;
  if (dlHours && dlGb > 0 && !subscription) {
    const ngRate = platform.noGpuMode.hourlyRate;
    const rate = input.downloadInNoGpuMode && ngRate ? ngRate : hourlyInstance;
    download = scaleByRange(rate, dlHours);
  }

  // Spot rework.
  let spotRework = ZERO;
  if (mode === 'spot') {
    const reclaims = num(input.reclaimRatePerHour, DEFAULT_RECLAIM_RATE_PER_HOUR) * wall.hours;
    const lostHours = reclaims * (num(input.checkpointIntervalHours, DEFAULT_CHECKPOINT_INTERVAL_HOURS) / 2);
    spotRework = scale(price.perPeriod, gpus * lostHours);
    if (wall.hours > 1) notes.push('spotLongJob');
  }

  if (!card.cuda) notes.push('noCuda');
  if (input.vramNeededGb !== undefined && card.vramGb < input.vramNeededGb) notes.push('vramShort');
  const quota = platform.freeQuotaHours?.value;
  if (platform.kind === 'free' && quota && wall.hours > quota.max) notes.push('exceedsFreeQuota');
  for (const w of platform.warnings) notes.push(w);

  const breakdown = { gpu, storage, idle, download, spotRework };
  return {
    platform: platform.id,
    platformName: platform.name,
    card: card.id,
    mode,
    gpus,
    wallHours: wall.hours,
    hoursEstimated: wall.estimated,
    periods,
    downloadHours: dlHours,
    breakdown,
    total: addRanges(gpu, storage, idle, download, spotRework),
    unpriced,
    price,
    notes,
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
        const row = quoteRow(platform, card, mode, input, catalog);
        if (row) rows.push(row);
        else if (!unitPrice(platform, card.id, mode)) {
          if (platform.prices.some((p) => p.card === card.id && p.mode === mode)) skipped.push({ platform: platform.id, card: card.id, mode, reason: 'noFigure' });
        } else skipped.push({ platform: platform.id, card: card.id, mode, reason: 'noSpeedEstimate' });
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

export interface BreakEven {
  /** The shorter mode (e.g. hour). */
  shorter: BillingMode;
  /** The longer mode (e.g. month). */
  longer: BillingMode;
  /**
   * Units of `shorter` (hours, days or weeks) within one period of `longer` above which
   * `longer` is cheaper: price(longer) / price(shorter), as a range when prices are ranges.
   */
  units: NumRange;
}

/** Break-even points between every pair of priced modes for one card (spot excluded). */
export function breakEvenHours(platform: Platform, card: string): BreakEven[] {
  const id = findCard(card)?.id ?? card;
  const order: BillingMode[] = ['hour', 'day', 'week', 'month'];
  const priced = order
    .map((mode) => ({ mode, p: platform.prices.find((q: CardPrice) => q.card === id && q.mode === mode)?.price }))
    .filter((x): x is { mode: BillingMode; p: FenRange } => Boolean(x.p && x.p.min > 0));
  const out: BreakEven[] = [];
  for (let i = 0; i < priced.length; i++) {
    for (let j = i + 1; j < priced.length; j++) {
      const a = priced[i]!;
      const b = priced[j]!;
      out.push({ shorter: a.mode, longer: b.mode, units: { min: b.p.min / a.p.max, max: b.p.max / a.p.min } });
    }
  }
  return out;
}
