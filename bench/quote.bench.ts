// Quotes the whole catalog (every platform × priced card × billing mode, spot included) over
// and over and reports quotes per second: the cost of re-pricing on every keystroke in the
// calculator or every status-bar refresh.
import { builtinCatalog, mergeCatalog } from '../src/core/catalog';
import { quoteCatalog, type JobInput } from '../src/core/cost';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function run(): Promise<void> {
  const catalog = builtinCatalog();
  const inputs: JobInput[] = [
    { gpuHours: 15, storageGb: 24, includeSpot: true },
    { gpuHours: 120, gpus: 2, storageGb: 100, days: 30, idleHours: 200, downloadGb: 50, includeSpot: true },
    { gpuHours: 1, includeSpot: true, reclaimRatePerHour: 0.3, checkpointIntervalHours: 0.5 },
  ];
  const rowsPerCatalog = inputs.map((i) => quoteCatalog(catalog, i).rows.length);
  const combos = catalog.platforms.reduce((n, p) => n + new Set(p.prices.map((x) => x.card)).size * p.billingModes.length, 0);
  console.log(`catalog: ${catalog.platforms.length} platforms, ${combos} platform×card×mode combinations, ${rowsPerCatalog.join('/')} priced rows per quote`);

  // Warm up the JIT.
  for (let i = 0; i < 2000; i++) quoteCatalog(catalog, inputs[i % inputs.length]!);

  const rounds: number[] = [];
  const catalogsPerSec: number[] = [];
  for (let round = 0; round < 7; round++) {
    let rows = 0;
    let calls = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < 0.3) {
      for (let k = 0; k < 100; k++) {
        rows += quoteCatalog(catalog, inputs[calls % inputs.length]!).rows.length;
        calls++;
      }
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    }
    rounds.push(rows / elapsed);
    catalogsPerSec.push(calls / elapsed);
  }
  const qps = median(rounds);
  const cps = median(catalogsPerSec);
  console.log(`quotes/second (median of ${rounds.length} rounds): ${Math.round(qps).toLocaleString('en-US')}`);
  console.log(`whole-catalog quotes/second: ${Math.round(cps).toLocaleString('en-US')} (${(1e6 / cps).toFixed(1)} µs each)`);

  // Merging a big user catalog (issue 10): 80,000 new platforms, 10.6 MB of JSON.
  const big = { asOf: '2026-11-01', platforms: Array.from({ length: 80000 }, (_, i) => ({ id: `p${i}`, name: { zh: `平台${i}`, en: `P ${i}` }, billingModes: ['hour'], prices: [{ card: 'RTX 4090', mode: 'hour', yuan: 1 + (i % 7) }] })) };
  mergeCatalog(catalog, { platforms: big.platforms.slice(0, 2000) });
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let k = 0; k < 3; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    if (!mergeCatalog(catalog, big).ok) throw new Error('merge failed');
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  console.log(`merge 80,000 new platforms (10.6 MB), median of 3: ${Math.round(median(wall))} ms wall, ${Math.round(median(cpu))} ms CPU`);
}
