// `gpu-rent quote --json`: the same document in every language (codes and numbers; the catalog's
// warnings carry both their en and zh words).
import { cardById } from '../../core/cards';
import { dating, findPlatform, formatDating, WARNING_TEXT, type Catalog, type FenRange } from '../../core/catalog';
import { midpoint, starExclusion, type QuoteResult, type QuoteRow } from '../../core/cost';
import { fenToYuan } from '../../core/money';
import type { StartNow } from '../../core/startNow';
import type { Built } from './quote-flags';
import type { QuoteStockMarks } from './quote-stock';

/** A row's startNow: null where not checked (no account for its platform, or the read failed). */
function startNowJson(s: StartNow | undefined): Record<string, unknown> | null {
  if (!s || s.state === 'unknown') return s?.state === 'unknown' && s.reason === 'notListed' ? { state: 'notListed' } : null;
  if (s.state === 'none') return { state: 'none' };
  return { state: 'free', places: s.places.map((p) => ({ account: p.account, region: p.region, zone: p.zone ?? null, instanceType: p.instanceType ?? null, free: p.free ?? null, priceFenPerHour: p.priceFenPerHour ?? null })) };
}

function yuan(r: FenRange): number {
  return fenToYuan(midpoint(r));
}

function rowJson(r: QuoteRow, cheapest: QuoteRow | undefined, stock: QuoteStockMarks | undefined): Record<string, unknown> {
  const range = r.total.min !== r.total.max;
  const breakdown = {
    gpu: yuan(r.breakdown.gpu),
    storage: r.unpriced.includes('storage') ? null : yuan(r.breakdown.storage),
    idle: r.unpriced.includes('idle') ? null : yuan(r.breakdown.idle),
    download: r.unpriced.includes('download') ? null : yuan(r.breakdown.download),
    spotRework: yuan(r.breakdown.spotRework),
  };
  const out: Record<string, unknown> = {
    platform: r.platform,
    platformName: r.platformName.zh,
    platformNameEn: r.platformName.en,
    card: r.card,
    cardName: cardById(r.card)?.name ?? r.card,
    billing: r.mode,
    gpus: r.gpus,
    hours: Math.round(r.wallHours * 100) / 100,
    hoursEstimated: r.hoursEstimated,
    periods: r.periods,
    total: yuan(r.total),
  };
  if (range) {
    out.totalMin = fenToYuan(r.total.min);
    out.totalMax = fenToYuan(r.total.max);
  }
  out.breakdown = breakdown;
  if (range) {
    out.breakdownRange = Object.fromEntries(Object.entries(r.breakdown).map(([k, v]) => [k, [fenToYuan(v.min), fenToYuan(v.max)]]));
  }
  out.unpriced = r.unpriced;
  out.downloadHours = r.downloadHours ? [Math.round(r.downloadHours.min * 100) / 100, Math.round(r.downloadHours.max * 100) / 100] : null;
  const pp = r.price.perPeriod;
  out.price = {
    yuan: fenToYuan(midpoint(pp)),
    ...(pp.min !== pp.max ? { yuanMin: fenToYuan(Math.round(pp.min)), yuanMax: fenToYuan(Math.round(pp.max)) } : {}),
    per: r.mode === 'spot' ? 'hour' : r.mode,
    source: r.price.source,
    asOf: r.price.asOf,
    ...(r.price.readAt ? { readAt: r.price.readAt } : {}),
    dated: formatDating(dating(r.price)),
    derived: r.price.derived,
  };
  out.idleBasis = r.idleBasis;
  if (r.spot) out.spot = { reclaims: Math.round(r.spot.reclaims * 1000) / 1000, reworkHours: Math.round(r.spot.reworkHours * 1000) / 1000 };
  out.notes = r.notes;
  out.cheapest = r === cheapest;
  const excluded = starExclusion(r);
  if (excluded) out.neverCheapest = excluded;
  if (stock) out.startNow = startNowJson(stock.marks.get(r));
  return out;
}

/** The --json document (printed with two-space indent); with --stock, each row's startNow and the accounts read. */
export function quoteJson(catalog: Catalog, b: Built, result: QuoteResult, cheapest: QuoteRow | undefined, stock?: QuoteStockMarks): Record<string, unknown> {
  const i = b.input;
  const doc: Record<string, unknown> = {
    currency: 'CNY',
    input: {
      card: b.explicitCard?.id ?? null,
      refCard: b.refCard.id,
      gpuHours: Math.round(i.gpuHours * 1000) / 1000,
      gpus: i.gpus,
      storageGb: i.storageGb,
      days: i.days,
      idleHours: i.idleHours,
      downloadGb: i.downloadGb,
      spot: i.includeSpot,
      reclaimRatePerHour: i.reclaimRatePerHour,
      checkpointIntervalHours: i.checkpointIntervalHours,
      vramGb: i.vramNeededGb,
      platforms: i.platforms ?? null,
    },
    totalIs: 'midpoint of totalMin and totalMax when prices are ranges',
    rows: result.rows.map((r) => rowJson(r, cheapest, stock)),
    skipped: result.skipped,
    warnings: Object.fromEntries(
      [...new Set(result.rows.map((r) => r.platform))].map((id) => [
        id,
        findPlatform(catalog, id)!.warnings.map((w) => ({ code: w, en: WARNING_TEXT[w].en, zh: WARNING_TEXT[w].zh, ref: WARNING_TEXT[w].ref })),
      ]),
    ),
  };
  if (stock) doc.stock = { readAt: stock.stock.readAt, accounts: stock.stock.accounts.map((a) => ({ account: a.account, platform: a.platform, ok: a.ok, error: a.error ?? null, failure: a.failure ?? null })) };
  return doc;
}
