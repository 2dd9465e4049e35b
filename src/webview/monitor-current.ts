// The GPU monitor's "now" table: each GPU's latest reading (utilisation, memory used of total,
// power, temperature) with its age, and the run's latest step and loss, above the curves, so the
// page says what the GPUs are doing without reading a chart's right edge. Pure (words passed in);
// every value is a number from the validated protocol, the words are the page's own.
import { forHtml } from '../core/text';
import { fillTemplate } from '../core/l10n';
import type { SampleTuple } from './monitor-protocol';

export interface CurrentWords {
  gpu: string;
  util: string;
  mem: string;
  power: string;
  temp: string;
  /** `{0}` seconds. */
  secondsAgo: string;
  noReading: string;
  /** `{0}` step, `{1}` loss. */
  lastLoss: string;
}

const GIB_PER_MIB = 1 / 1024;
const dash = '–';

/** `latest`: the newest sample of each GPU, in the order to show. */
export function currentTable(latest: readonly SampleTuple[], now: number, w: CurrentWords, lastLoss?: { step: number; loss: number }): string {
  if (!latest.length) return `<p class="current empty">${forHtml(w.noReading)}</p>`;
  const head = `<tr><th>${forHtml(w.gpu)}</th><th>${forHtml(w.util)}</th><th>${forHtml(w.mem)}</th><th>${forHtml(w.power)}</th><th>${forHtml(w.temp)}</th><th></th></tr>`;
  const rows = latest
    .map(([index, t, util, memUsed, memTotal, power, temp]) => {
      const mem = memUsed !== null && memTotal ? `${(memUsed * GIB_PER_MIB).toFixed(1)} / ${(memTotal * GIB_PER_MIB).toFixed(1)} GiB (${Math.round((memUsed / memTotal) * 100)}%)` : memUsed !== null ? `${(memUsed * GIB_PER_MIB).toFixed(1)} GiB` : dash;
      const cells = [`GPU ${index}`, util !== null ? `${Math.round(util)}%` : dash, mem, power !== null ? `${Math.round(power)} W` : dash, temp !== null ? `${Math.round(temp)} °C` : dash, fillTemplate(w.secondsAgo, [Math.max(0, Math.round(now - t))])];
      return `<tr>${cells.map((c) => `<td>${forHtml(c)}</td>`).join('')}</tr>`;
    })
    .join('');
  const loss = lastLoss ? `<p class="current-loss">${forHtml(fillTemplate(w.lastLoss, [Math.round(lastLoss.step), Number(lastLoss.loss.toPrecision(5))]))}</p>` : '';
  return `<table class="current">${head}${rows}</table>${loss}`;
}
