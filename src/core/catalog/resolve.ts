// Turns checked catalog JSON into the Catalog the cost model reads (yuan → fen, every figure
// with its source and date) and checks what zod cannot (cards, modes, unique ids and prices).
// Shared by index.ts (whole catalogs) and merge.ts (a user's override).
import type { z } from 'zod';
import { findCard, type CardSpec } from '../cards';
import { yuanToFen } from '../money';
import { platformJson, type AmountJson, type CatalogJson } from './schema';
import type { CardPrice, Catalog, CatalogError, CatalogResult, FenRange, NumRange, Platform, Provenance } from './index';

export type Parsed = z.output<typeof platformJson>;

function toNumRange(a: AmountJson): NumRange {
  return typeof a === 'number' ? { min: a, max: a } : { min: a[0], max: a[1] };
}

function toFenRange(a: AmountJson | null | undefined): FenRange | null {
  if (a === null || a === undefined) return null;
  return typeof a === 'number' ? { min: yuanToFen(a), max: yuanToFen(a) } : { min: yuanToFen(a[0]), max: yuanToFen(a[1]) };
}

function prov(p: { source?: string | undefined; asOf?: string | null | undefined; readAt?: string | undefined; note?: string | undefined }, fallback: Provenance): Provenance {
  const out: Provenance = { source: p.source ?? fallback.source, asOf: p.asOf === undefined ? fallback.asOf : p.asOf };
  const readAt = p.readAt ?? (p.source === undefined && p.asOf === undefined ? fallback.readAt : undefined);
  if (readAt !== undefined) out.readAt = readAt;
  if (p.note !== undefined) out.note = p.note;
  return out;
}

type ProvIn = { source?: string | undefined; asOf?: string | null | undefined; readAt?: string | undefined; note?: string | undefined };

/** Adds provenance to a fresh object in place. */
function withProv<T extends object>(p: ProvIn, fallback: Provenance, fields: T): Provenance & T {
  const out = fields as Provenance & T;
  out.source = p.source ?? fallback.source;
  out.asOf = p.asOf === undefined ? fallback.asOf : p.asOf;
  return tail(out, p, fallback);
}

// A merge resolves 10⁵ platforms: each figure is one object literal with its source and date
// (adding them afterwards allocated a second block per object), and readAt / note are rare.
const srcOf = (p: ProvIn, fallback: Provenance): string => p.source ?? fallback.source;
const asOfOf = (p: ProvIn, fallback: Provenance): string | null => (p.asOf === undefined ? fallback.asOf : p.asOf);
function tail<T extends Provenance>(out: T, p: ProvIn, fallback: Provenance): T {
  const readAt = p.readAt ?? (p.source === undefined && p.asOf === undefined ? fallback.readAt : undefined);
  if (readAt !== undefined) out.readAt = readAt;
  if (p.note !== undefined) out.note = p.note;
  return out;
}

function sourcedRange(s: (ProvIn & { value: AmountJson | null }) | undefined, base: Provenance): (Provenance & { value: NumRange | null }) | null {
  return s === undefined ? null : tail({ value: s.value === null ? null : toNumRange(s.value), source: srcOf(s, base), asOf: asOfOf(s, base) }, s, base);
}

export function resolvePlatform(p: Parsed, catalogProv: Provenance, cardId: (name: string) => string = (n) => findCard(n)?.id ?? n): Platform {
  const base = prov(p, catalogProv);
  const q = p.queue;
  const queue: Platform['queue'] = withProv(q, base, { level: q.level });
  if (q.peakHours !== undefined) queue.peakHours = q.peakHours;
  if (q.waitMinutes !== undefined) queue.waitMinutes = toNumRange(q.waitMinutes);
  if (q.worstMinutes !== undefined) queue.worstMinutes = q.worstMinutes;
  const prices: CardPrice[] = new Array<CardPrice>(p.prices.length);
  for (let j = 0; j < prices.length; j++) {
    const pr = p.prices[j]!;
    prices[j] = tail({ card: cardId(pr.card), mode: pr.mode, price: toFenRange(pr.yuan), source: srcOf(pr, base), asOf: asOfOf(pr, base) }, pr, base);
  }
  const { dataDisk: dd, noGpuMode: ng, bandwidthMbps: bw, access: ac, image: im, spot: sp } = p;
  const platform: Platform = {
    id: p.id,
    name: p.name,
    kind: p.kind,
    billingModes: p.billingModes.slice(),
    prices,
    dataDisk: tail({ fenPerGbDay: toFenRange(dd.yuanPerGbDay), bundled: dd.bundled, source: srcOf(dd, base), asOf: asOfOf(dd, base) }, dd, base),
    systemDisk: p.systemDisk,
    noGpuMode: tail({ support: ng.support, hourlyRate: toFenRange(ng.yuanPerHour), source: srcOf(ng, base), asOf: asOfOf(ng, base) }, ng, base),
    stoppedBills: p.stoppedBills,
    bandwidthMbps: tail({ value: bw.value === null ? null : toNumRange(bw.value), fenPerMonth: toFenRange(bw.yuanPerMonth), source: srcOf(bw, base), asOf: asOfOf(bw, base) }, bw, base),
    rootAccess: p.rootAccess,
    queue,
    access: tail({ enterpriseVerification: ac.enterpriseVerification, minRentalDays: ac.minRentalDays, source: srcOf(ac, base), asOf: asOfOf(ac, base) }, ac, base),
    image: tail({ quality: im.quality, customImageSave: im.customImageSave, source: srcOf(im, base), asOf: asOfOf(im, base) }, im, base),
    releaseAfterStoppedDays: sourcedRange(p.releaseAfterStoppedDays, base),
    spot: sp === null ? null : tail({ discount: sp.discount, reclaimable: sp.reclaimable, source: srcOf(sp, base), asOf: asOfOf(sp, base) }, sp, base),
    freeQuotaHours: sourcedRange(p.freeQuotaHours, base),
    warnings: p.warnings.length ? p.warnings.slice() : [],
    source: base.source,
    asOf: base.asOf,
  };
  if (base.readAt !== undefined) platform.readAt = base.readAt;
  if (p.note !== undefined) platform.note = p.note;
  if (p.guardFacts !== undefined) platform.guardFacts = p.guardFacts;
  return platform;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(top level)';
}

export function zodErrors(error: z.ZodError, prefix: readonly PropertyKey[] = []): CatalogError[] {
  return error.issues.map((i) => ({ path: formatPath([...prefix, ...i.path]), message: i.message }));
}

export type CardMemo = Map<string, CardSpec | null>;

/** The card a price names (aliases resolved), memoized: a merge looks one up per price. */
export function cardOf(name: string, cards: readonly CardSpec[], memo: CardMemo): CardSpec | null {
  let c = memo.get(name);
  if (c === undefined) {
    c = findCard(name, cards) ?? null;
    memo.set(name, c);
  }
  return c;
}

export function cardKey(name: string, cards: readonly CardSpec[], memo: CardMemo): string {
  return cardOf(name, cards, memo)?.id ?? name;
}

/** Checks what zod cannot: cards exist, price modes are offered, ids and card × mode prices are unique. */
export function crossCheck(platforms: readonly Parsed[], cards: readonly CardSpec[], pathOf: (i: number) => PropertyKey[], memo: CardMemo = new Map()): CatalogError[] {
  const errors: CatalogError[] = [];
  const seen = new Map<string, number>();
  platforms.forEach((p, i) => {
    const at = pathOf(i);
    const first = seen.get(p.id);
    if (first !== undefined) errors.push({ path: formatPath([...at, 'id']), message: `duplicate platform id "${p.id}" (also at ${formatPath([...pathOf(first), 'id'])})` });
    else seen.set(p.id, i);
    const priceAt = new Map<string, number>();
    p.prices.forEach((pr, j) => {
      const key = `${cardKey(pr.card, cards, memo)}\u0000${pr.mode}`;
      const firstPrice = priceAt.get(key);
      if (firstPrice !== undefined) {
        errors.push({ path: formatPath([...at, 'prices', j]), message: `duplicate ${pr.mode} price for card "${pr.card}" (also at ${formatPath([...at, 'prices', firstPrice])})` });
      } else priceAt.set(key, j);
      if (!cardOf(pr.card, cards, memo)) {
        errors.push({ path: formatPath([...at, 'prices', j, 'card']), message: `unknown card "${pr.card}" (known: ${cards.map((c) => c.id).join(', ')})` });
      }
      if (!p.billingModes.includes(pr.mode)) {
        errors.push({ path: formatPath([...at, 'prices', j, 'mode']), message: `mode "${pr.mode}" is not in this platform's billingModes (${p.billingModes.join(', ') || 'none'})` });
      }
    });
  });
  return errors;
}

/** Cross-checks the parsed platforms and resolves them into the catalog. */
export function finish(json: CatalogJson, platforms: readonly Parsed[], cards: readonly CardSpec[], catalogProv: Provenance): CatalogResult {
  const memo: CardMemo = new Map();
  const errors = crossCheck(platforms, cards, (i) => ['platforms', i], memo);
  if (errors.length) return { ok: false, errors };
  const cardId = (n: string) => cardKey(n, cards, memo);
  const catalog: Catalog = { asOf: catalogProv.asOf, platforms: platforms.map((p) => resolvePlatform(p, catalogProv, cardId)), cards, json };
  return { ok: true, catalog };
}
