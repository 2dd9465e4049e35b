// Merges a user's override into a catalog: patches by id, new platforms added whole, each
// checked by zod (its messages and paths are what the user sees).
import { catalogJson, overrideJson, platformJson, platformPatchJson, type BillingMode, type CatalogJson } from './schema';
import { cardKey, cardOf, crossCheck, finish, formatPath, zodErrors, type CardMemo, type Parsed } from './resolve';
import type { Catalog, CatalogError, CatalogResult, Provenance } from './index';

const PROVENANCED_KEYS = ['dataDisk', 'noGpuMode', 'bandwidthMbps', 'queue', 'access', 'image', 'releaseAfterStoppedDays', 'spot', 'freeQuotaHours'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Gives the platform and every figure the user wrote their file's source and date (or null: no
 * date given); the user's own source / asOf win.
 */
function stamp(raw: Obj, source: string, asOf: string | null): Obj {
  const out: Obj = { source, asOf, ...raw };
  for (const k of PROVENANCED_KEYS) {
    const o = out[k];
    if (isObj(o)) out[k] = { source, asOf, ...o };
  }
  const prices = out.prices;
  if (Array.isArray(prices)) out.prices = prices.map((o: unknown) => (isObj(o) ? { source, asOf, ...o } : o));
  return out;
}

/**
 * Merges a user's override (parsed JSON of unknown shape) into `base`. Platforms with an
 * existing id are patched field by field (prices by card and mode); new ids are added and must
 * be complete. The same id twice in the file is refused, naming both places. Errors carry the
 * JSON path inside the override. Linear in the size of both: platforms are found by id through
 * a map and prices by card × mode.
 */
export function mergeCatalog(base: Catalog, override: unknown): CatalogResult {
  const t = overrideJson.safeParse(override);
  if (!t.success) return { ok: false, errors: zodErrors(t.error) };
  const top = t.data;
  const rawTop = override as Obj;
  const rawPlatforms = (Array.isArray(rawTop.platforms) ? rawTop.platforms : []) as Obj[];
  const merged: CatalogJson = { ...base.json, platforms: [...base.json.platforms] };
  const again = catalogJson.safeParse(base.json);
  if (!again.success) return { ok: false, errors: zodErrors(again.error) };
  const parsed: (Parsed | undefined)[] = [...again.data.platforms];
  const errors: CatalogError[] = [];
  // What changed: index in the merged list, index in the user's file, whether it is new.
  const touchedAt: number[] = [];
  const touchedFrom: number[] = [];
  const touchedNew: boolean[] = [];
  const catalogProv: Provenance = { source: base.json.source ?? 'catalog', asOf: base.json.asOf ?? null };
  const indexOf = new Map<string, number>();
  merged.platforms.forEach((p, k) => indexOf.set(p.id, k));
  const fromFile = new Map<string, number>();
  const baseLength = merged.platforms.length;
  const newFrom: number[] = [];
  const memo: CardMemo = new Map();
  const key = (card: string, mode: unknown) => `${cardKey(card, base.cards, memo)}\u0000${String(mode)}`;

  for (let i = 0; i < rawPlatforms.length; i++) {
    const rawP = rawPlatforms[i]!;
    const rawId = isObj(rawP) && typeof rawP.id === 'string' ? rawP.id : undefined;
    // A new platform is parsed once, as a whole; a patch first on its own (for its paths), then merged.
    const isNew = rawId !== undefined && !indexOf.has(rawId);
    const patch = isNew ? null : platformPatchJson.safeParse(rawP);
    if (patch && !patch.success) {
      errors.push(...zodErrors(patch.error, ['platforms', i]));
      continue;
    }
    const id = patch ? patch.data!.id : rawId!;
    const at = indexOf.get(id);
    const first = fromFile.get(id) ?? (at !== undefined && at >= baseLength ? newFrom[at - baseLength] : undefined);
    if (first !== undefined) {
      errors.push({ path: formatPath(['platforms', i, 'id']), message: `duplicate platform id "${id}" (also at ${formatPath(['platforms', first, 'id'])}); give each platform once` });
      continue;
    }
    fromFile.set(id, i);
    const source = (typeof rawP.source === 'string' ? rawP.source : undefined) ?? top.source ?? 'user catalog';
    const asOf = (typeof rawP.asOf === 'string' ? rawP.asOf : undefined) ?? top.asOf ?? null;
    if (at === undefined) {
      const whole = stamp(rawP, source, asOf);
      const full = platformJson.safeParse(whole);
      if (!full.success) {
        errors.push(...zodErrors(full.error, ['platforms', i]));
        continue;
      }
      const index = merged.platforms.push(whole as CatalogJson['platforms'][number]) - 1;
      parsed.push(full.data);
      indexOf.set(id, index);
      newFrom.push(i);
      touchedAt.push(index);
      touchedFrom.push(i);
      touchedNew.push(true);
      continue;
    }
    const stamped = stamp(rawP, source, asOf);
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
    let data = parsed[index];
    if (!data) {
      const p = platformJson.safeParse(merged.platforms[index]);
      if (!p.success) {
        errors.push(...zodErrors(p.error, ['platforms', from]));
        continue;
      }
      data = p.data;
      parsed[index] = data;
    }
    const modes: readonly BillingMode[] = data.billingModes;
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
      const rest = crossCheck([data], base.cards, () => ['platforms', from], memo);
      for (const e of rest) errors.push({ path: formatPath(['platforms', from, 'billingModes']), message: `a built-in price no longer fits: ${e.message}` });
    }
  }
  if (errors.length) return { ok: false, errors };
  return finish(merged, parsed as Parsed[], base.cards, catalogProv);
}
