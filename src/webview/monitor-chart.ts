// Line charts for the GPU monitor, hand-written SVG like the calculator's charts (same
// escaping, same 1-2-5 ticks, colours from CSS classes). Pure: returns markup.
import { escapeXml, niceStep } from './charts';

export interface Series {
  label: string;
  points: readonly (readonly [number, number])[];
}

export function lineChart(series: readonly Series[], o: { width: number; height: number; title: string; xMin: number; xMax: number; yMax?: number; unit: string; xLabel?: (x: number) => string }): string {
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
  if (!(ymax > 0)) ymax = 1;
  const step = niceStep(ymax, 4);
  const top_ = Math.ceil(ymax / step) * step;
  const span = o.xMax - o.xMin || 1;
  const X = (x: number) => left + ((x - o.xMin) / span) * pw;
  const Y = (y: number) => top + ph - (Math.max(0, Math.min(y, top_)) / top_) * ph;
  const out: string[] = [`<svg class="chart line-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(o.title)}">`, `<text class="chart-title" x="${left}" y="12">${escapeXml(o.title)}</text>`];
  for (let v = 0; v <= top_ + 1e-9; v += step) {
    const y = Y(v).toFixed(1);
    out.push(`<line class="grid" x1="${left}" x2="${W - right}" y1="${y}" y2="${y}"/>`, `<text class="tick" x="${left - 4}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(`${Number(v.toPrecision(3))}${o.unit}`)}</text>`);
  }
  if (o.xLabel) {
    out.push(`<text class="tick" x="${left}" y="${H - 4}">${escapeXml(o.xLabel(o.xMin))}</text>`, `<text class="tick" x="${W - right}" y="${H - 4}" text-anchor="end">${escapeXml(o.xLabel(o.xMax))}</text>`);
  }
  series.forEach((s, i) => {
    // At most one point per pixel column: a 30-minute window at 1 Hz is 1800 points.
    const cols = new Map<number, [number, number]>();
    for (const [x, y] of s.points) if (Number.isFinite(x) && Number.isFinite(y) && x >= o.xMin && x <= o.xMax) cols.set(Math.round(X(x)), [X(x), Y(y)]);
    if (cols.size === 0) return;
    const d = [...cols.values()].map(([x, y], k) => `${k ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`).join('');
    out.push(`<path class="series s${i % 8}" d="${d}"><title>${escapeXml(s.label)}</title></path>`);
  });
  out.push('</svg>');
  return out.join('');
}
