// Display helpers shared by the CLI and the webview: one function per kind of figure.
import type { FenRange, NumRange } from './catalog';
import { formatCny, formatCnyRange } from './money';

export { formatCny, formatCnyRange } from './money';

/** "¥29.70" or "¥24.00–30.00". */
export function formatFenRange(r: FenRange): string {
  return r.min === r.max ? formatCny(r.min) : formatCnyRange(r.min, r.max);
}

function trimNumber(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** Hours for people: "36 s", "45 min", "6.5 h", "15 h", "3.2 d" (over 72 h). */
export function formatHours(h: number): string {
  if (!Number.isFinite(h) || h < 0) return '?';
  if (h === 0) return '0 h';
  // Below a minute, seconds: a 1-second job is not "1 min".
  if (h * 60 < 0.995) return `${Math.max(1, Math.round(h * 3600))} s`;
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

/** What is known about when a figure was true (see core/catalog `dating`). */
export type Dating =
  | { kind: 'readAt'; at: string }
  | { kind: 'asOf'; date: string }
  | { kind: 'reportTestWeek' }
  | { kind: 'unknown' };

/** The field report's figures: "the week of my tests", no year or month given. */
export const REPORT_UNDATED = 'undated (field report test week)';

/**
 * A figure's date as known, never invented: "read 2026-05-01 14:03 UTC" (a platform's API),
 * "as of 2026-11-01" (a user's file), "undated (field report test week)", "date unknown".
 */
export function formatDating(d: Dating): string {
  switch (d.kind) {
    case 'readAt':
      return `read ${d.at.slice(0, 16).replace('T', ' ')}${d.at.endsWith('Z') ? ' UTC' : ''}`;
    case 'asOf':
      return `as of ${d.date}`;
    case 'reportTestWeek':
      return REPORT_UNDATED;
    case 'unknown':
      return 'date unknown';
  }
}

/** Terminal columns a string takes: CJK and full-width characters count two. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const wide =
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x20000 && cp <= 0x3fffd);
    w += wide ? 2 : 1;
  }
  return w;
}

function pad(s: string, width: number, align: 'l' | 'r'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return align === 'r' ? fill + s : s + fill;
}

/** A plain-text table: first row is the header; columns padded by display width. */
export function renderTable(rows: readonly (readonly string[])[], align: readonly ('l' | 'r')[] = []): string {
  const cols = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, c) => Math.max(0, ...rows.map((r) => displayWidth(r[c] ?? ''))));
  return rows.map((r) => widths.map((w, c) => pad(r[c] ?? '', w, align[c] ?? 'l')).join('  ').trimEnd()).join('\n') + '\n';
}
