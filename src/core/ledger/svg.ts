// Runs' loss curves as one SVG chart (Compare Runs' report): loss against step, hours or yuan, a
// line per run, the axes' ends labelled, a legend. Pure text; names escaped (they come from the
// box's job names) and every number finite, so the picture is inert data.
import { forHtml } from '../text';
import type { Comparison } from './compare';

export type ChartAxis = 'step' | 'hours' | 'yuan';
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
const W = 640;
const H = 300;
const PAD = { l: 56, r: 16, t: 16, b: 40 };

const fmt = (v: number) => (Math.abs(v) >= 1000 || v === 0 ? String(Math.round(v)) : String(Number(v.toPrecision(3))));

/** The chart, or null when no run has a point on this axis. `xLabel`, `yLabel` are the axes' words. */
export function lossChartSvg(c: Comparison, axis: ChartAxis, xLabel: string, yLabel = 'loss'): string | null {
  const series = c.runs.map((r) => r.curve.flatMap((p) => {
    const x = axis === 'step' ? p.step : axis === 'hours' ? p.hours : p.yuan;
    return x !== null && Number.isFinite(x) && Number.isFinite(p.loss) ? [[x, p.loss] as const] : [];
  }));
  const all = series.flat();
  if (!all.length) return null;
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  const sx = (x: number) => PAD.l + ((x - x0) / (x1 - x0 || 1)) * (W - PAD.l - PAD.r);
  const sy = (y: number) => H - PAD.b - ((y - y0) / (y1 - y0 || 1)) * (H - PAD.t - PAD.b);
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + 20 * c.runs.length}" font-family="sans-serif" font-size="11">`, `<rect width="100%" height="100%" fill="#fff"/>`];
  out.push(`<line x1="${PAD.l}" y1="${H - PAD.b}" x2="${W - PAD.r}" y2="${H - PAD.b}" stroke="#444"/>`, `<line x1="${PAD.l}" y1="${PAD.t}" x2="${PAD.l}" y2="${H - PAD.b}" stroke="#444"/>`);
  out.push(`<text x="${PAD.l}" y="${H - PAD.b + 14}">${fmt(x0)}</text>`, `<text x="${W - PAD.r}" y="${H - PAD.b + 14}" text-anchor="end">${fmt(x1)}</text>`, `<text x="${(PAD.l + W - PAD.r) / 2}" y="${H - 8}" text-anchor="middle">${forHtml(xLabel)}</text>`);
  out.push(`<text x="${PAD.l - 4}" y="${H - PAD.b}" text-anchor="end">${fmt(y0)}</text>`, `<text x="${PAD.l - 4}" y="${PAD.t + 10}" text-anchor="end">${fmt(y1)}</text>`, `<text x="12" y="${(PAD.t + H - PAD.b) / 2}" transform="rotate(-90 12 ${(PAD.t + H - PAD.b) / 2})" text-anchor="middle">${forHtml(yLabel)}</text>`);
  series.forEach((pts, i) => {
    const color = COLORS[i % COLORS.length]!;
    if (pts.length) out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ')}"/>`);
    const r = c.runs[i]!;
    out.push(`<rect x="${PAD.l}" y="${H + 20 * i + 2}" width="12" height="4" fill="${color}"/>`, `<text x="${PAD.l + 18}" y="${H + 20 * i + 8}">${forHtml(`${r.name} (${r.id})`)}</text>`);
  });
  out.push('</svg>');
  return out.join('');
}

/** The chart as a Markdown image (a data: URI the Markdown preview shows). */
export function svgImage(svg: string, alt: string): string {
  const bytes = new TextEncoder().encode(svg);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 8192) bin += String.fromCharCode(...bytes.subarray(i, i + 8192));
  const b64 = btoa(bin);
  return `![${alt.replace(/[[\]\\]/g, '')}](data:image/svg+xml;base64,${b64})`;
}
