// Parsing what people type into input boxes. Never throws; a problem is a code the caller
// turns into words (and shows inline while the user types).
import { BOUNDS } from '../core/bounds';
import { yuanToFen, type Fen } from '../core/money';

export type InputProblem = 'empty' | 'notNumber' | 'negative' | 'tooLarge' | 'notInteger';

/** "1.98", "¥1.98", "1.98元", "1,234.5" → fen. */
export function parseYuan(text: string, max = BOUNDS.instanceYuanPerHour.max): { ok: true; fen: Fen } | { ok: false; problem: InputProblem } {
  const t = text.trim().replace(/^[¥￥]\s*/, '').replace(/\s*(元|yuan|cny)(\s*\/\s*(h|时|小时|hour))?$/i, '').replace(/,/g, '');
  if (t === '') return { ok: false, problem: 'empty' };
  if (!/^-?\d+(\.\d+)?$|^-?\.\d+$/.test(t)) return { ok: false, problem: 'notNumber' };
  const v = Number(t);
  if (!Number.isFinite(v)) return { ok: false, problem: 'notNumber' };
  if (v < 0) return { ok: false, problem: 'negative' };
  if (v > max) return { ok: false, problem: 'tooLarge' };
  return { ok: true, fen: yuanToFen(v) };
}

export function parseCount(text: string, min: number, max: number): { ok: true; value: number } | { ok: false; problem: InputProblem } {
  const t = text.trim();
  if (t === '') return { ok: false, problem: 'empty' };
  if (!/^-?\d+$/.test(t)) return { ok: false, problem: /^-?\d*\.\d+$/.test(t) ? 'notInteger' : 'notNumber' };
  const v = Number(t);
  if (v < min) return { ok: false, problem: 'negative' };
  if (v > max) return { ok: false, problem: 'tooLarge' };
  return { ok: true, value: v };
}

export function parseGb(text: string, max = BOUNDS.gb.max): { ok: true; value: number } | { ok: false; problem: InputProblem } {
  const t = text.trim().replace(/\s*(gb|g|gib)$/i, '');
  if (t === '') return { ok: false, problem: 'empty' };
  if (!/^\d+(\.\d+)?$/.test(t)) return { ok: false, problem: t.startsWith('-') ? 'negative' : 'notNumber' };
  const v = Number(t);
  if (v > max) return { ok: false, problem: 'tooLarge' };
  return { ok: true, value: v };
}

/** yuan with up to 4 decimals, for pre-filled input boxes (fen/h may carry storage fractions). */
export function fenToInput(fen: number): string {
  return String(Math.round(fen) / 100);
}
