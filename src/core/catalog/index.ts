// The catalog as the cost model uses it: prices in fen, every figure with its source and
// as-of date. Built from the JSON shape in schema.ts (built-in data, or a user override
// merged in by mergeCatalog).
import type { z } from 'zod';
import { cardSpecs, type CardSpec } from '../cards';
import { type Dating } from '../format';
import { type Fen } from '../money';
import { builtinCatalogJson, REPORT } from './data';
import { finish, zodErrors } from './resolve';
import { catalogJson, type BillingMode, type CatalogJson, type WarningCode, type platformJson } from './schema';

export * from './schema';
export { WARNING_TEXT, type WarningText } from './warnings';
export { REPORT } from './data';
export { mergeCatalog } from './merge';
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
  /** What the guards need beyond the fields above (core/guards/facts.ts). */
  guardFacts?: Parsed['guardFacts'];
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

export function findPlatform(catalog: Catalog, idOrName: string): Platform | undefined {
  const q = idOrName.trim().toLowerCase();
  return catalog.platforms.find((p) => p.id === q || p.name.zh.toLowerCase() === q || p.name.en.toLowerCase() === q);
}
