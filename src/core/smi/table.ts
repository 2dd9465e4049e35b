// The default `nvidia-smi` table, read by its structure rather than by column positions so the
// 79-column (≤ 520), 89-column (530) and 91-column (≥ 535) layouts, the pre-450 layout without
// "MIG M.", Windows/WSL (WDDM/TCC driver model, C+G processes, N/A memory) and driver 610's
// "KMD Version" / "CUDA UMD Version" header all read the same way.
import { emptyGpu, type SmiFailure, type SmiGpu, type SmiMigDevice, type SmiProcess, type SmiReport } from './types';
import { cudaVersion, driverVersion, int, migMode, num, text } from './values';
import { slashPair } from '../boxLines';

type Section = 'gpus' | 'mig' | 'procs';

// +-----+----+, |-----+----|, and old drivers' +-----|-----|-----+ (396.x)
const SEPARATOR_CHARS = /^[+|][-=+|]*$/;
const isSeparator = (line: string): boolean => {
  const t = line.trimEnd();
  return SEPARATOR_CHARS.test(t) && t.includes('-', 1);
};
const DOUBLE = /^\|[=+]+\|?\s*$/; // |=====+=====|

function cells(line: string): string[] {
  const t = line.trimEnd();
  const inner = t.endsWith('|') ? t.slice(1, -1) : t.slice(1);
  return inner.split('|');
}

export function looksLikeTable(text: string): boolean {
  return /NVIDIA-SMI\s+\d|(?:Driver|KMD) Version:\s*\d/.test(text) || /^\|\s+GPU\s+Name\b/m.test(text);
}


/** Fills one GPU from its 2 or 3 rows; false when the first two rows are not there. */
function readGpuBlock(rows: string[][], hasMigRow: boolean): SmiGpu | null {
  const [r0, r1, r2] = rows;
  if (!r0 || !r1) return null;
  const gpu = emptyGpu();
  const head = /^(\d+)(?:\s+(\S.*))?$/.exec((r0[0] ?? '').trim());
  if (!head) return null;
  gpu.index = Number(head[1]);
  let name = head[2] ?? '';
  const tail = /\s(On|Off|WDDM|TCC|MCDM|N\/A)$/.exec(name);
  if (tail) {
    name = name.slice(0, tail.index).trimEnd();
    if (/^(WDDM|TCC|MCDM)$/.test(tail[1]!)) gpu.driverModel = tail[1]!;
  }
  gpu.name = text(name); // "ERR!" on a GPU the driver lost touch with
  gpu.nameTruncated = /\.\.\.$/.test(name.trim());
  const bus = /([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])/.exec(r0[1] ?? '');
  gpu.pciBusId = bus ? bus[1]! : null;

  const c0 = (r1[0] ?? '').trim();
  const temp = /(?:^|\s)(\d+)C(?:\s|$)/.exec(c0);
  gpu.temperatureC = temp ? Number(temp[1]) : null;
  const power = slashPair(c0, true);
  if (power) {
    gpu.powerDrawW = num(power[0]);
    gpu.powerLimitW = num(power[1]);
  }
  const mem = slashPair(r1[1] ?? '');
  if (mem) {
    gpu.memoryUsedMiB = num(mem[0]);
    gpu.memoryTotalMiB = num(mem[1]);
  }
  const util = /^\s*(\S+)/.exec(r1[2] ?? '');
  gpu.utilizationGpuPct = util ? num(util[1]) : null;
  if (hasMigRow && r2) gpu.migMode = migMode((r2[r2.length - 1] ?? '').trim());
  return gpu;
}

function readMigRow(r: string[]): { gpuIndex: number; device: SmiMigDevice } | null {
  const ids = /^\s*(\d+)\s+(\d+|N\/A)\s+(\d+|N\/A)\s+(\d+|N\/A)\s*$/.exec(r[0] ?? '');
  if (!ids) return null;
  const mem = slashPair(r[1] ?? '');
  const sm = /^\s*(\d+)/.exec(r[2] ?? '');
  return {
    gpuIndex: Number(ids[1]),
    device: {
      index: int(ids[4]),
      gpuInstanceId: int(ids[2]),
      computeInstanceId: int(ids[3]),
      memoryUsedMiB: mem ? num(mem[0]) : null,
      memoryTotalMiB: mem ? num(mem[1]) : null,
      multiprocessorCount: sm ? Number(sm[1]) : null,
    },
  };
}

function readProcessRow(line: string, hasGiCi: boolean): SmiProcess | null {
  const body = cells(line).join(' ').trim();
  if (body === '' || /^(No running processes found|Not Supported|N\/A)$/i.test(body)) return null;
  // The memory column comes off the end first, by hand; the rest is one token per column, then the name.
  const [rest, memory] = trailingMemory(body);
  const re = hasGiCi
    ? /^(\d+|N\/A)\s+(\S+)\s+(\S+)\s+(\d+|N\/A)\s+(\S+)(?:\s+(\S.*))?$/
    : /^(\d+|N\/A)\s+(\d+|N\/A)\s+(\S+)(?:\s+(\S.*))?$/;
  const m = re.exec(rest);
  if (!m) return null;
  if (hasGiCi) {
    return { gpuIndex: int(m[1]), gpuUuid: null, gpuInstanceId: int(m[2]), computeInstanceId: int(m[3]), pid: int(m[4]), type: text(m[5]), name: (m[6] ?? '').trim(), usedMemoryMiB: num(memory) };
  }
  return { gpuIndex: int(m[1]), gpuUuid: null, gpuInstanceId: null, computeInstanceId: null, pid: int(m[2]), type: text(m[3]), name: (m[4] ?? '').trim(), usedMemoryMiB: num(memory) };
}

/** `body` without a final `123MiB` / `123 MiB` / `N/A`, and that value. */
function trailingMemory(body: string): [string, string | undefined] {
  if (body.endsWith('N/A')) return [body.slice(0, -3).trimEnd(), 'N/A'];
  if (!body.endsWith('MiB')) return [body, undefined];
  const num = body.slice(0, -3).trimEnd();
  let d = num.length;
  while (d > 0 && num.charCodeAt(d - 1) >= 48 && num.charCodeAt(d - 1) <= 57) d--;
  if (d === num.length) return [body, undefined];
  return [num.slice(0, d).trimEnd(), `${num.slice(d)}MiB`];
}

export function parseTable(input: string): { ok: true; report: SmiReport } | { ok: false; error: SmiFailure } {
  const lines = input.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIdx = lines.findIndex((l) => /(?:Driver|KMD) Version:\s*\d|NVIDIA-SMI\s+\d/.test(l));
  if (headerIdx === -1) {
    return { ok: false, error: { kind: looksTruncatedStart(lines) ? 'truncated' : 'unrecognized', message: 'no "NVIDIA-SMI … Driver Version" header line' } };
  }
  const header = lines[headerIdx]!;
  const drv = /(?:Driver|KMD) Version:\s*(\S+)/.exec(header) ?? /NVIDIA-SMI\s+(\S+)/.exec(header);
  const cuda = /CUDA (?:UMD )?Version:\s*(\S+)/.exec(header);
  const report: SmiReport = { format: 'table', driverVersion: driverVersion(drv?.[1]), cudaVersion: cudaVersion(cuda?.[1]), gpus: [], processes: [] };

  let section: Section | null = null;
  let pending: string[] = []; // header rows seen since the last separator
  let block: string[][] = [];
  let hasMigRow = false;
  let hasGiCi = false;
  let sawGpuSection = false;
  let gpuSectionClosed = false;
  let sawProcHeader = false;
  let procClosed = false;
  let brokenBlock = false;
  let cutLine = false;
  let procCut = false; // a cut at or after the Processes header: the GPUs above it are whole
  let sectionWidth = 0;
  const migByGpu = new Map<number, SmiMigDevice[]>();

  const flushBlock = (): void => {
    if (section === 'gpus' && block.length) {
      const gpu = readGpuBlock(block, hasMigRow);
      if (gpu) report.gpus.push(gpu);
      else brokenBlock = true;
    }
    if (section === 'mig' && block.length) {
      const row = readMigRow(block[0]!);
      if (row) migByGpu.set(row.gpuIndex, [...(migByGpu.get(row.gpuIndex) ?? []), row.device]);
    }
    block = [];
  };

  for (let i = headerIdx + 1; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    if (/^\|\s*Processes:/.test(line)) sawProcHeader = true;
    let cutHere = false;
    // Every table line ends in '|' or '+': one that does not was cut off.
    if ((/^[+|][-=]/.test(line) || (section !== null && line.startsWith('|'))) && !/[|+]$/.test(line)) cutHere = true;
    // Inside a box every row is as wide as its ==== line: a shorter one ("|", "|  ") was cut.
    if (section !== null && line.startsWith('|') && line.length < sectionWidth) cutHere = true;
    if (cutHere && sawProcHeader) {
      procCut = true;
      continue; // a cut process row is not read
    }
    if (cutHere) cutLine = true;
    if (DOUBLE.test(line)) {
      const h = pending.join(' ');
      flushBlock();
      sectionWidth = line.length;
      if (/Bus-Id/.test(h)) {
        section = 'gpus';
        sawGpuSection = true;
        hasMigRow = /MIG M\./.test(h);
      } else if (/Process name|PID/.test(h)) {
        section = 'procs';
        hasGiCi = /\bGI\b/.test(h) && /\bCI\b/.test(h);
      } else if (/\bGI\b/.test(h) && /\bCI\b/.test(h)) section = 'mig';
      else section = null;
      pending = [];
      continue;
    }
    if (isSeparator(line)) {
      // Every border of a box is as wide as its ==== line; a shorter one is where the output was cut.
      if (section !== null && line.length < sectionWidth) cutLine = true;
      flushBlock();
      if (section === 'gpus') gpuSectionClosed = true;
      if (section === 'procs') procClosed = true;
      pending = [];
      continue;
    }
    if (line.startsWith('|')) {
      if (section === 'gpus') {
        const c = cells(line);
        const startsGpu = /^\s*\d+\s{2,}\S/.test(c[0] ?? '');
        if (!startsGpu && block.length === 0 && gpuSectionClosed) {
          // A box right after the GPU table ("| MIG devices: |" with no blank line between).
          section = null;
          pending = [line];
          continue;
        }
        gpuSectionClosed = false;
        if (startsGpu && block.length) flushBlock();
        block.push(c);
      } else if (section === 'mig') {
        const c = cells(line);
        if (/^\s*\d+\s+\d+/.test(c[0] ?? '') && block.length) flushBlock();
        block.push(c);
      } else if (section === 'procs') {
        procClosed = false;
        const p = readProcessRow(line, hasGiCi);
        if (p) report.processes.push(p);
      } else pending.push(line);
      continue;
    }
    // Anything else (a blank line, a prompt) ends the current section.
    flushBlock();
    if (section === 'gpus' || section === 'procs' || section === 'mig') {
      section = null;
    }
    pending = [];
  }
  flushBlock();

  for (const gpu of report.gpus) if (gpu.index !== null) gpu.migDevices = migByGpu.get(gpu.index) ?? [];

  if (report.gpus.length === 0) {
    if (/^[ \t]*No devices were found/m.test(input)) return { ok: false, error: { kind: 'no-devices', message: 'No devices were found' } };
    return { ok: false, error: { kind: 'truncated', message: sawGpuSection ? 'the GPU table has no complete GPU row' : 'the output stops before the GPU table' } };
  }
  if (cutLine) return { ok: false, error: { kind: 'truncated', message: 'a table line is cut off' } };
  if (brokenBlock || !gpuSectionClosed) return { ok: false, error: { kind: 'truncated', message: 'the GPU table stops in the middle of a GPU' } };
  // The Processes box cut off (a capped or interrupted output): the GPUs stand, the cut is said.
  if (sawProcHeader && (!procClosed || procCut)) report.partial = { processesCut: true };
  return { ok: true, report };
}

function looksTruncatedStart(lines: string[]): boolean {
  const nonEmpty = lines.filter((l) => l.trim() !== '');
  return nonEmpty.length > 0 && nonEmpty.length <= 3 && nonEmpty.every((l) => /^[+|]|^\w{3} \w{3}\s+\d+ [\d:]+ \d{4}/.test(l.trim()));
}
