// Per-GPU prices per period (spot derived from hourly) and the break-even points between
// billing modes, from the catalog alone.
import { findCard } from './cards';
import type { BillingMode, CardPrice, FenRange, NumRange, Platform, Provenance } from './catalog';

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
