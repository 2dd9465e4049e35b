// Merging a user's catalog file: the built-in catalog is about 20 KB and a file is capped at
// 5 MiB, so no user merges more than a few hundred platforms; this measures far past that
// (10,000 and 80,000 new platforms, about 1.3 and 10.6 MB of JSON) to show the merge stays
// linear: 8× the platforms should take about 8× the time (a quadratic merge once took 28 s).
// Reported in CPU time and wall time, best of 3 after a warm-up.
import { builtinCatalog, mergeCatalog } from '../src/core/catalog';

function make(n: number) {
  return {
    asOf: '2026-11-01',
    platforms: [
      ...Array.from({ length: n }, (_, i) => ({ id: `p${i}`, name: { zh: `平台${i}`, en: `P ${i}` }, billingModes: ['hour'], prices: [{ card: 'RTX 4090', mode: 'hour', yuan: 1 + (i % 7) }] })),
      { id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 3 }] },
    ],
  };
}

function time(n: number): { ms: number; cpuMs: number; mb: number } {
  const cat = builtinCatalog();
  const o = make(n);
  let ms = Number.POSITIVE_INFINITY;
  let cpuMs = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 3; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = mergeCatalog(cat, o);
    ms = Math.min(ms, performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpuMs = Math.min(cpuMs, (c.user + c.system) / 1000);
    if (!r.ok || r.catalog.platforms.length !== cat.platforms.length + n) throw new Error(`merge of ${n} failed`);
  }
  return { ms, cpuMs, mb: JSON.stringify(o).length / 1e6 };
}

export async function run(): Promise<void> {
  time(2000);
  const sizes = [1000, 10_000, 80_000];
  const rows = sizes.map((n) => ({ n, ...time(n) }));
  for (const r of rows) console.log(`merge ${r.n.toLocaleString('en-US')} platforms (${r.mb.toFixed(1)} MB): ${Math.round(r.cpuMs)} ms CPU, ${Math.round(r.ms)} ms wall`);
  const [, ten, eighty] = rows;
  console.log(`80,000 / 10,000: ${(eighty!.cpuMs / ten!.cpuMs).toFixed(1)}× the CPU for 8× the platforms (linear: about 8×, quadratic: 64×)`);
  await Promise.resolve();
}
