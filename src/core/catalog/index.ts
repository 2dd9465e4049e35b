// The catalog as the cost model uses it: prices in fen, every figure with its source and
// as-of date. Built from the JSON shape in schema.ts (built-in data, or a user override
// merged in by mergeCatalog).
import type { z } from 'zod';
import { findCard, cardSpecs, type CardSpec } from '../cards';
import { type Dating } from '../format';
import { yuanToFen, type Fen } from '../money';
import { builtinCatalogJson, REPORT } from './data';
import {
  catalogJson,
  fastOverrideTop,
  fastPlatform,
  overrideJson,
  platformJson,
  platformPatchJson,
  type AmountJson,
  type BillingMode,
  type CatalogJson,
  type WarningCode,
} from './schema';

export * from './schema';
export { WARNING_TEXT, type WarningText } from './warnings';
export { REPORT } from './data';
export { REPORT_UNDATED, formatDating, type Dating } from '../format';

export interface Provenance {
  source: string;
  /** ISO date; null when the figure's date is unknown (the field report gives none). */
  asOf: string | null;
  /** ISO date-time a platform's API gave this figure. */
  readAt?: string;
  note?: string;
}

/** What is known about a figure's date: read from an API, dated by a user, the report's undated test week, or nothing. */
export function dating(p: Pick<Provenance, 'source' | 'asOf' | 'readAt'>): Dating {
  if (p.readAt) return { kind: 'readAt', at: p.readAt };
  if (p.asOf) return { kind: 'asOf', date: p.asOf };
  if (p.source.startsWith(REPORT)) return { kind: 'reportTestWeek' };
  return { kind: 'unknown' };
}

/** A money figure in fen; min === max for a single value. May carry fractional fen when derived. */
export interface FenRange {
  min: Fen;
  max: Fen;
}

export interface NumRange {
  min: number;
  max: number;
}

export interface CardPrice extends Provenance {
  /** Card id from cards.ts. */
  card: string;
  mode: BillingMode;
  /** Per GPU for one period of `mode`; null: the report names it but gives no figure. */
  price: FenRange | null;
  /** Computed from another figure (spot = hourly × (1 − discount)). */
  derived?: boolean;
}

type Parsed = z.output<typeof platformJson>;

export interface Platform {
  id: string;
  name: { zh: string; en: string };
  kind: Parsed['kind'];
  billingModes: BillingMode[];
  prices: CardPrice[];
  dataDisk: Provenance & { fenPerGbDay: FenRange | null; bundled: boolean };
  systemDisk: Parsed['systemDisk'];
  noGpuMode: Provenance & { support: Parsed['noGpuMode']['support']; hourlyRate: FenRange | null };
  stoppedBills: Parsed['stoppedBills'];
  bandwidthMbps: Provenance & { value: NumRange | null; fenPerMonth: FenRange | null };
  rootAccess: boolean | null;
  queue: Provenance & { level: Parsed['queue']['level']; peakHours?: string; waitMinutes?: NumRange; worstMinutes?: number };
  access: Provenance & { enterpriseVerification: boolean; minRentalDays: number | null };
  image: Provenance & { quality: Parsed['image']['quality']; customImageSave: boolean | null };
  releaseAfterStoppedDays: (Provenance & { value: NumRange | null }) | null;
  spot: (Provenance & { discount: number; reclaimable: boolean }) | null;
  freeQuotaHours: (Provenance & { value: NumRange | null }) | null;
  warnings: WarningCode[];
  source: string;
  asOf: string | null;
  readAt?: string;
  note?: string;
}

export interface Catalog {
  asOf: string | null;
  platforms: Platform[];
  cards: readonly CardSpec[];
  /** The JSON this catalog was built from (so overrides can be merged again). */
  json: CatalogJson;
}

export interface CatalogError {
  /** JSON path inside the file, e.g. "platforms[0].prices[1].yuan". */
  path: string;
  message: string;
}

export type CatalogResult = { ok: true; catalog: Catalog } | { ok: false; errors: CatalogError[] };

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

function resolvePlatform(p: Parsed, catalogProv: Provenance, cardId: (name: string) => string = (n) => findCard(n)?.id ?? n): Platform {
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
  return platform;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(top level)';
}

function zodErrors(error: z.ZodError, prefix: readonly PropertyKey[] = []): CatalogError[] {
  return error.issues.map((i) => ({ path: formatPath([...prefix, ...i.path]), message: i.message }));
}

type CardMemo = Map<string, CardSpec | null>;

/** The card a price names (aliases resolved), memoized: a merge looks one up per price. */
function cardOf(name: string, cards: readonly CardSpec[], memo: CardMemo): CardSpec | null {
  let c = memo.get(name);
  if (c === undefined) {
    c = findCard(name, cards) ?? null;
    memo.set(name, c);
  }
  return c;
}

function cardKey(name: string, cards: readonly CardSpec[], memo: CardMemo): string {
  return cardOf(name, cards, memo)?.id ?? name;
}

/** Checks what zod cannot: cards exist, price modes are offered, ids and card × mode prices are unique. */
function crossCheck(platforms: readonly Parsed[], cards: readonly CardSpec[], pathOf: (i: number) => PropertyKey[], memo: CardMemo = new Map()): CatalogError[] {
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

/**
 * The parsed platforms each catalog was built from, so a merge parses only what the user wrote.
 * A hole: a merge resolved that platform straight away (its parsed form died young instead of
 * being kept, a quarter of a big merge's memory); parsedAt parses its checked JSON again.
 */
const parsedOf = new WeakMap<Catalog, (Parsed | undefined)[]>();

function parsedAt(json: CatalogJson, parsed: (Parsed | undefined)[], i: number): Parsed {
  let p = parsed[i];
  if (!p) {
    const j = json.platforms[i];
    p = fastPlatform(j) ?? platformJson.parse(j);
    parsed[i] = p;
  }
  return p;
}

/**
 * `checked`: the cross-checks already passed (a merge over a checked catalog; only then may
 * `platforms` have holes). `resolved`: platforms a merge resolved already, by index.
 */
function finish(json: CatalogJson, platforms: (Parsed | undefined)[], cards: readonly CardSpec[], catalogProv: Provenance, checked = false, resolved: readonly (Platform | undefined)[] = []): CatalogResult {
  const memo: CardMemo = new Map();
  const errors = checked ? [] : crossCheck(platforms as Parsed[], cards, (i) => ['platforms', i], memo);
  if (errors.length) return { ok: false, errors };
  const cardId = (n: string) => cardKey(n, cards, memo);
  const out: Platform[] = new Array<Platform>(platforms.length);
  for (let i = 0; i < out.length; i++) out[i] = resolved[i] ?? resolvePlatform(parsedAt(json, platforms, i), catalogProv, cardId);
  const catalog: Catalog = { asOf: catalogProv.asOf, platforms: out, cards, json };
  parsedOf.set(catalog, platforms);
  return { ok: true, catalog };
}

function build(json: CatalogJson, cards: readonly CardSpec[]): CatalogResult {
  const parsed = catalogJson.safeParse(json);
  if (!parsed.success) return { ok: false, errors: zodErrors(parsed.error) };
  return finish(json, parsed.data.platforms, cards, { source: parsed.data.source ?? 'catalog', asOf: parsed.data.asOf ?? null });
}

let builtin: Catalog | undefined;

/** The catalog from the field report. Throws only if the shipped data is invalid (a test guards it). */
export function builtinCatalog(): Catalog {
  if (!builtin) {
    const r = build(builtinCatalogJson, cardSpecs);
    if (!r.ok) throw new Error(`built-in catalog is invalid: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    builtin = r.catalog;
  }
  return builtin;
}

/** Parses a whole catalog (the JSON shape of the built-in data). */
export function parseCatalog(json: unknown): CatalogResult {
  return build(json as CatalogJson, cardSpecs);
}

const PROVENANCED_KEYS = ['dataDisk', 'noGpuMode', 'bandwidthMbps', 'queue', 'access', 'image', 'releaseAfterStoppedDays', 'spot', 'freeQuotaHours'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const isPlain = (v: unknown): v is Obj => isObj(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/**
 * Gives the platform and every figure the user wrote their file's source and date (or null: no
 * date given); the user's own source / asOf win. `plainOnly`: undefined unless every object
 * copied is plain (a spread would drop what zod sees of another prototype).
 */
function stamp(raw: Obj, source: string, asOf: string | null, plainOnly: boolean): Obj | undefined {
  if (plainOnly && !isPlain(raw)) return undefined;
  const out: Obj = { source, asOf, ...raw };
  for (const k of PROVENANCED_KEYS) {
    const o = out[k];
    if (!isObj(o)) continue;
    if (plainOnly && !isPlain(o)) return undefined;
    out[k] = { source, asOf, ...o };
  }
  const prices = out.prices;
  if (Array.isArray(prices)) {
    const copy: unknown[] = new Array(prices.length);
    for (let j = 0; j < prices.length; j++) {
      const o: unknown = prices[j];
      if (isObj(o) && plainOnly && !isPlain(o)) return undefined;
      copy[j] = isObj(o) ? { source, asOf, ...o } : o;
    }
    out.prices = copy;
  }
  return out;
}

/**
 * Merges a user's override (parsed JSON of unknown shape) into `base`. Platforms with an
 * existing id are patched field by field (prices by card and mode); new ids are added and must
 * be complete. The same id twice in the file is refused, naming both places. Errors carry the
 * JSON path inside the override. Linear in the size of both: platforms are found by id through
 * a map and prices by card × mode. New platforms are checked by schema.ts's hand-written fast
 * path; only when it is unsure is the merge redone with zod throughout, whose messages the
 * user sees (80,000 new platforms, 10.6 MB, merge in about 0.3 s).
 */
export function mergeCatalog(base: Catalog, override: unknown): CatalogResult {
  return merge(base, override, true) ?? merge(base, override, false)!;
}

/** `fast`: without zod where schema.ts's fast path knows the shape; undefined when it is unsure. */
function merge(base: Catalog, override: unknown, fast: boolean): CatalogResult | undefined {
  let top: { source?: string | undefined; asOf?: string | undefined };
  if (fast) {
    const t = fastOverrideTop(override);
    if (!t) return undefined;
    top = t;
  } else {
    const t = overrideJson.safeParse(override);
    if (!t.success) return { ok: false, errors: zodErrors(t.error) };
    top = t.data;
  }
  const rawTop = override as Obj;
  const rawPlatforms = (Array.isArray(rawTop.platforms) ? rawTop.platforms : []) as Obj[];
  const merged: CatalogJson = { ...base.json, platforms: [...base.json.platforms] };
  let baseParsed = parsedOf.get(base);
  const baseChecked = baseParsed !== undefined;
  if (!baseParsed) {
    const again = catalogJson.safeParse(base.json);
    if (!again.success) return { ok: false, errors: zodErrors(again.error) };
    baseParsed = again.data.platforms;
  }
  const parsed: (Parsed | undefined)[] = [...baseParsed];
  const errors: CatalogError[] = [];
  // What changed: index in the merged list, index in the user's file, whether it is new.
  const touchedAt: number[] = [];
  const touchedFrom: number[] = [];
  const touchedNew: boolean[] = [];
  const catalogProv: Provenance = { source: base.json.source ?? 'catalog', asOf: base.json.asOf ?? null };
  // Aligned with merged.platforms (filled, not holey: a holey array that grows is slow).
  const resolved: (Platform | undefined)[] = [];
  for (let k = 0; k < merged.platforms.length; k++) resolved.push(undefined);
  const indexOf = new Map<string, number>();
  merged.platforms.forEach((p, k) => indexOf.set(p.id, k));
  const fromFile = new Map<string, number>();
  const baseLength = merged.platforms.length;
  const newFrom: number[] = [];
  const memo: CardMemo = new Map();
  const key = (card: string, mode: unknown) => `${cardKey(card, base.cards, memo)}\u0000${String(mode)}`;
  const cardId = (n: string) => cardKey(n, base.cards, memo);

  for (let i = 0; i < rawPlatforms.length; i++) {
    const rawP = rawPlatforms[i]!;
    const rawId = isObj(rawP) && typeof rawP.id === 'string' ? rawP.id : undefined;
    // A new platform is parsed once, as a whole; a patch first on its own (for its paths), then merged.
    const isNew = rawId !== undefined && !indexOf.has(rawId);
    const patch = isNew ? null : platformPatchJson.safeParse(rawP);
    if (patch && !patch.success) {
      if (fast) return undefined;
      errors.push(...zodErrors(patch.error, ['platforms', i]));
      continue;
    }
    const id = patch ? patch.data!.id : rawId!;
    // On the fast path a new id was never seen (each id seen is in indexOf, or zod redoes the
    // merge), and where a new platform stands in the file is kept in newFrom, not in fromFile.
    const seenNew = fast && isNew;
    const at = seenNew ? undefined : indexOf.get(id);
    if (!seenNew) {
      const first = fromFile.get(id) ?? (at !== undefined && at >= baseLength ? newFrom[at - baseLength] : undefined);
      if (first !== undefined) {
        errors.push({ path: formatPath(['platforms', i, 'id']), message: `duplicate platform id "${id}" (also at ${formatPath(['platforms', first, 'id'])}); give each platform once` });
        continue;
      }
      fromFile.set(id, i);
    }
    const source = (typeof rawP.source === 'string' ? rawP.source : undefined) ?? top.source ?? 'user catalog';
    const asOf = (typeof rawP.asOf === 'string' ? rawP.asOf : undefined) ?? top.asOf ?? null;
    if (at === undefined) {
      const whole = stamp(rawP, source, asOf, fast);
      let data: Parsed | undefined;
      if (fast) {
        data = whole && fastPlatform(whole);
        if (!data) return undefined;
      } else {
        const full = platformJson.safeParse(whole);
        if (!full.success) {
          errors.push(...zodErrors(full.error, ['platforms', i]));
          continue;
        }
        data = full.data;
      }
      const index = merged.platforms.push(whole as CatalogJson['platforms'][number]) - 1;
      // Over a checked base nothing needs the parsed form again: resolve it while it is young.
      parsed.push(baseChecked ? undefined : data);
      resolved.push(baseChecked ? resolvePlatform(data, catalogProv, cardId) : undefined);
      indexOf.set(id, index);
      newFrom.push(i);
      touchedAt.push(index);
      touchedFrom.push(i);
      touchedNew.push(true);
      continue;
    }
    const stamped = stamp(rawP, source, asOf, false)!;
    delete stamped.source;
    delete stamped.asOf;
    const old = merged.platforms[at]!;
    const next: Obj = { ...old, ...stamped };
    delete next.source;
    delete next.asOf;
    delete next.readAt;
    if (old.source !== undefined) next.source = old.source;
    if (old.asOf !== undefined) next.asOf = old.asOf;
    if (old.readAt !== undefined) next.readAt = old.readAt;
    if (Array.isArray(stamped.prices)) {
      const prices = [...old.prices];
      const byKey = new Map<string, number>();
      prices.forEach((q, k) => byKey.set(key(q.card, q.mode), k));
      for (const pr of stamped.prices as Obj[]) {
        const k = byKey.get(key(String(pr.card), pr.mode));
        if (k === undefined) {
          byKey.set(key(String(pr.card), pr.mode), prices.length);
          prices.push(pr as (typeof prices)[number]);
        } else prices[k] = pr as (typeof prices)[number];
      }
      next.prices = prices;
    }
    merged.platforms[at] = next as CatalogJson['platforms'][number];
    parsed[at] = undefined;
    touchedAt.push(at);
    touchedFrom.push(i);
    touchedNew.push(false);
  }
  if (errors.length) return { ok: false, errors };

  // Validate what changed, reporting paths in the user's file.
  for (let n = 0; n < touchedAt.length; n++) {
    const index = touchedAt[n]!;
    const from = touchedFrom[n]!;
    const early = resolved[index];
    let data = parsed[index];
    if (!data && !early) {
      const json = merged.platforms[index];
      data = fastPlatform(json);
      if (!data) {
        const p = platformJson.safeParse(json);
        if (!p.success) {
          errors.push(...zodErrors(p.error, ['platforms', from]));
          continue;
        }
        data = p.data;
      }
      parsed[index] = data;
    }
    const modes: readonly BillingMode[] = early ? early.billingModes : data!.billingModes;
    const userPrices = (Array.isArray(rawPlatforms[from]!.prices) ? rawPlatforms[from]!.prices : []) as Obj[];
    const seenPrice = userPrices.length > 1 ? new Map<string, number>() : undefined;
    for (let j = 0; j < userPrices.length; j++) {
      const pr = userPrices[j]!;
      const at = ['platforms', from, 'prices', j];
      if (seenPrice) {
        const k = key(String(pr.card), pr.mode);
        const firstPrice = seenPrice.get(k);
        if (firstPrice !== undefined) errors.push({ path: formatPath(at), message: `duplicate ${String(pr.mode)} price for card "${String(pr.card)}" (also at ${formatPath(['platforms', from, 'prices', firstPrice])})` });
        else seenPrice.set(k, j);
      }
      if (!cardOf(String(pr.card), base.cards, memo)) {
        errors.push({ path: formatPath([...at, 'card']), message: `unknown card "${String(pr.card)}" (known: ${base.cards.map((c) => c.id).join(', ')})` });
      }
      if (!modes.includes(pr.mode as BillingMode)) {
        errors.push({ path: formatPath([...at, 'mode']), message: `mode "${String(pr.mode)}" is not in this platform's billingModes (${modes.join(', ') || 'none'})` });
      }
    }
    // A new platform's prices are all the user's, just checked; a patched one keeps built-in prices too.
    if (!errors.length && !touchedNew[n]) {
      const rest = crossCheck([data!], base.cards, () => ['platforms', from], memo);
      for (const e of rest) errors.push({ path: formatPath(['platforms', from, 'billingModes']), message: `a built-in price no longer fits: ${e.message}` });
    }
  }
  if (errors.length) return { ok: false, errors };
  // A checked base has unique ids and fitting prices, and every touched platform was checked above.
  return finish(merged, parsed, base.cards, catalogProv, baseChecked, resolved);
}

export function findPlatform(catalog: Catalog, idOrName: string): Platform | undefined {
  const q = idOrName.trim().toLowerCase();
  return catalog.platforms.find((p) => p.id === q || p.name.zh.toLowerCase() === q || p.name.en.toLowerCase() === q);
}
