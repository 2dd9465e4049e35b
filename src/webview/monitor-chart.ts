// Line charts for the GPU monitor, hand-written SVG like the calculator's charts (same
// escaping, same 1-2-5 ticks, colours from CSS classes). Pure: returns markup.
import { forHtml } from '../core/text';
import { niceStep } from './charts';

export interface Series {
  label: string;
  points: readonly (readonly [number, number])[];
}

/** The most grid lines an axis draws, whatever its domain (a forged 1.7e308 once made the tick loop endless). */
export const MAX_TICKS = 10;

/** The y axis for values up to `ymax`: a 1-2-5 step and its top, always finite, with at most MAX_TICKS steps. */
export function yAxis(ymax: number): { step: number; top: number; ticks: number } {
  const max = !(ymax > 0) || !Number.isFinite(ymax) ? 1 : Math.min(Math.max(ymax, 1e-12), 1e300);
  let step = niceStep(max, 4);
  let top = Math.ceil(max / step) * step;
  if (!Number.isFinite(top) || !(step > 0) || !Number.isFinite(step)) {
    top = max;
    step = max / 4;
  }
  return { step, top, ticks: Math.min(MAX_TICKS, Math.max(1, Math.round(top / step))) };
}

/** A stretch of x drawn over the plot (the loss curve's NaN/Inf steps): shaded, edged, labelled. */
export interface Band {
  from: number;
  to: number;
  label: string;
  /** Still going on (the latest readings): drawn as the warning it is. */
  current?: boolean;
}

/** The most bands one chart draws. */
export const MAX_BANDS = 50;

export function lineChart(series: readonly Series[], o: { width: number; height: number; title: string; xMin: number; xMax: number; yMax?: number; unit: string; xLabel?: (x: number) => string; bands?: readonly Band[] }): string {
  const W = Math.max(200, Math.floor(o.width));
  const H = Math.max(80, Math.floor(o.height));
  const left = 44;
  const right = 8;
  const top = 18;
  const bottom = 18;
  const pw = W - left - right;
  const ph = H - top - bottom;
  let ymax = o.yMax ?? 0;
  if (o.yMax === undefined) for (const s of series) for (const [, y] of s.points) if (Number.isFinite(y) && y > ymax) ymax = y;
  const { step, top: top_, ticks } = yAxis(ymax);
  const span = Number.isFinite(o.xMax - o.xMin) && o.xMax - o.xMin !== 0 ? o.xMax - o.xMin : 1;
  const X = (x: number) => left + ((x - o.xMin) / span) * pw;
  const Y = (y: number) => top + ph - (Math.max(0, Math.min(y, top_)) / top_) * ph;
  const out: string[] = [`<svg class="chart line-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${forHtml(o.title)}">`, `<text class="chart-title" x="${left}" y="12">${forHtml(o.title)}</text>`];
  // A counted loop: k * step, never v += step (which stops growing once step is below v's precision).
  for (let k = 0; k <= ticks; k++) {
    const v = k === ticks ? top_ : k * step;
    const y = Y(v).toFixed(1);
    out.push(`<line class="grid" x1="${left}" x2="${W - right}" y1="${y}" y2="${y}"/>`, `<text class="tick" x="${left - 4}" y="${y}" text-anchor="end" dominant-baseline="middle">${forHtml(`${Number(v.toPrecision(3))}${o.unit}`)}</text>`);
  }
  if (o.xLabel) {
    out.push(`<text class="tick" x="${left}" y="${H - 4}">${forHtml(o.xLabel(o.xMin))}</text>`, `<text class="tick" x="${W - right}" y="${H - 4}" text-anchor="end">${forHtml(o.xLabel(o.xMax))}</text>`);
  }
  // Bands under the lines; at least 3 px wide so a single NaN step still shows.
  for (const b of (o.bands ?? []).slice(-MAX_BANDS)) {
    if (!Number.isFinite(b.from) || !Number.isFinite(b.to)) continue;
    const x1 = Math.max(left, Math.min(W - right, X(Math.min(b.from, b.to))));
    const x2 = Math.max(left, Math.min(W - right, X(Math.max(b.from, b.to))));
    if (!Number.isFinite(x1) || !Number.isFinite(x2)) continue;
    const w = Math.max(3, x2 - x1);
    const x = Math.min(x1, W - right - w);
    const cls = `diverged${b.current ? ' current' : ''}`;
    out.push(`<g class="${cls}"><rect x="${x.toFixed(1)}" y="${top}" width="${w.toFixed(1)}" height="${ph}"/><line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${top}" y2="${top + ph}"/><title>${forHtml(b.label)}</title></g>`);
    if (b.current) out.push(`<text class="diverged-label" x="${Math.max(left + 2, Math.min(x, W - right - 4)).toFixed(1)}" y="${top + 10}" text-anchor="${x > left + pw / 2 ? 'end' : 'start'}">${forHtml(b.label)}</text>`);
  }
  series.forEach((s, i) => {
    // At most one point per pixel column: a 30-minute window at 1 Hz is 1800 points.
    const cols = new Map<number, [number, number]>();
    for (const [x, y] of s.points) {
      if (!Number.isFinite(x) || !Number.isFinite(y) || x < o.xMin || x > o.xMax) continue;
      const px = X(x);
      const py = Y(y);
      if (Number.isFinite(px) && Number.isFinite(py)) cols.set(Math.round(px), [px, py]);
    }
    if (cols.size === 0) return;
    const d = [...cols.values()].map(([x, y], k) => `${k ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`).join('');
    out.push(`<path class="series s${i % 8}" d="${d}"><title>${forHtml(s.label)}</title></path>`);
  });
  out.push('</svg>');
  return out.join('');
}
