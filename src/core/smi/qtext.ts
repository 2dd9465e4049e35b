// `nvidia-smi -q` (plain text): "Key : value" lines nested by indentation under section
// names. Read by path ("FB Memory Usage/Total") so the field order does not matter.
import type { SmiFailure, SmiGpu, SmiProcess, SmiReport } from './types';
import { cudaVersion, driverVersion, int, migMode, num, text } from './values';

export function looksLikeQueryText(input: string): boolean {
  return /^[ \t]*(?:Driver|KMD) Version\s+:\s*\d/m.test(input) && (/^[ \t]*Attached GPUs\s+:/m.test(input) || /==NVSMI LOG==/.test(input));
}

interface Gpu {
  busId: string;
  values: Map<string, string>;
  processes: Map<string, string>[];
}

export function parseQueryText(input: string): { ok: true; report: SmiReport } | { ok: false; error: SmiFailure } {
  const lines = input.replace(/^\uFEFF/, '').split(/\r?\n/);
  const top = new Map<string, string>();
  const gpus: Gpu[] = [];
  let gpu: Gpu | null = null;
  const stack: { indent: number; name: string }[] = [];
  for (const raw of lines) {
    if (raw.trim() === '' || /^=+/.test(raw.trim())) continue;
    const indent = raw.length - raw.trimStart().length;
    const gpuHead = /^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$/.exec(raw.trim());
    if (indent === 0 && gpuHead) {
      gpu = { busId: gpuHead[1]!, values: new Map(), processes: [] };
      gpus.push(gpu);
      stack.length = 0;
      continue;
    }
    while (stack.length && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const kv = keyValue(raw);
    const path = stack.map((s) => s.name);
    if (!kv) {
      stack.push({ indent, name: raw.trim().toLowerCase() });
      continue;
    }
    const key = kv[1]!.trim().toLowerCase();
    const value = kv[2]!.trim();
    if (!gpu || indent === 0) {
      top.set(key, value);
      continue;
    }
    if (path[0] === 'processes') {
      const procs = gpu.processes;
      const cur = procs[procs.length - 1];
      if (key === 'gpu instance id' || (key === 'process id' && (!cur || cur.has('process id')))) procs.push(new Map());
      procs[procs.length - 1]?.set(key, value);
      continue;
    }
    const full = [...path, key].join('/');
    if (!gpu.values.has(full)) gpu.values.set(full, value);
  }

  const report: SmiReport = {
    format: 'text',
    driverVersion: driverVersion(top.get('kmd version')) ?? driverVersion(top.get('driver version')),
    cudaVersion: cudaVersion(top.get('cuda umd version')) ?? cudaVersion(top.get('cuda version')),
    gpus: [],
    processes: [],
  };
  if (gpus.length === 0) return { ok: false, error: { kind: /No devices were found/i.test(input) ? 'no-devices' : 'truncated', message: 'no "GPU <bus id>" section' } };
  gpus.forEach((g, position) => {
    const v = (...keys: string[]): string | null => {
      for (const k of keys) if (g.values.has(k)) return g.values.get(k)!;
      return null;
    };
    const dm = text(v('driver model/current'));
    const out: SmiGpu = {
      index: int(v('minor number')) ?? position,
      name: text(v('product name')),
      nameTruncated: false,
      uuid: text(v('gpu uuid')),
      pciBusId: text(v('pci/bus id')) ?? g.busId,
      memoryTotalMiB: num(v('fb memory usage/total')),
      memoryUsedMiB: num(v('fb memory usage/used')),
      utilizationGpuPct: num(v('utilization/gpu')),
      temperatureC: num(v('temperature/gpu current temp')),
      powerDrawW: num(v('gpu power readings/power draw', 'gpu power readings/instantaneous power draw', 'gpu power readings/instant power draw', 'gpu power readings/average power draw', 'power readings/power draw')),
      powerLimitW: num(v('gpu power readings/current power limit', 'power readings/power limit', 'gpu power readings/power limit', 'power readings/enforced power limit')),
      computeCapability: null,
      migMode: migMode(v('mig mode/current')),
      migDevices: [],
      driverModel: dm && /^(WDDM|TCC|MCDM)$/.test(dm) ? dm : null,
    };
    report.gpus.push(out);
    for (const p of g.processes) {
      const proc: SmiProcess = {
        gpuIndex: out.index,
        gpuUuid: out.uuid,
        gpuInstanceId: int(p.get('gpu instance id')),
        computeInstanceId: int(p.get('compute instance id')),
        pid: int(p.get('process id')),
        type: text(p.get('type')),
        name: p.get('name') ?? '',
        usedMemoryMiB: num(p.get('used gpu memory')),
      };
      if (proc.pid !== null || proc.name) report.processes.push(proc);
    }
  });
  return { ok: true, report };
}

/**
 * `    Product Name                : NVIDIA A100` → [key, value]: the key ends at the first colon
 * that follows a space (what `/^\s*(.+?)\s+:\s?(.*)$/` matched, found by hand: that pattern is
 * polynomial on a long run of spaces).
 */
function keyValue(raw: string): [string, string, string] | null {
  if (/[\n\r\u2028\u2029]/.test(raw)) return null;
  let from = 0;
  while (from < raw.length && /\s/.test(raw[from]!)) from++;
  const valueAfter = (i: number) => (/\s/.test(raw[i + 1] ?? '') ? raw.slice(i + 2) : raw.slice(i + 1));
  for (let i = raw.indexOf(':', from + 1); i >= 0; i = raw.indexOf(':', i + 1)) {
    if (!/\s/.test(raw[i - 1]!)) continue;
    let k = i - 1;
    while (k > from && /\s/.test(raw[k - 1]!)) k--;
    return [raw, raw.slice(from, k), valueAfter(i)];
  }
  // A colon right after the leading spaces: the key is one of them (two needed).
  if (raw[from] === ':' && from >= 2) return [raw, '', valueAfter(from)];
  return null;
}
