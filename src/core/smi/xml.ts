// `nvidia-smi -q -x` across its DTD versions (no DOCTYPE before ~450, nvsmi_device_v11…v13).
// A GPU's block is 40–90 KB, mostly clock tables and error counters we do not need, so each
// <gpu>'s children are walked in one pass (a child is skipped with one indexOf for its
// closing tag) and only the leaves the model needs are read. Leaves holding anything but
// plain text (CDATA, comments, markup) go to fast-xml-parser. An 8-GPU log parses in a
// fraction of a full parse's time (bench/smi.bench.ts).
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
});

/** Containers of a <gpu> block and the leaves the model reads from each (any schema version). */
const GPU_LEAVES = ['product_name', 'uuid', 'minor_number', 'compute_cap', 'cuda_compute_capability'];
const GPU_CONTAINERS: readonly [string, readonly string[]][] = [
  ['mig_mode', ['current_mig']],
  ['driver_model', ['current_dm']],
  ['fb_memory_usage', ['total', 'used']],
  ['utilization', ['gpu_util']],
  ['temperature', ['gpu_temp']],
  ['gpu_power_readings', ['power_draw', 'instant_power_draw', 'average_power_draw', 'current_power_limit', 'power_limit', 'enforced_power_limit']],
  ['power_readings', ['power_draw', 'power_limit', 'enforced_power_limit', 'current_power_limit']],
];
const PROCESS_LEAVES = ['gpu_instance_id', 'compute_instance_id', 'pid', 'type', 'process_name', 'used_memory'];
const MIG_LEAVES = ['index', 'gpu_instance_id', 'compute_instance_id', 'multiprocessor_count'];

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

/**
 * The direct children of the element whose content starts at `from`, by name (first of each).
 * One pass: each child is skipped with a single indexOf for its closing tag, so the large
 * clock and error-counter blocks cost one scan and are never parsed.
 */
function children(s: string, from: number, descend?: (name: string, contentStart: number) => number): { kids: Map<string, string>; end: number } {
  const out = new Map<string, string>();
  let pos = from;
  for (;;) {
    const lt = s.indexOf('<', pos);
    if (lt === -1) return { kids: out, end: -1 };
    if (s.charCodeAt(lt + 1) === 47 /* '/' */) return { kids: out, end: lt };
    if (s.startsWith('<!--', lt)) {
      const end = s.indexOf('-->', lt);
      if (end === -1) return { kids: out, end: -1 };
      pos = end + 3;
      continue;
    }
    const gt = s.indexOf('>', lt);
    if (gt === -1) return { kids: out, end: -1 };
    let e = lt + 1;
    while (e < gt) {
      const c = s.charCodeAt(e);
      if (c === 32 || c === 47 || c === 9 || c === 10 || c === 13) break;
      e++;
    }
    if (e === lt + 1) return { kids: out, end: -1 };
    const name = s.slice(lt + 1, e);
    let end: number;
    if (s.charCodeAt(gt - 1) === 47) end = gt + 1;
    else if (descend) {
      // The caller reads this child itself and says where it ends (-1: cut off).
      end = descend(name, gt + 1);
      if (end === -1) return { kids: out, end: -1 };
      pos = end;
      continue;
    } else {
      const close = s.indexOf(`</${name}>`, gt);
      if (close === -1) return { kids: out, end: -1 };
      end = close + name.length + 3;
    }
    if (!out.has(name)) out.set(name, s.slice(lt, end));
    pos = end;
  }
}

/**
 * The text of one leaf element. Plain text is read directly (entities decoded); anything
 * else inside (CDATA, comments, nested markup) is handed to fast-xml-parser.
 */
function leafText(el: string): string {
  const gt = el.indexOf('>');
  if (el.charCodeAt(gt - 1) === 47) return '';
  const inner = el.slice(gt + 1, el.lastIndexOf('</'));
  if (!inner.includes('<')) return decode(inner.trim());
  try {
    const parsed = obj(parser.parse(el));
    const v = Object.values(parsed)[0];
    return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : obj(v)['#text'] !== undefined ? String(obj(v)['#text']) : '';
  } catch {
    return '';
  }
}

/** The first occurrence of each leaf element in s, by name. */
function leaves(s: string, names: readonly string[], from = 0, into: Node = {}): Node {
  for (const n of names) {
    const e = element(s, n, from);
    if (e) into[n] = leafText(s.slice(e.start, e.end));
  }
  return into;
}

/** Each <item> inside s, with its leaves (and one nested container's leaves). */
function repeated(s: string, item: string, names: readonly string[], nested?: readonly [string, readonly string[]]): Node[] {
  const out: Node[] = [];
  let at = 0;
  for (;;) {
    const e = element(s, item, at);
    if (!e) break;
    const one = s.slice(e.start, e.end);
    const node = leaves(one, names, item.length + 2);
    if (nested) {
      const c = element(one, nested[0]);
      if (c) node[nested[0]] = leaves(one.slice(c.start, c.end), nested[1]);
    }
    out.push(node);
    at = e.end;
  }
  return out;
}

export function looksLikeXml(input: string): boolean {
  return /<nvidia_smi_log[\s>]/.test(input);
}

type Node = Record<string, unknown>;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
function decode(v: string): string {
  if (!v.includes('&')) return v;
  return v.replace(/&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (m, e: string) => {
    if (e[0] !== '#') return ENTITIES[e] ?? m;
    const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
}
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const arr = (v: unknown): Node[] => (Array.isArray(v) ? v.map(obj) : []);

const HEAD = ['driver_version', 'kmd_version', 'cuda_version', 'cuda_umd_version'];

/** The leaves of one <gpu> the model reads, in the shape readGpu expects. */
function readGpuNode(openTag: string, kids: Map<string, string>): Node {
  const id = /\bid="([^"]*)"/.exec(openTag);
  const node: Node = id ? { '@_id': decode(id[1]!) } : {};
  for (const name of GPU_LEAVES) {
    const k = kids.get(name);
    if (k !== undefined) node[name] = leafText(k);
  }
  const pci = kids.get('pci');
  if (pci) leaves(pci, ['pci_bus_id'], 0, node);
  for (const [container, names] of GPU_CONTAINERS) {
    const c = kids.get(container);
    if (c) node[container] = leaves(c, names, container.length + 2);
  }
  const mig = kids.get('mig_devices');
  if (mig) node.mig_devices = { mig_device: repeated(mig, 'mig_device', MIG_LEAVES, ['fb_memory_usage', ['total', 'used']]) };
  const procs = kids.get('processes');
  if (procs) node.processes = { process_info: repeated(procs, 'process_info', PROCESS_LEAVES) };
  return node;
}

export function parseXml(input: string): { ok: true; report: SmiReport } | { ok: false; error: SmiFailure } {
  const root = input.search(/<nvidia_smi_log[\s>]/);
  if (root === -1) return { ok: false, error: { kind: 'unrecognized', message: 'no <nvidia_smi_log> element' } };
  const gpuNodes: Node[] = [];
  const doc: Node = {};
  let cut = false;
  // One pass over the log: small children of the root are kept whole, each <gpu> is walked.
  const top = children(input, input.indexOf('>', root) + 1, (name, contentStart) => {
    if (name !== 'gpu') {
      const close = input.indexOf(`</${name}>`, contentStart);
      if (close === -1) return -1;
      if (HEAD.includes(name) && !(name in doc)) doc[name] = leafText(input.slice(input.lastIndexOf('<', contentStart), close + name.length + 3));
      return close + name.length + 3;
    }
    const g = children(input, contentStart);
    if (g.end === -1 || !input.startsWith('</gpu>', g.end)) {
      cut = true;
      return -1;
    }
    const openTag = input.slice(input.lastIndexOf('<gpu', contentStart), contentStart);
    gpuNodes.push(readGpuNode(openTag, g.kids));
    return g.end + '</gpu>'.length;
  });
  if (cut) return { ok: false, error: { kind: 'truncated', message: `<gpu> number ${gpuNodes.length + 1} is not closed` } };
  if (top.end === -1 || !input.startsWith('</nvidia_smi_log>', top.end)) return { ok: false, error: { kind: 'truncated', message: 'the XML stops before </nvidia_smi_log>' } };
  const gpuCount = gpuNodes.length;
  doc.gpu = gpuNodes;
  const report: SmiReport = {
    format: 'xml',
    driverVersion: driverVersion(str(doc.kmd_version)) ?? driverVersion(str(doc.driver_version)),
    cudaVersion: cudaVersion(str(doc.cuda_umd_version)) ?? cudaVersion(str(doc.cuda_version)),
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
    multiprocessorCount: int(str(m.multiprocessor_count)),
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
