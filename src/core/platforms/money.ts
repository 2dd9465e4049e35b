// Amounts as platforms send them, converted once to fen. AutoDL sends ¥/1000 (厘), 腾讯云
// billing sends fen, 阿里云 sends yuan as decimal strings ("1,234.56") or numbers.
import type { Fen } from '../money';

const MAX_FEN = 1e13;

function bounded(fen: number): Fen | undefined {
  return Number.isFinite(fen) && Math.abs(fen) <= MAX_FEN ? Math.round(fen) : undefined;
}

/** ¥/1000 (AutoDL `payg_price`, wallet `assets`) → fen. 1000 = ¥1 = 100 fen. */
export function liToFen(v: unknown): Fen | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
  return bounded(n / 10);
}

/** An integer fen amount (腾讯云 DescribeAccountBalance). */
export function fenOf(v: unknown): Fen | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  return bounded(n);
}

/** Yuan as a decimal (number or "1,234.56" string) → fen, exact for up to two decimals. */
export function yuanTextToFen(v: unknown): Fen | undefined {
  if (typeof v === 'number') return bounded(Math.round(v * 100 + (v >= 0 ? 1e-9 : -1e-9)));
  if (typeof v !== 'string') return undefined;
  const t = v.replace(/,/g, '').trim();
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(t);
  if (!m) return undefined;
  const frac = (m[3] ?? '').padEnd(3, '0');
  const fen = Number(m[2]) * 100 + Number(frac.slice(0, 2)) + (Number(frac[2]) >= 5 ? 1 : 0);
  return bounded(m[1] ? -fen : fen);
}
