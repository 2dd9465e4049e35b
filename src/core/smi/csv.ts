// `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]` and
// `--query-compute-apps=…`. Columns are found by name from the header, so any field list
// works; without a header the columns are assumed to be SMI_QUERY_FIELDS (what we run).
import { emptyGpu, type SmiFailure, type SmiGpu, type SmiProcess, type SmiReport } from './types';
import { computeCap, cudaVersion, driverVersion, int, migMode, num, text } from './values';

/** The fields the remote probe asks for, in this order. */
export const SMI_QUERY_FIELDS = [
  'index',
  'name',
  'uuid',
  'pci.bus_id',
  'driver_version',
  'memory.total',
  'memory.used',
  'utilization.gpu',
  'temperature.gpu',
  'power.draw',
  'power.limit',
  'compute_cap',
  'mig.mode.current',
] as const;

/** Drivers older than ~510 do not know compute_cap and refuse the whole query; this list works on every driver since 418. */
export const SMI_QUERY_FIELDS_LEGACY = SMI_QUERY_FIELDS.filter((f) => f !== 'compute_cap' && f !== 'mig.mode.current');

/** The argv for one remote call: `nvidia-smi ${SMI_QUERY_ARGS.join(' ')}`. */
export const SMI_QUERY_ARGS: readonly string[] = [`--query-gpu=${SMI_QUERY_FIELDS.join(',')}`, '--format=csv,nounits'];
export const SMI_QUERY_ARGS_LEGACY: readonly string[] = [`--query-gpu=${SMI_QUERY_FIELDS_LEGACY.join(',')}`, '--format=csv,nounits'];

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.]*(?:\s*\[[^\]]*\])?$/;
const KNOWN = new Set<string>([...SMI_QUERY_FIELDS, 'gpu_name', 'gpu_uuid', 'gpu_bus_id', 'pid', 'process_name', 'used_gpu_memory', 'used_memory', 'timestamp', 'count', 'serial', 'pstate', 'fan.speed', 'memory.free']);

function splitRow(line: string): string[] {
  return line.split(',').map((c) => c.trim());
}

/** Where a header cell's final `[unit]` starts, or -1 (by hand: `/\s*\[[^\]]*\]\s*$/` is quadratic on long runs). */
function unitAt(cell: string): number {
  const t = cell.trimEnd();
  if (!t.endsWith(']')) return -1;
  const open = t.indexOf('[', t.lastIndexOf(']', t.length - 2) + 1);
  return open >= 0 && open < t.length - 1 ? open : -1;
}

function headerKey(cell: string): string {
  const at = unitAt(cell);
  return (at < 0 ? cell : cell.slice(0, at)).trim().toLowerCase();
}

/** Query fields that describe a GPU (any driver's field list), by name or family prefix. */
const GPU_FIELD = /^(?:index|name|gpu_name|uuid|gpu_uuid|serial|pci\.|gpu_bus_id|driver_version|vbios_version|count|pstate|compute_cap|compute_mode|display_|persistence_mode|memory\.|utilization\.|temperature\.|power\.|enforced\.power|clocks|fan\.|pcie\.|ecc\.|retired_pages|encoder\.|mig\.|driver_model\.|accounting\.|inforom\.)/;
const isGpuField = (key: string): boolean => KNOWN.has(key) || GPU_FIELD.test(key);

export function looksLikeCsv(input: string): boolean {
  const first = input.split(/\r?\n/).find((l) => l.trim() !== '');
  if (!first) return false;
  const cols = splitRow(first);
  // One column is a CSV only when its header is plainly a query field ("utilization.gpu [%]").
  if (cols.length === 1) return unitAt(cols[0]!) >= 0 && FIELD_NAME.test(cols[0]!) && isGpuField(headerKey(cols[0]!));
  return cols.every((c) => FIELD_NAME.test(c)) && cols.some((c) => isGpuField(headerKey(c)) || KNOWN.has(headerKey(c)));
}

type CsvResult = { ok: true; report: SmiReport } | { ok: false; error: SmiFailure };

/**
 * One or more query outputs in a row — a --query-gpu and a --query-compute-apps run back to
 * back, with or without a separator line ("---") between them — read as one report: the GPU
 * blocks give the GPUs (later blocks fill in fields by position), the process blocks the processes.
 */
export function parseCsv(input: string, opts: { assumeFields?: readonly string[] } = {}): CsvResult {
  const lines = input.replace(/^\uFEFF/, '').split(/\r?\n/);
  const blocks: string[][] = [[]];
  // The next non-empty line after each one, and the current block's count and header, kept as we
  // go: looking them up per line was quadratic on a box that prints 100k blank lines.
  const nextNonEmpty: (string | undefined)[] = new Array(lines.length);
  for (let i = lines.length - 1, next: string | undefined; i >= 0; i--) {
    nextNonEmpty[i] = next;
    if (lines[i]!.trim() !== '') next = lines[i];
  }
  let nonEmpty = 0;
  let blockHeader = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const current = blocks[blocks.length - 1]!;
    const nextHeader = nextNonEmpty[i];
    if (nonEmpty > 1 && /^\s*[-=_*#]{3,}\s*$/.test(line) && nextHeader !== undefined && looksLikeCsv(nextHeader)) continue;
    if (nonEmpty > 1 && looksLikeCsv(line) && splitRow(line).join(',') !== blockHeader) {
      blocks.push([line]);
      nonEmpty = 1;
      blockHeader = splitRow(line).join(',');
      continue;
    }
    current.push(line);
    if (line.trim() !== '') {
      if (nonEmpty === 0) blockHeader = splitRow(line).join(',');
      nonEmpty++;
    }
  }
  if (blocks.length === 1) return parseCsvBlock(input, opts);
  const results = blocks.map((b) => parseCsvBlock(b.join('\n'), opts));
  const failed = results.find((r) => !r.ok);
  if (failed) return failed;
  const reports = results.map((r) => (r as { ok: true; report: SmiReport }).report);
  const gpuReports = reports.filter((r) => r.processes.length === 0 || r.gpus.some((g) => g.memoryTotalMiB !== null || g.utilizationGpuPct !== null || g.index !== null));
  const base = gpuReports[0] ?? reports[0]!;
  const merged: SmiReport = { format: 'csv', driverVersion: null, cudaVersion: null, gpus: base.gpus.map((g) => ({ ...g })), processes: [] };
  for (const r of reports) {
    merged.driverVersion ??= r.driverVersion;
    merged.cudaVersion ??= r.cudaVersion;
    if (gpuReports.includes(r) && r !== base) {
      r.gpus.forEach((g, i) => {
        const into = merged.gpus[i];
        if (!into) return;
        for (const [k, v] of Object.entries(g) as [keyof SmiGpu, unknown][]) if ((into[k] === null || (Array.isArray(into[k]) && !(into[k] as unknown[]).length)) && v !== null) (into as unknown as Record<string, unknown>)[k] = v;
      });
    }
    merged.processes.push(...r.processes);
  }
  for (const p of merged.processes) {
    const gpu = p.gpuUuid === null ? undefined : merged.gpus.find((g) => g.uuid === p.gpuUuid);
    if (gpu && p.gpuIndex === null) p.gpuIndex = gpu.index;
  }
  // Process rows without a GPU uuid on a one-GPU box belong to that GPU.
  if (merged.gpus.length === 1) for (const p of merged.processes) p.gpuIndex ??= merged.gpus[0]!.index;
  return { ok: true, report: merged };
}

function parseCsvBlock(input: string, opts: { assumeFields?: readonly string[] } = {}): CsvResult {
  const lines = input
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  if (lines.length === 0) return { ok: false, error: { kind: 'empty', message: 'no CSV rows' } };
  let keys: string[];
  let rows: string[];
  if (looksLikeCsv(lines[0]!)) {
    keys = splitRow(lines[0]!).map(headerKey);
    rows = lines.slice(1);
  } else {
    keys = [...(opts.assumeFields ?? SMI_QUERY_FIELDS)];
    rows = lines;
  }
  const width = keys.length;
  const parsed = rows.map(splitRow);
  if (parsed.length === 0) {
    // `--query-compute-apps` prints only its header when no process uses a GPU.
    const processHeader = keys.includes('pid') && !keys.some((k) => k === 'index' || k === 'memory.total' || k === 'utilization.gpu');
    if (processHeader && lines.length > 0 && looksLikeCsv(lines[0]!)) return { ok: true, report: { format: 'csv', driverVersion: null, cudaVersion: null, gpus: [], processes: [] } };
    return { ok: false, error: { kind: 'truncated', message: 'a CSV header without any rows' } };
  }
  const bad = parsed.findIndex((r) => r.length !== width);
  if (bad !== -1) {
    const last = bad === parsed.length - 1 && parsed[bad]!.length < width;
    return { ok: false, error: { kind: last ? 'truncated' : 'unrecognized', message: `CSV row ${bad + 1} has ${parsed[bad]!.length} columns, expected ${width}` } };
  }
  const col = (row: string[], ...names: string[]): string | null => {
    for (const n of names) {
      const i = keys.indexOf(n);
      if (i !== -1) return row[i] ?? null;
    }
    return null;
  };

  const isProcessQuery = keys.includes('pid') && !keys.includes('memory.total');
  const report: SmiReport = { format: 'csv', driverVersion: null, cudaVersion: null, gpus: [], processes: [] };
  if (isProcessQuery) {
    const seen = new Map<string, SmiGpu>();
    for (const r of parsed) {
      const uuid = text(col(r, 'gpu_uuid'));
      const p: SmiProcess = {
        gpuIndex: null,
        gpuUuid: uuid,
        gpuInstanceId: null,
        computeInstanceId: null,
        pid: int(col(r, 'pid')),
        type: null,
        name: text(col(r, 'process_name')) ?? '',
        usedMemoryMiB: num(col(r, 'used_gpu_memory', 'used_memory')),
      };
      report.processes.push(p);
      const key = uuid ?? text(col(r, 'gpu_bus_id')) ?? '';
      if (!seen.has(key)) {
        const gpu = emptyGpu();
        gpu.name = text(col(r, 'gpu_name'));
        gpu.uuid = uuid;
        gpu.pciBusId = text(col(r, 'gpu_bus_id'));
        seen.set(key, gpu);
      }
    }
    report.gpus = [...seen.values()];
    return { ok: true, report };
  }
  if (!keys.some(isGpuField)) {
    return { ok: false, error: { kind: 'unrecognized', message: 'CSV without any GPU query field' } };
  }
  const hasIndex = keys.includes('index');
  parsed.forEach((r, position) => {
    const gpu = emptyGpu();
    // nvidia-smi prints one row per GPU in index order: without an index column the row says it.
    gpu.index = hasIndex ? int(col(r, 'index')) : position;
    gpu.name = text(col(r, 'name', 'gpu_name'));
    gpu.uuid = text(col(r, 'uuid', 'gpu_uuid'));
    gpu.pciBusId = text(col(r, 'pci.bus_id', 'gpu_bus_id'));
    gpu.memoryTotalMiB = num(col(r, 'memory.total'));
    gpu.memoryUsedMiB = num(col(r, 'memory.used'));
    gpu.utilizationGpuPct = num(col(r, 'utilization.gpu'));
    gpu.temperatureC = num(col(r, 'temperature.gpu'));
    gpu.powerDrawW = num(col(r, 'power.draw', 'power.draw.instant', 'power.draw.average'));
    gpu.powerLimitW = num(col(r, 'power.limit', 'enforced.power.limit'));
    gpu.computeCapability = computeCap(col(r, 'compute_cap'));
    gpu.migMode = migMode(col(r, 'mig.mode.current'));
    const dm = text(col(r, 'driver_model.current'));
    gpu.driverModel = dm && /^(WDDM|TCC|MCDM)$/.test(dm) ? dm : null;
    report.gpus.push(gpu);
    report.driverVersion ??= driverVersion(col(r, 'driver_version'));
    report.cudaVersion ??= cudaVersion(col(r, 'cuda_version'));
  });
  report.gpus = latestPerGpu(report.gpus);
  return { ok: true, report };
}


/**
 * `-l N` / `--loop` logs repeat every GPU once per sample: one GPU is one uuid (or bus id, or
 * index), and its newest row is what it is doing now.
 */
function latestPerGpu(gpus: SmiGpu[]): SmiGpu[] {
  const byKey = new Map<string, SmiGpu>();
  gpus.forEach((g, i) => {
    const key = g.uuid ?? g.pciBusId ?? (g.index !== null ? `#${g.index}` : `row${i}`);
    byKey.delete(key); // re-inserted below so the map keeps the order of each GPU's latest row
    byKey.set(key, g);
  });
  if (byKey.size === gpus.length) return gpus;
  return [...byKey.values()].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
}

const UUID = /^(?:GPU|MIG)-[0-9a-f]{8}(?:-[0-9a-f]{4,12})+$/i;
const BUS_ID = /^[0-9A-F]{4,8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-9A-F]$/i;
const GPU_NAME = /^(?:NVIDIA |Tesla |GeForce |Quadro |TITAN |Graphics Device$|(?:A|H|L|B|T|V|P)\d{1,3}\b|RTX )/i;
const DRIVER = /^\d{3}\.\d{1,3}\.\d{1,3}$/;
const PATH = /^(?:\/|[A-Za-z]:\\|\.\.\.)/;

/**
 * `--format=csv,noheader` of a field list we did not choose: the columns that say what they
 * are by their shape (GPU uuid, PCI bus id, a GPU name, a three-part driver version, a leading
 * index, a single "%" column) are read; numbers whose meaning the shape does not give are left
 * null rather than guessed. Rows listing processes (a path column) are not GPUs: null.
 */
export function parseUnlabeledCsv(input: string): { ok: true; report: SmiReport } | null {
  const rows = input
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map(splitRow);
  if (rows.length === 0 || rows.length > 1024) return null;
  const width = rows[0]!.length;
  if (width < 2 || rows.some((r) => r.length !== width)) return null;
  const all = (i: number, re: RegExp): boolean => rows.every((r) => re.test(r[i] ?? ''));
  const cols = [...Array(width).keys()];
  if (cols.some((i) => rows.some((r) => PATH.test(r[i] ?? '')))) return null;
  const uuidAt = cols.find((i) => all(i, UUID));
  const nameAt = cols.find((i) => all(i, GPU_NAME));
  if (uuidAt === undefined && nameAt === undefined) return null;
  const busAt = cols.find((i) => all(i, BUS_ID));
  const driverAt = cols.find((i) => all(i, DRIVER));
  const indexAt = all(0, /^\d{1,3}$/) ? 0 : undefined;
  const pctCols = cols.filter((i) => all(i, /^\d+(?:\.\d+)?\s*%$/));
  const report: SmiReport = { format: 'csv', driverVersion: null, cudaVersion: null, gpus: [], processes: [] };
  rows.forEach((r, position) => {
    const gpu = emptyGpu();
    gpu.index = indexAt !== undefined ? int(r[indexAt]) : position;
    gpu.uuid = uuidAt !== undefined ? text(r[uuidAt]) : null;
    gpu.name = nameAt !== undefined ? text(r[nameAt]) : null;
    gpu.pciBusId = busAt !== undefined ? text(r[busAt]) : null;
    if (pctCols.length === 1) gpu.utilizationGpuPct = num(r[pctCols[0]!]);
    report.gpus.push(gpu);
    if (driverAt !== undefined) report.driverVersion ??= driverVersion(r[driverAt]);
  });
  report.gpus = latestPerGpu(report.gpus);
  return { ok: true, report };
}
