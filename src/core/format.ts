// Display helpers shared by the CLI and the webview: one function per kind of figure.
import type { FenRange, NumRange } from './catalog';
import { formatCny, formatCnyRange } from './money';

export { formatCny, formatCnyRange } from './money';

/** "¥29.70" or "¥24.00–30.00". */
export function formatFenRange(r: FenRange): string {
  return r.min === r.max ? formatCny(r.min) : formatCnyRange(r.min, r.max);
}

function trimNumber(x: number, digits: number): string {
  return x.toFixed(digits).replace(/\.?0+$/, '');
}

/** Hours for people: "45 min", "6.5 h", "15 h", "3.2 d" (over 72 h). */
export function formatHours(h: number): string {
  if (!Number.isFinite(h) || h < 0) return '?';
  if (h === 0) return '0 h';
  if (h < 1) return `${Math.max(1, Math.round(h * 60))} min`;
  if (h > 72) return `${trimNumber(h / 24, 1)} d`;
  return `${trimNumber(h, h < 10 ? 1 : 0)} h`;
}

export function formatHoursRange(r: NumRange): string {
  const a = formatHours(r.min);
  const b = formatHours(r.max);
  return a === b ? a : `${a}–${b}`;
}

/** A plain number range: "5–10", "2". */
export function formatNumRange(r: NumRange, digits = 1): string {
  const a = trimNumber(r.min, digits);
  const b = trimNumber(r.max, digits);
  return a === b ? a : `${a}–${b}`;
}

/** Bytes in decimal units: "14 GB", "512 MB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '?';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${trimNumber(v, v < 10 ? 1 : 0)} ${units[i]}`;
}

/** "2024-03" from an ISO date; "date unknown" for null. */
export function formatAsOf(asOf: string | null): string {
  return asOf ? asOf.slice(0, 7) : 'date unknown';
}
