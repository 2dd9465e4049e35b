// Parsing speed per nvidia-smi format, on the real fixtures plus an 8-GPU XML log built
// from the 2-GPU one (the size of an 8-card rental box's `nvidia-smi -q -x`). Baseline: a
// full fast-xml-parser parse of the same XML, i.e. what a straightforward parser would do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parseNvidiaSmi } from '../src/core/smi';
import { NVIDIA_SMI_DIR } from '../test/support/fixtures';

const DIR = NVIDIA_SMI_DIR;
const read = (f: string): string => readFileSync(join(DIR, f), 'utf8');

function eightGpuXml(): string {
  const x = read('rtx2070_x2_driver590.44.01_q.xml');
  const start = x.indexOf('<gpu id');
  const firstEnd = x.indexOf('</gpu>') + '</gpu>'.length;
  const lastEnd = x.lastIndexOf('</gpu>') + '</gpu>'.length;
  const one = x.slice(start, firstEnd);
  const gpus = Array.from({ length: 8 }, (_, i) => one.replace(/00000000:01:00\.0/g, `00000000:0${i + 1}:00.0`).replace('<minor_number>0</minor_number>', `<minor_number>${i}</minor_number>`));
  return x.slice(0, start) + gpus.join('\n\t') + x.slice(lastEnd).replace('<attached_gpus>2</attached_gpus>', '<attached_gpus>8</attached_gpus>');
}

/** Median µs per call over `rounds` rounds of `n` calls. */
function time(fn: () => unknown, n: number, rounds = 7): number {
  for (let i = 0; i < Math.min(n, 50); i++) fn();
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    per.push(Number(process.hrtime.bigint() - t0) / 1000 / n);
  }
  per.sort((a, b) => a - b);
  return per[Math.floor(per.length / 2)]!;
}

export async function run(): Promise<void> {
  const xml8 = eightGpuXml();
  const check = parseNvidiaSmi(xml8);
  if (!check.ok || check.report.gpus.length !== 8) throw new Error('the 8-GPU XML did not parse to 8 GPUs');
  const inputs: [string, string][] = [
    ['table 79-col, 8× V100', read('v100sxm2_32gb_x8_driver520.61.05_smi.txt')],
    ['table 91-col, H100 + processes', read('h100_80gb_driver590.48.01_smi_load.txt')],
    ['csv, 212 columns (H100)', read('h100_80gb_driver590.48.01_query_load.csv')],
    ['csv nounits (P100)', read('p100_driver510.47.03_query.csv')],
    ['xml 1 GPU (RTX 4090, 75 KB)', read('rtx4090_driver535.86.05_q.xml')],
    ['xml Windows, 26 processes', read('rtx2080_driver516.59_windows_q.xml')],
    [`xml 8 GPUs (${Math.round(xml8.length / 1024)} KB)`, xml8],
    ['failure: NVML mismatch', read('errors_nvml_driver_library_mismatch.txt')],
  ];
  console.log('format                              µs/parse (median of 7 rounds)');
  for (const [name, text] of inputs) {
    const us = time(() => parseNvidiaSmi(text), text.length > 100_000 ? 200 : 1000);
    console.log(`${name.padEnd(36)}${us.toFixed(1).padStart(9)}`);
  }
  const full = new XMLParser({ ignoreAttributes: false, parseTagValue: false });
  const ours = time(() => parseNvidiaSmi(xml8), 200);
  const baseline = time(() => full.parse(xml8), 20);
  console.log(`\n8-GPU XML: parseNvidiaSmi ${ours.toFixed(0)} µs vs full fast-xml-parser parse ${baseline.toFixed(0)} µs (${(baseline / ours).toFixed(0)}× faster; bar: < 1000 µs)`);
}
