// `nvidia-smi -L`: one line per GPU ("GPU 0: NAME (UUID: GPU-…)"), MIG devices indented under
// their GPU ("  MIG 1g.5gb Device 0: (UUID: MIG-…)", or "  MIG Device 0: (UUID: MIG-GPU-…/1/0)"
// before R470). Names and UUIDs only: the list prints no driver, memory or load.
import { emptyGpu, type SmiReport } from './types';
import { text } from './values';

const GPU_LINE = /^GPU (\d+): (.*?) \(UUID: ((?:GPU|MIG)-[0-9A-Za-z/-]+)\)\s*$/;
const MIG_LINE = /^\s+MIG (?:\S+\s+)?Device\s+(\d+): \(UUID: (MIG-[0-9A-Za-z/-]+)\)\s*$/;

export function parseGpuList(input: string): { ok: true; report: SmiReport } | null {
  const report: SmiReport = { format: 'list', driverVersion: null, cudaVersion: null, gpus: [], processes: [] };
  for (const raw of input.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.trim() === '') continue;
    const g = GPU_LINE.exec(line);
    if (g) {
      const gpu = emptyGpu();
      gpu.index = Number(g[1]);
      gpu.name = text(g[2]);
      gpu.uuid = g[3]!;
      report.gpus.push(gpu);
      continue;
    }
    const m = MIG_LINE.exec(line);
    const parent = report.gpus[report.gpus.length - 1];
    if (m && parent) {
      parent.migMode = 'enabled';
      const ids = /\/(\d+)\/(\d+)$/.exec(m[2]!); // MIG-GPU-<uuid>/<GI>/<CI> (R450–R460)
      parent.migDevices.push({ index: Number(m[1]), gpuInstanceId: ids ? Number(ids[1]) : null, computeInstanceId: ids ? Number(ids[2]) : null, memoryTotalMiB: null, memoryUsedMiB: null, multiprocessorCount: null });
      continue;
    }
    // The command line itself, pasted above its output, is the only other line allowed.
    if (report.gpus.length === 0 && /nvidia-smi\b/.test(line)) continue;
    return null;
  }
  return report.gpus.length ? { ok: true, report } : null;
}
