// `gpu-rent smi FILE|- [--json]`: parse any nvidia-smi output (table, CSV, -q -x XML, -q
// text) into one model. A failure output (driver mismatch, no driver, …) exits 1.
import { readFile } from 'node:fs/promises';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { parseNvidiaSmi, type SmiReport } from '../../core/smi';

const specs = {
  json: { type: 'boolean', description: 'print the parsed model as JSON' },
} as const;

const USAGE = 'gpu-rent smi FILE|- [--json]';
const SUMMARY = 'Parse nvidia-smi output (default table, --query-gpu CSV, -q -x XML, -q text) from a file or stdin.';

export async function readInput(path: string, readStdin: () => Promise<string>): Promise<string> {
  if (path === '-') return readStdin();
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`);
  }
}

export function smiJson(report: SmiReport): unknown {
  return {
    format: report.format,
    driverVersion: report.driverVersion,
    cudaVersion: report.cudaVersion,
    gpus: report.gpus.map((g) => ({
      index: g.index,
      name: g.name,
      uuid: g.uuid,
      memoryTotalMiB: g.memoryTotalMiB,
      memoryUsedMiB: g.memoryUsedMiB,
      utilizationGpuPct: g.utilizationGpuPct,
      temperatureC: g.temperatureC,
      powerDrawW: g.powerDrawW,
      computeCapability: g.computeCapability,
      migMode: g.migMode,
      pciBusId: g.pciBusId,
      powerLimitW: g.powerLimitW,
      nameTruncated: g.nameTruncated,
      driverModel: g.driverModel,
      migDevices: g.migDevices,
    })),
    processes: report.processes,
  };
}

const dash = (v: string | number | null, unit = ''): string => (v === null ? '-' : `${v}${unit}`);

export function smiText(report: SmiReport): string {
  const n = report.gpus.length;
  const lines = [
    `nvidia-smi ${report.format}: driver ${report.driverVersion ?? 'unknown'}, CUDA ${report.cudaVersion ? `≤ ${report.cudaVersion}` : 'not printed'}, ${n} GPU${n === 1 ? '' : 's'}`,
  ];
  if (n) {
    const rows = report.gpus.map((g) => [
      dash(g.index),
      g.name ?? '-',
      g.memoryTotalMiB === null && g.memoryUsedMiB === null ? '-' : `${dash(g.memoryUsedMiB)}/${dash(g.memoryTotalMiB)} MiB`,
      dash(g.utilizationGpuPct, '%'),
      dash(g.temperatureC, 'C'),
      g.powerDrawW === null && g.powerLimitW === null ? '-' : `${dash(g.powerDrawW)}/${dash(g.powerLimitW)} W`,
      g.computeCapability ?? '-',
      g.migMode ? `${g.migMode}${g.migDevices.length ? ` (${g.migDevices.length} devices)` : ''}` : '-',
    ]);
    lines.push(...table(['GPU', 'NAME', 'MEMORY', 'UTIL', 'TEMP', 'POWER', 'CC', 'MIG'], rows));
  }
  if (report.processes.length) {
    lines.push('Processes:');
    const rows = report.processes.map((p) => [dash(p.gpuIndex ?? null), dash(p.pid), p.type ?? '-', dash(p.usedMemoryMiB, ' MiB'), p.name || '-']);
    lines.push(...table(['GPU', 'PID', 'TYPE', 'MEMORY', 'NAME'], rows).map((l) => `  ${l}`));
  }
  return lines.join('\n') + '\n';
}

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [fmt(head), ...rows.map(fmt)];
}

export const command: CliCommand = {
  name: 'smi',
  summary: 'Parse nvidia-smi output (any format) into one model',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'FILE or -' });
    const path = positionals[0];
    if (path === undefined) throw new UsageError('needs FILE (or - for standard input)');
    const result = parseNvidiaSmi(await readInput(path, io.readStdin));
    if (!result.ok) {
      if (flags.json) io.stdout(JSON.stringify({ error: { kind: result.error.kind, message: result.error.message } }, null, 2) + '\n');
      else io.stderr(`gpu-rent smi: not a usable nvidia-smi report (${result.error.kind}): ${result.error.message}\n`);
      return 1;
    }
    io.stdout(flags.json ? JSON.stringify(smiJson(result.report), null, 2) + '\n' : smiText(result.report));
    return 0;
  },
};
