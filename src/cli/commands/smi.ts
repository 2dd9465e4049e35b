// `gpu-rent smi FILE|- [--json]`: parse any nvidia-smi output (table, CSV, -q -x XML, -q
// text) into one model. A failure output (driver mismatch, no driver, …) exits 1.
import { open } from 'node:fs/promises';
import { jsonError } from '../json-error';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { parseNvidiaSmi, type SmiPartial, type SmiReport } from '../../core/smi';
import { forTerminal, jsonForTerminal } from '../../core/text';

/** The most of a file `smi` reads: a real nvidia-smi output of 8 GPUs is under 10 KiB. */
export const SMI_INPUT_MAX_BYTES = 16 * 1024 * 1024;

const specs = {
  json: { type: 'boolean', description: 'print the parsed model as JSON' },
} as const;

const USAGE = 'gpu-rent smi FILE|- [--json]';
const SUMMARY = 'Parse nvidia-smi output (default table, --query-gpu CSV, -q -x XML, -q text) from a file or stdin.';

export async function readInput(path: string, readStdin: () => Promise<string>): Promise<string> {
  if (path === '-') return readStdin();
  try {
    const fh = await open(path, 'r');
    try {
      // Read at most the cap plus one byte: more than that is not an nvidia-smi output.
      const buf = Buffer.alloc(SMI_INPUT_MAX_BYTES + 1);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, null);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      if (got > SMI_INPUT_MAX_BYTES) throw Object.assign(new Error(`more than ${SMI_INPUT_MAX_BYTES / 1024 / 1024} MiB: not an nvidia-smi output`), { code: 'EFBIG' });
      return buf.subarray(0, got).toString('utf8');
    } finally {
      await fh.close();
    }
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
    partial: report.partial ?? null,
  };
}

/** What an incomplete nvidia-smi output lacked, in words (box text: pass it through forTerminal). */
export function partialText(p: SmiPartial): string {
  const parts: string[] = [];
  for (const l of p.lostGpus ?? []) parts.push(`${l.gpu} did not answer (${l.reason})`);
  if (p.processesCut) parts.push('the Processes table was cut off (processes not all listed)');
  return parts.join('; ');
}

const dash = (v: string | number | null, unit = ''): string => (v === null ? '-' : `${v}${unit}`);

export function smiText(report: SmiReport): string {
  const n = report.gpus.length;
  const lines = [
    `nvidia-smi ${report.format}: driver ${forTerminal(report.driverVersion ?? 'unknown')}, CUDA ${report.cudaVersion ? `≤ ${forTerminal(report.cudaVersion)}` : 'not printed'}, ${n} GPU${n === 1 ? '' : 's'}`,
  ];
  if (n) {
    const rows = report.gpus.map((g) => [
      dash(g.index),
      forTerminal(g.name ?? '-'),
      g.memoryTotalMiB === null && g.memoryUsedMiB === null ? '-' : `${dash(g.memoryUsedMiB)}/${dash(g.memoryTotalMiB)} MiB`,
      dash(g.utilizationGpuPct, '%'),
      dash(g.temperatureC, 'C'),
      g.powerDrawW === null && g.powerLimitW === null ? '-' : `${dash(g.powerDrawW)}/${dash(g.powerLimitW)} W`,
      forTerminal(g.computeCapability ?? '-'),
      g.migMode ? `${g.migMode}${g.migDevices.length ? ` (${g.migDevices.length} devices)` : ''}` : '-',
    ]);
    lines.push(...table(['GPU', 'NAME', 'MEMORY', 'UTIL', 'TEMP', 'POWER', 'CC', 'MIG'], rows));
  }
  if (report.processes.length) {
    lines.push('Processes:');
    const rows = report.processes.map((p) => [dash(p.gpuIndex ?? null), dash(p.pid), forTerminal(p.type ?? '-'), dash(p.usedMemoryMiB, ' MiB'), forTerminal(p.name || '-')]);
    lines.push(...table(['GPU', 'PID', 'TYPE', 'MEMORY', 'NAME'], rows).map((l) => `  ${l}`));
  }
  if (report.partial) lines.push(`incomplete output: ${forTerminal(partialText(report.partial))}`);
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
      if (flags.json) io.stdout(jsonError(result.error.kind, result.error.message));
      else io.stderr(`gpu-rent smi: not a usable nvidia-smi report (${result.error.kind}): ${forTerminal(result.error.message)}\n`);
      return 1;
    }
    io.stdout(flags.json ? jsonForTerminal(smiJson(result.report), 2) + '\n' : smiText(result.report));
    return 0;
  },
};
