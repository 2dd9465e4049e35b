// The GPU monitor shows the figures now (issue 23.6: "the monitor shows no current values"): the
// newest reading of each GPU with its age, and the run's last logged loss, above the curves.
// The readings are synthetic lines in the shape of the stream's `nvidia-smi --query-gpu=…
// --format=csv,noheader,nounits`, read by the stream's own parser; the cells are worked out by hand.
import { strict as assert } from 'node:assert';
import { parseGpuLine } from '../../src/core/progress/gpu';
import { currentTable, type CurrentWords } from '../../src/webview/monitor-current';
import type { SampleTuple } from '../../src/webview/monitor-protocol';

const words: CurrentWords = { gpu: 'GPU', util: 'Utilisation', mem: 'Memory used', power: 'Power', temp: 'Temp.', secondsAgo: '{0} s ago', noReading: 'No reading yet', lastLoss: 'Last logged: step {0}, loss {1}' };
const T = 1_780_000_000;
const tuple = (line: string, t: number): SampleTuple => {
  const s = parseGpuLine(line);
  assert.ok(s);
  return [s.index, t, s.util, s.memUsed, s.memTotal, s.power, s.temp];
};
const cells = (html: string) => [...html.matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]);

describe('the GPU monitor’s current figures (webview/monitor-current)', () => {
  it('one row per GPU: utilisation, memory used of total in GiB and %, power, temperature, age', () => {
    // Synthetic lines in the stream's shape: index, utilization.gpu, memory.used, memory.total (MiB), power.draw (W), temperature.gpu (°C).
    const html = currentTable([tuple('0, 95, 20480, 24564, 411.20, 71', T - 2), tuple('1, 0, 3, 24564, 21.05, 34', T - 1)], T, words, { step: 1050, loss: 0.4231 });
    assert.deepEqual(cells(html), ['GPU 0', '95%', '20.0 / 24.0 GiB (83%)', '411 W', '71 °C', '2 s ago', 'GPU 1', '0%', '0.0 / 24.0 GiB (0%)', '21 W', '34 °C', '1 s ago']);
    assert.match(html, /Last logged: step 1050, loss 0\.4231/);
  });

  it('a value the parser refused shows as a dash, never as 0; no reading yet says so', () => {
    const html = currentTable([tuple('0, Infinity, 20480, 24564, NaN, 71', T)], T, words);
    assert.deepEqual(cells(html), ['GPU 0', '–', '20.0 / 24.0 GiB (83%)', '–', '71 °C', '0 s ago']);
    assert.doesNotMatch(html, /Last logged/);
    assert.match(currentTable([], T, words), /No reading yet/);
  });
});
