// `nvidia-smi -q -x` across its DTD versions (no DOCTYPE before ~450, nsvmi_device_v11…v13).
// A GPU's block is 40–90 KB, mostly clock tables and error counters we do not need, so the
// blocks we need are cut out by name first and only those go through fast-xml-parser:
// an 8-GPU log then parses in a fraction of the time a full parse takes.
// The GPU count is the number of <gpu> elements, never <attached_gpus>.
import { XMLParser } from 'fast-xml-parser';
import type { SmiFailure, SmiGpu, SmiMigDevice, SmiProcess, SmiReport } from './types';
import { computeCap, cudaVersion, driverVersion, int, migMode, num, text } from './values';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  trimValues: true,
  isArray: (name) => name === 'gpu' || name === 'process_info' || name === 'mig_device',
});

/** Elements of a <gpu> block the model needs (children of <gpu>, any schema version). */
const GPU_PARTS = [
  'product_name',
  'uuid',
  'minor_number',
  'pci_bus_id',
  'mig_mode',
  'driver_model',
  'fb_memory_usage',
  'utilization',
  'temperature',
  'gpu_power_readings',
  'power_readings',
  'compute_cap',
  'cuda_compute_capability',
  'processes',
];

/** The first <tag …>…</tag> (or <tag/>) in s at or after from; null if absent or cut off. */
function element(s: string, tag: string, from = 0): { start: number; end: number } | null {
  let i = from;
  for (;;) {
    i = s.indexOf(`<${tag}`, i);
    if (i === -1) return null;
    const c = s.charCodeAt(i + tag.length + 1);
    // '>' ' ' '/' tab newline: a real start tag, not <tag_suffix
    if (c === 62 || c === 32 || c === 47 || c === 9 || c === 10 || c === 13) break;
    i += tag.length + 1;
  }
  const gt = s.indexOf('>', i);
  if (gt === -1) return null;
  if (s.charCodeAt(gt - 1) === 47) return { start: i, end: gt + 1 };
  const close = s.indexOf(`</${tag}>`, gt);
  if (close === -1) return null;
  return { start: i, end: close + tag.length + 3 };
}

export function looksLikeXml(input: string): boolean {
  return /<nvidia_smi_log[\s>]/.test(input);
}

type Node = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const arr = (v: unknown): Node[] => (Array.isArray(v) ? v.map(obj) : []);

export function parseXml(input: string): { ok: true; report: SmiReport } | { ok: false; error: SmiFailure } {
  const root = input.search(/<nvidia_smi_log[\s>]/);
  if (root === -1) return { ok: false, error: { kind: 'unrecognized', message: 'no <nvidia_smi_log> element' } };
  const rootEnd = input.indexOf('</nvidia_smi_log>', root);
  if (rootEnd === -1) return { ok: false, error: { kind: 'truncated', message: 'the XML stops before </nvidia_smi_log>' } };

  const firstGpu = element(input, 'gpu', root);
  const head = input.slice(root, firstGpu ? firstGpu.start : rootEnd);
  const pieces: string[] = ['<nvidia_smi_log>'];
  for (const tag of ['driver_version', 'kmd_version', 'cuda_version', 'cuda_umd_version']) {
    const e = element(head, tag);
    if (e) pieces.push(head.slice(e.start, e.end));
  }
  let at = root;
  let gpuCount = 0;
  for (;;) {
    const g = element(input, 'gpu', at);
    if (!g || g.start > rootEnd) break;
    if (g.end > rootEnd + 1) return { ok: false, error: { kind: 'truncated', message: `<gpu> number ${gpuCount + 1} is not closed` } };
    gpuCount++;
    const block = input.slice(g.start, g.end);
    const open = block.slice(0, block.indexOf('>') + 1);
    // MIG devices carry their own fb_memory_usage: take them out before looking for the GPU's.
    const mig = element(block, 'mig_devices');
    const rest = mig ? block.slice(0, mig.start) + block.slice(mig.end) : block;
    pieces.push(open.endsWith('/>') ? open.slice(0, -2) + '>' : open);
    if (mig) pieces.push(block.slice(mig.start, mig.end));
    for (const tag of GPU_PARTS) {
      const e = element(rest, tag, open.length);
      if (e) pieces.push(rest.slice(e.start, e.end));
    }
    pieces.push('</gpu>');
    at = g.end;
  }
  pieces.push('</nvidia_smi_log>');

  let doc: Node;
  try {
    doc = obj(obj(parser.parse(pieces.join(''))).nvidia_smi_log);
  } catch (err) {
    return { ok: false, error: { kind: 'unrecognized', message: `malformed XML: ${err instanceof Error ? err.message.split('\n')[0] : 'parse error'}` } };
  }
  const report: SmiReport = {
    format: 'xml',
    driverVersion: driverVersion(str(doc.driver_version) ?? str(doc.kmd_version)),
    cudaVersion: cudaVersion(str(doc.cuda_version) ?? str(doc.cuda_umd_version)),
    gpus: [],
    processes: [],
  };
  if (gpuCount === 0) {
    if (report.driverVersion === null) return { ok: false, error: { kind: 'unrecognized', message: 'an <nvidia_smi_log> without driver version or GPUs' } };
    return { ok: false, error: { kind: 'no-devices', message: 'the XML lists no <gpu> elements' } };
  }
  arr(doc.gpu).forEach((g, position) => {
    const gpu = readGpu(g, position);
    report.gpus.push(gpu);
    for (const p of arr(obj(g.processes).process_info)) report.processes.push(readProcess(p, gpu));
  });
  return { ok: true, report };
}

function readGpu(g: Node, position: number): SmiGpu {
  const fb = obj(g.fb_memory_usage);
  const power = Object.keys(obj(g.gpu_power_readings)).length ? obj(g.gpu_power_readings) : obj(g.power_readings);
  const name = text(str(g.product_name));
  const busId = text(str(g.pci_bus_id)) ?? text(str(g['@_id']));
  const dm = text(str(obj(g.driver_model).current_dm));
  return {
    // minor_number is N/A on Windows; nvidia-smi lists GPUs in index order, so fall back to position.
    index: int(str(g.minor_number)) ?? position,
    name,
    nameTruncated: false,
    uuid: text(str(g.uuid)),
    pciBusId: busId,
    memoryTotalMiB: num(str(fb.total)),
    memoryUsedMiB: num(str(fb.used)),
    utilizationGpuPct: num(str(obj(g.utilization).gpu_util)),
    temperatureC: num(str(obj(g.temperature).gpu_temp)),
    powerDrawW: num(str(power.power_draw) ?? str(power.instant_power_draw) ?? str(power.average_power_draw)),
    powerLimitW: num(str(power.current_power_limit) ?? str(power.power_limit) ?? str(power.enforced_power_limit)),
    computeCapability: computeCap(str(g.compute_cap) ?? str(g.cuda_compute_capability)),
    migMode: migMode(str(obj(g.mig_mode).current_mig)),
    migDevices: arr(obj(g.mig_devices).mig_device).map(readMig),
    driverModel: dm && /^(WDDM|TCC|MCDM)$/.test(dm) ? dm : null,
  };
}

function readMig(m: Node): SmiMigDevice {
  const fb = obj(m.fb_memory_usage);
  return {
    index: int(str(m.index)),
    gpuInstanceId: int(str(m.gpu_instance_id)),
    computeInstanceId: int(str(m.compute_instance_id)),
    memoryTotalMiB: num(str(fb.total)),
    memoryUsedMiB: num(str(fb.used)),
    multiprocessorCount: int(str(obj(obj(m.device_attributes).shared).multiprocessor_count)),
  };
}

function readProcess(p: Node, gpu: SmiGpu): SmiProcess {
  return {
    gpuIndex: gpu.index,
    gpuUuid: gpu.uuid,
    gpuInstanceId: int(str(p.gpu_instance_id)),
    computeInstanceId: int(str(p.compute_instance_id)),
    pid: int(str(p.pid)),
    type: text(str(p.type)),
    name: str(p.process_name) ?? '',
    usedMemoryMiB: num(str(p.used_memory)),
  };
}
