// Grab a card: which stock rows a grab may act on, given the limits set before it starts (the
// card, GPUs, regions, the most per hour), and, when none fits, the one reason said to the user
// (sold out, the price above the limit, a price the platform does not say, too few free). Pure:
// rows in, offers and codes out. The watch's pace is gpuWait.ts's backoff over a floor of one
// stock read a minute per account (stock.ts' STOCK_TTL_S).
import type { Fen } from '../money';
import { isAutodlDataCenter, STOCK_TTL_S, cardMatches, type StockRow } from './stock';
import { checkSpec, CREATE_NAME, type CreateRefusal } from './create';
import { PLATFORM_DESCRIPTORS, type PlatformDescriptor, type PlatformKind } from './descriptors';
import { REGION_ID } from './regions';

export type GrabAction = 'start' | 'clone' | 'create';
export const GRAB_ACTIONS: readonly GrabAction[] = ['start', 'clone', 'create'];

/** The floor between two rounds of stock reads: an account is read at most once a minute. */
export const GRAB_MIN_INTERVAL_MS = STOCK_TTL_S * 1000;
/** Default and longest watch. */
export const GRAB_DEFAULT_WAIT_S = 6 * 3600;
export const GRAB_MAX_WAIT_S = 7 * 86_400;
/** The most regions a grab may name. */
export const GRAB_MAX_REGIONS = 30;

export interface GrabLimits {
  /** "4090" matches "RTX 4090", a Pro spec or an instance type (cardMatches). */
  card: string;
  /** GPUs per instance (AutoDL: free cards needed on the pool; clouds: the type's count where the platform says it). */
  gpus: number;
  /** Regions, data centers or zones allowed; empty: every one the account reads. */
  regions: readonly string[];
  /** The most per hour, fen; absent: any price. A price the platform does not say is never taken as within it. */
  maxPriceFen?: Fen;
}

export type GrabWhy =
  /** No row names the card at all (the cards seen, for the next try). */
  | { code: 'noMatch'; seen: string[] }
  | { code: 'soldOut'; card: string }
  | { code: 'tooFewFree'; card: string; region: string; free: number; gpus: number }
  | { code: 'gpusDiffer'; card: string; gpus: number; want: number }
  | { code: 'priceAbove'; card: string; region: string; priceFen: Fen; maxFen: Fen }
  | { code: 'priceUnknown'; card: string; region: string; maxFen: Fen }
  /** AutoDL Pro creates by spec: a pool card no source maps to a spec cannot be created. */
  | { code: 'noProSpec'; card: string };

export interface Offer {
  row: StockRow;
  /** The price checked against the limit, where known. */
  priceFen?: Fen;
}

/** Whether a price is within the limit: unknown prices never are when a limit is set. */
export function priceVerdict(priceFen: Fen | undefined, maxFen: Fen | undefined): 'ok' | 'above' | 'unknown' {
  if (maxFen === undefined) return 'ok';
  if (priceFen === undefined) return 'unknown';
  return priceFen <= maxFen ? 'ok' : 'above';
}

/** A row's place is allowed: its region or zone among those named (none named: all). */
export function regionAllowed(row: Pick<StockRow, 'region' | 'zone'>, regions: readonly string[]): boolean {
  return !regions.length || regions.includes(row.region) || (row.zone !== undefined && regions.includes(row.zone));
}

/** Which of the named regions an account of this platform can read: AutoDL data-center codes, the clouds' region ids (a zone read through its region). */
export function regionsFor(kind: 'autodl' | 'cloud' | 'other', regions: readonly string[]): string[] {
  if (kind === 'autodl') return regions.filter(isAutodlDataCenter);
  if (kind === 'cloud') return [...new Set(regions.filter((r) => !isAutodlDataCenter(r) && REGION_ID.test(r)).map((r) => r.replace(/-(?:\d{1,2}|[a-z])$/, '')))];
  return [...regions];
}

/** The family whose stock read takes the named places: AutoDL data centers, or the clouds' region ids. */
export function regionFamily(kind: string): 'autodl' | 'cloud' | 'other' {
  // From the descriptors (no kind named here): AutoDL's data centers, or a cloud's region list.
  const d = (PLATFORM_DESCRIPTORS as Record<string, PlatformDescriptor | undefined>)[kind];
  return d?.create?.where === 'dataCenter' || d?.clone ? 'autodl' : d?.regions ? 'cloud' : 'other';
}

/** Whether an account of this kind is asked anything when these regions are named (none named: all of its own). */
export function watchesRegions(kind: string, regions: readonly string[]): boolean {
  return !regions.length || regionFamily(kind) === 'other' || regionsFor(regionFamily(kind), regions).length > 0;
}

const WHY_RANK: Record<GrabWhy['code'], number> = { priceAbove: 0, priceUnknown: 1, tooFewFree: 2, gpusDiffer: 3, noProSpec: 4, soldOut: 5, noMatch: 6 };

/** The reason said when nothing fits: the closest miss (a free card above the price before a sold-out one). */
export function closestWhy(whys: readonly GrabWhy[]): GrabWhy | undefined {
  return whys.slice().sort((a, b) => WHY_RANK[a.code] - WHY_RANK[b.code])[0];
}

/**
 * The rows a grab may act on, cheapest known price first, then most free; or why none fits.
 * `needProSpec`: AutoDL Pro creates, which need the pool card's spec.
 */
export function judgeStock(rows: readonly StockRow[], l: GrabLimits, o: { needProSpec?: boolean } = {}): { offers: Offer[]; why?: GrabWhy } {
  const named = rows.filter((r) => cardMatches(r.card, l.card) || (r.proSpec !== undefined && cardMatches(r.proSpec, l.card)) || (r.instanceType !== undefined && cardMatches(r.instanceType, l.card)));
  if (!named.length) return { offers: [], why: { code: 'noMatch', seen: [...new Set(rows.map((r) => r.card))].slice(0, 12) } };
  const whys: GrabWhy[] = [];
  const offers: Offer[] = [];
  for (const r of named.filter((x) => regionAllowed(x, l.regions))) {
    const where = r.zone ?? r.region;
    if (r.status === 'soldOut') {
      whys.push({ code: 'soldOut', card: r.card });
      continue;
    }
    if (r.free !== undefined && r.free < l.gpus) {
      whys.push(r.free === 0 ? { code: 'soldOut', card: r.card } : { code: 'tooFewFree', card: r.card, region: where, free: r.free, gpus: l.gpus });
      continue;
    }
    if (r.gpus !== undefined && r.gpus !== l.gpus) {
      whys.push({ code: 'gpusDiffer', card: r.card, gpus: r.gpus, want: l.gpus });
      continue;
    }
    if (o.needProSpec && !r.proSpec) {
      whys.push({ code: 'noProSpec', card: r.card });
      continue;
    }
    const pv = priceVerdict(r.priceFenPerHour, l.maxPriceFen);
    if (pv === 'above') {
      whys.push({ code: 'priceAbove', card: r.card, region: where, priceFen: r.priceFenPerHour!, maxFen: l.maxPriceFen! });
      continue;
    }
    // An unknown price may still be quoted before acting (a create's preview): kept, with no price.
    offers.push({ row: r, ...(r.priceFenPerHour !== undefined ? { priceFen: r.priceFenPerHour } : {}) });
  }
  if (!offers.length && !whys.length) whys.push({ code: 'soldOut', card: named[0]!.card });
  offers.sort((a, b) => (a.priceFen ?? Number.MAX_SAFE_INTEGER) - (b.priceFen ?? Number.MAX_SAFE_INTEGER) || (b.row.free ?? 0) - (a.row.free ?? 0));
  return offers.length ? { offers } : { offers, why: closestWhy(whys)! };
}

/**
 * A create's limits checked before the watch starts, for one platform (the card and place come
 * with the free row, so they are checked then): GPUs, image, disk, name. A refusal here would end
 * the grab only once a card is free, hours later.
 */
export function preflightCreate(kind: PlatformKind, o: { gpus: number; name: string; image?: string; diskGb?: number }): CreateRefusal | undefined {
  const r = checkSpec(kind, { card: 'card', gpus: o.gpus, name: o.name, ...(o.image !== undefined ? { image: o.image } : {}), ...(o.diskGb !== undefined ? { diskGb: o.diskGb } : {}) });
  return r && r.code !== 'unknownRegion' ? r : undefined;
}

/** The create's name when none is given: one per card and GPU count, so a second grab for the same card finds the first's lock (and its instance by name). */
export function grabCreateName(card: string, gpus: number): string {
  const c = card.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 40) || 'card';
  const name = `grab-${c}-x${gpus}`;
  return CREATE_NAME.test(name) ? name : `grab-x${gpus}`;
}

/** The lock a grab holds for its whole watch: the instance's power-on lock for start and clone, the name for a create. */
export function grabCreateLockKey(name: string): string {
  return `grab/create/${name}`;
}
