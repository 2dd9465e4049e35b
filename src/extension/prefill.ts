// Pre-fills an instance's prices from the catalog: the renter sees the figure and its date,
// and edits it if today's console says otherwise. Pure (no vscode) so it is unit-tested.
import { findCard } from '../core/cards';
import { dating, formatDating, type Catalog, type CardPrice, type FenRange, type Platform } from '../core/catalog';
import type { Dating } from '../core/format';
import { BILLING_MODES, PLAN_HOURS, type BillingMode, type Pricing } from '../core/spend';

const mid = (r: FenRange | null | undefined): number | undefined => (r ? (r.min + r.max) / 2 : undefined);

export interface Prefill {
  pricing: Pricing;
  /** The catalog figure used for the GPU price, with its provenance; absent when the catalog has none. */
  priceSource?: { source: string; asOf: string | null; /** When the figure was true, as known: "undated (field report test week)", "as of …", "read …". */ dated: string; /** The same, as data, for localized words. */ dating: Dating; range: FenRange; perGpu: true };
  /** Billing plans the platform offers. */
  offeredModes: BillingMode[];
  /** What could not be pre-filled and must be typed in. */
  missing: ('gpuPrice' | 'storagePrice' | 'noGpuModeRate')[];
}

function priceFor(platform: Platform, cardId: string, mode: string): CardPrice | undefined {
  return platform.prices.find((p) => p.card === cardId && p.mode === mode && p.price !== null);
}

export function prefillPricing(catalog: Catalog, platformId: string, cardName: string, gpuCount: number, billingMode: BillingMode, dataDiskGb: number): Prefill {
  const platform = catalog.platforms.find((p) => p.id === platformId);
  const cardId = findCard(cardName, catalog.cards)?.id ?? cardName;
  const missing: Prefill['missing'] = [];
  const n = Math.max(1, Math.floor(gpuCount) || 1);
  const offeredModes = BILLING_MODES.filter((m) => platform?.billingModes.includes(m));
  const price = platform ? priceFor(platform, cardId, billingMode) : undefined;
  const perHour = price?.price ? mid(price.price)! / PLAN_HOURS[billingMode] : undefined;
  if (perHour === undefined) missing.push('gpuPrice');
  const hourly = platform ? priceFor(platform, cardId, 'hour') : undefined;
  const spotPrice = platform ? priceFor(platform, cardId, 'spot') : undefined;
  const spotPerGpu = spotPrice?.price ? mid(spotPrice.price) : hourly?.price && platform?.spot ? mid(hourly.price)! * (1 - platform.spot.discount) : undefined;
  const storage = mid(platform?.dataDisk.fenPerGbDay);
  if (storage === undefined && !platform?.dataDisk.bundled) missing.push('storagePrice');
  const noGpu = mid(platform?.noGpuMode.hourlyRate);
  if (noGpu === undefined && (platform?.noGpuMode.support === 'yes' || platform?.noGpuMode.support === 'partial')) missing.push('noGpuModeRate');
  const pricing: Pricing = {
    billingMode,
    hourlyRate: Math.round((perHour ?? 0) * n),
    noGpuModeRate: Math.round(noGpu ?? 0),
    storageGbDay: Math.round(storage ?? 0),
    dataDiskGb: Math.max(0, Number.isFinite(dataDiskGb) ? dataDiskGb : 0),
  };
  if (spotPerGpu !== undefined) pricing.spotRate = Math.round(spotPerGpu * n);
  const out: Prefill = { pricing, offeredModes, missing };
  if (price?.price) {
    const d = dating(price);
    out.priceSource = { source: price.source, asOf: price.asOf, dated: formatDating(d), dating: d, range: price.price, perGpu: true };
  }
  return out;
}

/**
 * The spot price after the on-demand one was edited (issue 41 bug 6): scaled by the ratio the
 * old pair had (the catalog's, or the instance's own), so a spot price is never left dearer than
 * the on-demand one the renter typed. Scaling keeps what the platform's spot discount is (a
 * fraction of its on-demand price) without another question; undefined (shown as `?`) where
 * there is no old pair to scale by. Unchanged on-demand: the old spot price as it was.
 */
export function spotAfterHourlyEdit(old: Pick<Pricing, 'hourlyRate' | 'spotRate'>, hourlyFen: number): number | undefined {
  if (old.spotRate === undefined) return undefined;
  if (hourlyFen === old.hourlyRate) return old.spotRate;
  if (!(old.hourlyRate > 0)) return undefined;
  return Math.min(hourlyFen, Math.round((old.spotRate * hourlyFen) / old.hourlyRate));
}
