// Money is integer fen (¥0.01) everywhere in core; yuan appear only at the edges (catalog
// input, display, JSON output). Floating-point yuan never get summed.

/** An integer number of fen (1 yuan = 100 fen). */
export type Fen = number;

/** Yuan (as the report writes them, e.g. 1.98) to integer fen, rounded to the nearest fen. */
export function yuanToFen(yuan: number): Fen {
  if (!Number.isFinite(yuan)) return 0;
  // Multiply through a string-free correction: 1.005*100 is 100.49999…, so nudge by epsilon.
  return Math.round(yuan * 100 + (yuan >= 0 ? 1e-9 : -1e-9));
}

/** Fen to yuan as a number with at most two decimals (for JSON output). */
export function fenToYuan(fen: Fen): number {
  return Math.round(fen) / 100;
}

/** Rounds a fractional fen amount (a product of rate × time) to a whole fen. */
export function roundFen(x: number): Fen {
  if (!Number.isFinite(x)) return 0;
  return Math.round(x);
}

function groupThousands(intPart: string): string {
  return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Thrown when an amount cannot be shown as money: NaN, ±Infinity, or beyond exact integers. */
export class MoneyRangeError extends RangeError {
  constructor(readonly value: number) {
    super(`not an amount of money: ${String(value)} fen`);
    this.name = 'MoneyRangeError';
  }
}

/**
 * Yuan digits without the currency sign: 2970 → "29.70", 123450 → "1,234.50". Refuses what
 * is not a finite amount within exact integers (2⁵³ fen): printing NaN as ¥0.00 or 1e19 as
 * "¥1.5,000,…e+26" would hide a bug behind a plausible figure.
 */
export function formatYuanDigits(fen: Fen): string {
  if (!Number.isFinite(fen) || Math.abs(fen) > Number.MAX_SAFE_INTEGER) throw new MoneyRangeError(fen);
  const f = Math.round(fen);
  const neg = f < 0;
  const abs = Math.abs(f);
  const yuan = Math.floor(abs / 100);
  const cents = abs % 100;
  return `${neg ? '-' : ''}${groupThousands(String(yuan))}.${String(cents).padStart(2, '0')}`;
}

/** "¥29.70", "¥1,234.50", "-¥3.00". */
export function formatCny(fen: Fen): string {
  const s = formatYuanDigits(fen);
  return s.startsWith('-') ? `-¥${s.slice(1)}` : `¥${s}`;
}

/** "¥1.60–2.00" for a range; "¥1.60" when both ends are equal. */
export function formatCnyRange(min: Fen, max: Fen): string {
  if (Math.round(min) === Math.round(max)) return formatCny(min);
  const lo = Math.min(min, max);
  const hi = Math.max(min, max);
  return `${formatCny(lo)}–${formatYuanDigits(hi)}`;
}
