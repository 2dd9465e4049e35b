// The catalog as the cost model uses it: prices in fen, every figure with its source and
// as-of date. Built from the JSON shape in schema.ts (built-in data, or a user override
// merged in by mergeCatalog).
import type { z } from 'zod';
import { findCard, cardSpecs, type CardSpec } from '../cards';
import { yuanToFen, type Fen } from '../money';
import { builtinCatalogJson } from './data';
import {
  catalogJson,
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
export { REPORT_AS_OF } from './data';

export interface Provenance {
  source: string;
  /** ISO date; null when the figure's date is unknown. */
  asOf: string | null;
  note?: string;
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
  bandwidthMbps: Provenance & { value: NumRange | null };
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
  const r = toNumRange(a);
  return { min: yuanToFen(r.min), max: yuanToFen(r.max) };
}

function prov(p: { source?: string | undefined; asOf?: string | null | undefined; note?: string | undefined }, fallback: Provenance): Provenance {
  const out: Provenance = { source: p.source ?? fallback.source, asOf: p.asOf === undefined ? fallback.asOf : p.asOf };
  if (p.note !== undefined) out.note = p.note;
  return out;
}

function resolvePlatform(p: Parsed, catalogProv: Provenance): Platform {
  const base = prov(p, catalogProv);
  const opt = <T extends { value: AmountJson | null; source?: string; asOf?: string | null; note?: string }>(s: T | undefined) =>
    s === undefined ? null : { ...prov(s, base), value: s.value === null ? null : toNumRange(s.value) };
  const platform: Platform = {
    id: p.id,
    name: p.name,
    kind: p.kind,
    billingModes: [...p.billingModes],
    prices: p.prices.map((pr) => ({ ...prov(pr, base), card: findCard(pr.card)?.id ?? pr.card, mode: pr.mode, price: toFenRange(pr.yuan) })),
    dataDisk: { ...prov(p.dataDisk, base), fenPerGbDay: toFenRange(p.dataDisk.yuanPerGbDay), bundled: p.dataDisk.bundled },
    systemDisk: p.systemDisk,
    noGpuMode: { ...prov(p.noGpuMode, base), support: p.noGpuMode.support, hourlyRate: toFenRange(p.noGpuMode.yuanPerHour) },
    stoppedBills: p.stoppedBills,
    bandwidthMbps: { ...prov(p.bandwidthMbps, base), value: p.bandwidthMbps.value === null ? null : toNumRange(p.bandwidthMbps.value) },
    rootAccess: p.rootAccess,
    queue: {
      ...prov(p.queue, base),
      level: p.queue.level,
      ...(p.queue.peakHours !== undefined ? { peakHours: p.queue.peakHours } : {}),
      ...(p.queue.waitMinutes !== undefined ? { waitMinutes: toNumRange(p.queue.waitMinutes) } : {}),
      ...(p.queue.worstMinutes !== undefined ? { worstMinutes: p.queue.worstMinutes } : {}),
    },
    access: { ...prov(p.access, base), enterpriseVerification: p.access.enterpriseVerification, minRentalDays: p.access.minRentalDays },
    image: { ...prov(p.image, base), quality: p.image.quality, customImageSave: p.image.customImageSave },
    releaseAfterStoppedDays: opt(p.releaseAfterStoppedDays),
    spot: p.spot === null ? null : { ...prov(p.spot, base), discount: p.spot.discount, reclaimable: p.spot.reclaimable },
    freeQuotaHours: opt(p.freeQuotaHours),
    warnings: [...p.warnings],
    source: base.source,
    asOf: base.asOf,
  };
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

/** Checks what zod cannot: cards exist, price modes are offered, ids are unique. */
function crossCheck(platforms: readonly Parsed[], cards: readonly CardSpec[], pathOf: (i: number) => PropertyKey[]): CatalogError[] {
  const errors: CatalogError[] = [];
  const seen = new Set<string>();
  platforms.forEach((p, i) => {
    const at = pathOf(i);
    if (seen.has(p.id)) errors.push({ path: formatPath([...at, 'id']), message: `duplicate platform id "${p.id}"` });
    seen.add(p.id);
    p.prices.forEach((pr, j) => {
      if (!findCard(pr.card, cards)) {
        errors.push({ path: formatPath([...at, 'prices', j, 'card']), message: `unknown card "${pr.card}" (known: ${cards.map((c) => c.id).join(', ')})` });
      }
      if (!p.billingModes.includes(pr.mode)) {
        errors.push({ path: formatPath([...at, 'prices', j, 'mode']), message: `mode "${pr.mode}" is not in this platform's billingModes (${p.billingModes.join(', ') || 'none'})` });
      }
    });
  });
  return errors;
}

function build(json: CatalogJson, cards: readonly CardSpec[]): CatalogResult {
  const parsed = catalogJson.safeParse(json);
  if (!parsed.success) return { ok: false, errors: zodErrors(parsed.error) };
  const errors = crossCheck(parsed.data.platforms, cards, (i) => ['platforms', i]);
  if (errors.length) return { ok: false, errors };
  const catalogProv: Provenance = { source: parsed.data.source ?? 'catalog', asOf: parsed.data.asOf ?? null };
  return {
    ok: true,
    catalog: { asOf: catalogProv.asOf, platforms: parsed.data.platforms.map((p) => resolvePlatform(p, catalogProv)), cards, json },
  };
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

/** Gives every figure the user wrote their file's source and date (or null: no date given). */
function stamp(raw: Obj, source: string, asOf: string | null): Obj {
  const fill = (o: unknown) => (isObj(o) ? { source, asOf, ...o } : o);
  const out: Obj = { ...raw };
  for (const k of PROVENANCED_KEYS) if (k in out) out[k] = fill(out[k]);
  if (Array.isArray(out.prices)) out.prices = out.prices.map(fill);
  return out;
}

/**
 * Merges a user's override (parsed JSON of unknown shape) into `base`. Platforms with an
 * existing id are patched field by field (prices by card and mode); new ids are added and must
 * be complete. Errors carry the JSON path inside the override.
 */
export function mergeCatalog(base: Catalog, override: unknown): CatalogResult {
  const top = overrideJson.safeParse(override);
  if (!top.success) return { ok: false, errors: zodErrors(top.error) };
  const rawTop = override as Obj;
  const rawPlatforms = (Array.isArray(rawTop.platforms) ? rawTop.platforms : []) as Obj[];
  const merged: CatalogJson = { ...base.json, platforms: [...base.json.platforms] };
  const errors: CatalogError[] = [];
  const touched: { index: number; from: number }[] = [];

  rawPlatforms.forEach((rawP, i) => {
    const patch = platformPatchJson.safeParse(rawP);
    if (!patch.success) {
      errors.push(...zodErrors(patch.error, ['platforms', i]));
      return;
    }
    const source = (typeof rawP.source === 'string' ? rawP.source : undefined) ?? top.data.source ?? 'user catalog';
    const asOf = (typeof rawP.asOf === 'string' ? rawP.asOf : undefined) ?? top.data.asOf ?? null;
    const stamped = stamp(rawP, source, asOf);
    const at = merged.platforms.findIndex((p) => p.id === patch.data.id);
    if (at === -1) {
      const full = platformJson.safeParse({ source, asOf, ...stamped });
      if (!full.success) {
        errors.push(...zodErrors(full.error, ['platforms', i]));
        return;
      }
      merged.platforms.push({ source, asOf, ...stamped } as CatalogJson['platforms'][number]);
      touched.push({ index: merged.platforms.length - 1, from: i });
      return;
    }
    const old = merged.platforms[at]!;
    const next: Obj = { ...old, ...stamped };
    delete next.source;
    delete next.asOf;
    if (old.source !== undefined) next.source = old.source;
    if (old.asOf !== undefined) next.asOf = old.asOf;
    if (Array.isArray(stamped.prices)) {
      const prices = [...old.prices];
      for (const pr of stamped.prices as Obj[]) {
        const cardId = findCard(String(pr.card), base.cards)?.id ?? String(pr.card);
        const k = prices.findIndex((q) => (findCard(q.card, base.cards)?.id ?? q.card) === cardId && q.mode === pr.mode);
        if (k === -1) prices.push(pr as (typeof prices)[number]);
        else prices[k] = pr as (typeof prices)[number];
      }
      next.prices = prices;
    }
    merged.platforms[at] = next as CatalogJson['platforms'][number];
    touched.push({ index: at, from: i });
  });
  if (errors.length) return { ok: false, errors };

  // Validate what changed, reporting paths in the user's file.
  for (const t of touched) {
    const p = platformJson.safeParse(merged.platforms[t.index]);
    if (!p.success) {
      errors.push(...zodErrors(p.error, ['platforms', t.from]));
      continue;
    }
    const userPrices = (Array.isArray(rawPlatforms[t.from]!.prices) ? rawPlatforms[t.from]!.prices : []) as Obj[];
    userPrices.forEach((pr, j) => {
      const at = ['platforms', t.from, 'prices', j];
      if (!findCard(String(pr.card), base.cards)) {
        errors.push({ path: formatPath([...at, 'card']), message: `unknown card "${String(pr.card)}" (known: ${base.cards.map((c) => c.id).join(', ')})` });
      }
      if (!p.data.billingModes.includes(pr.mode as BillingMode)) {
        errors.push({ path: formatPath([...at, 'mode']), message: `mode "${String(pr.mode)}" is not in this platform's billingModes (${p.data.billingModes.join(', ') || 'none'})` });
      }
    });
    if (!errors.length) {
      const rest = crossCheck([p.data], base.cards, () => ['platforms', t.from]);
      for (const e of rest) errors.push({ path: formatPath(['platforms', t.from, 'billingModes']), message: `a built-in price no longer fits: ${e.message}` });
    }
  }
  if (errors.length) return { ok: false, errors };
  const r = build(merged, base.cards);
  return r;
}

export function findPlatform(catalog: Catalog, idOrName: string): Platform | undefined {
  const q = idOrName.trim().toLowerCase();
  return catalog.platforms.find((p) => p.id === q || p.name.zh.toLowerCase() === q || p.name.en.toLowerCase() === q);
}
