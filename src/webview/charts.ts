// Hand-written SVG: a stacked bar per quote (GPU, storage, stopped time, download, spot
// rework) and the break-even chart of billing modes. Pure functions returning markup, so they
// run in tests; every text is escaped. Colours come from CSS classes (theme variables).
import { formatCny } from '../core/money';
import { forHtml } from '../core/text';

export const COMPONENTS = ['gpu', 'storage', 'idle', 'download', 'spotRework'] as const;
export type Component = (typeof COMPONENTS)[number];

export interface Bar {
  label: string;
  /** Fen per component (midpoints). */
  parts: Record<Component, number>;
  highlight?: boolean;
  /** Some cost has no figure: the bar is only part of the bill ("+?"), as in the table. */
  unknown?: string;
}

/** 1-2-5 steps: a tick spacing giving about `count` ticks up to `max`. */
export function niceStep(max: number, count = 5): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/** Rough rendered width of 11 px text: CJK and full-width characters are about square, Latin about 0.6 em. */
export function textWidth(s: string, fontPx = 11): number {
  let w = 0;
  for (const ch of s) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? fontPx : /[\s.,:;·'|il]/.test(ch) ? fontPx * 0.35 : fontPx * 0.62;
  return w;
}

/** `s`, cut with an ellipsis to fit `maxPx`. */
export function fitText(s: string, maxPx: number, fontPx = 11): string {
  if (textWidth(s, fontPx) <= maxPx) return s;
  const chars = [...s];
  while (chars.length > 1 && textWidth(chars.join('') + '…', fontPx) > maxPx) chars.pop();
  return chars.join('').trimEnd() + '…';
}

/** A text element that never spills: cut to `maxPx` with an ellipsis, the full text in its tooltip. */
function label(cls: string, x: number, y: number, s: string, maxPx: number, anchor?: 'end' | 'middle'): string {
  const shown = fitText(s, maxPx);
  const tip = shown === s ? '' : `<title>${forHtml(s)}</title>`;
  return `<text class="${cls}" x="${n(x)}" y="${n(y)}"${anchor ? ` text-anchor="${anchor}"` : ''}>${tip}${forHtml(shown)}</text>`;
}

/** Legend entries laid out in rows that wrap at `width`: [x, row] per entry. */
function legendLayout(widths: readonly number[], x0: number, width: number): { at: [number, number][]; rows: number } {
  const at: [number, number][] = [];
  let x = x0;
  let row = 0;
  for (const w of widths) {
    if (x > x0 && x + w > width - 4) {
      row++;
      x = x0;
    }
    at.push([x, row]);
    x += w + 16;
  }
  return { at, rows: row + 1 };
}

const n = (x: number): string => (Number.isFinite(x) ? (Math.round(x * 10) / 10).toString() : '0');

export function stackedBars(bars: readonly Bar[], opts: { width: number; title: string; legend: Record<Component, string> }): string {
  const longest = Math.max(0, ...bars.map((b) => textWidth(b.label)));
  const labelW = Math.round(Math.min(Math.max(120, opts.width * 0.45), Math.max(80, longest + 12)));
  const rowH = 22;
  const top = 28;
  const plotW = Math.max(100, opts.width - labelW - 80);
  const max = Math.max(1, ...bars.map((b) => COMPONENTS.reduce((a, c) => a + Math.max(0, b.parts[c]), 0)));
  const step = niceStep(max);
  const axisMax = Math.ceil(max / step) * step;
  const x = (fen: number) => labelW + (fen / axisMax) * plotW;
  const legendItems = COMPONENTS.map((c) => ({ c, text: fitText(opts.legend[c], opts.width - 24) }));
  const legendWidths = legendItems.map((l) => 16 + textWidth(l.text));
  const oneRow = legendWidths.reduce((a, w) => a + w + 16, 0);
  const legend = legendLayout(legendWidths, labelW + oneRow <= opts.width ? labelW : 8, opts.width);
  const height = top + bars.length * rowH + 30 + legend.rows * 18;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" role="img" aria-label="${forHtml(opts.title)}" width="${opts.width}" height="${height}" viewBox="0 0 ${opts.width} ${height}">`);
  out.push(`<title>${forHtml(opts.title)}</title>`);
  for (let t = 0; t <= axisMax + 1e-9; t += step) {
    out.push(`<line class="grid" x1="${n(x(t))}" y1="${top - 4}" x2="${n(x(t))}" y2="${top + bars.length * rowH}"/>`);
    out.push(`<text class="tick" x="${n(x(t))}" y="${top - 8}" text-anchor="middle">${forHtml(formatCny(t).replace(/\.00$/, ''))}</text>`);
  }
  bars.forEach((b, i) => {
    const y = top + i * rowH;
    const known = b.highlight && !b.unknown;
    out.push(label(`label${known ? ' best' : ''}${b.unknown ? ' unknown' : ''}`, labelW - 6, y + 15, b.label, labelW - 10, 'end'));
    let acc = 0;
    for (const c of COMPONENTS) {
      const v = Math.max(0, b.parts[c]);
      if (v <= 0) continue;
      out.push(`<rect class="seg ${c}" x="${n(x(acc))}" y="${y + 3}" width="${n(Math.max(0.5, x(acc + v) - x(acc)))}" height="${rowH - 6}"><title>${forHtml(`${b.label}: ${opts.legend[c]} ${formatCny(v)}`)}</title></rect>`);
      acc += v;
    }
    if (b.unknown) {
      // An open end: the bar stops where the known costs stop; "+?" says the rest has no figure.
      out.push(`<line class="open-end" x1="${n(x(acc) + 1)}" y1="${y + 3}" x2="${n(x(acc) + 1)}" y2="${y + rowH - 3}"/>`);
      out.push(`<text class="value unknown" x="${n(x(acc) + 4)}" y="${y + 15}"><title>${forHtml(b.unknown)}</title>${forHtml(formatCny(acc))} +?</text>`);
    } else out.push(`<text class="value" x="${n(x(acc) + 4)}" y="${y + 15}">${forHtml(formatCny(acc))}</text>`);
  });
  const ly = top + bars.length * rowH + 24;
  legendItems.forEach(({ c, text }, i) => {
    const [lx, row] = legend.at[i]!;
    const y = ly + row * 18;
    out.push(`<g class="legend-item"><rect class="seg ${c}" x="${n(lx)}" y="${y - 10}" width="12" height="12"/><text class="legend" x="${n(lx + 16)}" y="${y}">${text === opts.legend[c] ? '' : `<title>${forHtml(opts.legend[c])}</title>`}${forHtml(text)}</text></g>`);
  });
  out.push('</svg>');
  return out.join('');
}

export interface ModeLine {
  mode: 'hour' | 'day' | 'week' | 'month';
  label: string;
  /** Fen per period for the whole instance (midpoint). */
  pricePerPeriod: number;
}

const PERIOD_HOURS = { hour: 1, day: 24, week: 168, month: 720 } as const;

/** Cost of `hours` of continuous use in one mode: whole periods, as the platforms bill. */
export function modeCost(line: Pick<ModeLine, 'mode' | 'pricePerPeriod'>, hours: number): number {
  if (hours <= 0) return 0;
  return line.mode === 'hour' ? line.pricePerPeriod * hours : Math.ceil(hours / PERIOD_HOURS[line.mode]) * line.pricePerPeriod;
}

/** First hour count (1 h resolution) from which `b` is no dearer than `a`, or null within the range. */
export function crossover(a: Pick<ModeLine, 'mode' | 'pricePerPeriod'>, b: Pick<ModeLine, 'mode' | 'pricePerPeriod'>, maxHours = 720): number | null {
  for (let h = 1; h <= maxHours; h++) if (modeCost(b, h) <= modeCost(a, h)) return h;
  return null;
}

export function breakEvenChart(lines: readonly ModeLine[], opts: { width: number; title: string; axis: string; maxHours?: number }): string {
  const maxH = opts.maxHours ?? 720;
  const left = 64;
  const top = 16;
  const h = 220;
  const w = Math.max(160, opts.width - left - 20);
  const costs = lines.map((l) => modeCost(l, maxH));
  const max = Math.max(1, ...costs);
  const step = niceStep(max);
  const yMax = Math.ceil(max / step) * step;
  const X = (hours: number) => left + (hours / maxH) * w;
  const Y = (fen: number) => top + h - (fen / yMax) * h;
  const out: string[] = [];
  const legendItems = lines.map((l) => fitText(`${l.label} ${formatCny(l.pricePerPeriod)}`, opts.width - 40));
  const legend = legendLayout(legendItems.map((t) => 22 + textWidth(t)), left, opts.width);
  const height = top + h + 42 + legend.rows * 18;
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart breakeven" role="img" aria-label="${forHtml(opts.title)}" width="${opts.width}" height="${height}" viewBox="0 0 ${opts.width} ${height}">`);
  out.push(`<title>${forHtml(opts.title)}</title>`);
  for (let t = 0; t <= yMax + 1e-9; t += step) {
    out.push(`<line class="grid" x1="${left}" y1="${n(Y(t))}" x2="${left + w}" y2="${n(Y(t))}"/><text class="tick" x="${left - 6}" y="${n(Y(t) + 4)}" text-anchor="end">${forHtml(formatCny(t).replace(/\.00$/, ''))}</text>`);
  }
  for (const hx of [0, 168, 336, 504, 720].filter((v) => v <= maxH)) {
    out.push(`<text class="tick" x="${n(X(hx))}" y="${top + h + 16}" text-anchor="middle">${hx}</text>`);
  }
  out.push(label('axis', left + w / 2, top + h + 34, opts.axis, w, 'middle'));
  lines.forEach((l) => {
    const pts: string[] = [];
    const stepH = l.mode === 'hour' ? maxH : PERIOD_HOURS[l.mode];
    if (l.mode === 'hour') pts.push(`${n(X(0))},${n(Y(0))}`, `${n(X(maxH))},${n(Y(modeCost(l, maxH)))}`);
    else {
      pts.push(`${n(X(0))},${n(Y(0))}`);
      for (let start = 0; start < maxH; start += stepH) {
        const c = modeCost(l, start + 1e-6);
        const end = Math.min(maxH, start + stepH);
        pts.push(`${n(X(start))},${n(Y(c))}`, `${n(X(end))},${n(Y(c))}`);
      }
    }
    out.push(`<polyline class="line ${l.mode}" fill="none" points="${pts.join(' ')}"><title>${forHtml(`${l.label}: ${formatCny(l.pricePerPeriod)}`)}</title></polyline>`);
  });
  lines.forEach((l, i) => {
    const [lx, row] = legend.at[i]!;
    const y = top + h + 50 + row * 18;
    out.push(`<g class="legend-item"><line class="line ${l.mode}" x1="${n(lx)}" y1="${y}" x2="${n(lx + 18)}" y2="${y}"/><text class="legend" x="${n(lx + 22)}" y="${y + 4}">${forHtml(legendItems[i]!)}</text></g>`);
  });
  out.push('</svg>');
  return out.join('');
}
