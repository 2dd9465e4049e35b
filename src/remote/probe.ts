// `gpu-rent probe`: one command over one connection gathers nvidia-smi, the torch probe, disk
// use of the system and data disks and the active conda env; core's doctor gives the verdict.
import { randomBytes } from 'node:crypto';
import { diagnose, type Diagnosis } from '../core/doctor';
import { parseTorchProbe, TORCH_PROBE_PY, type ProbeResult } from '../core/probe';
import { parseNvidiaSmi, SMI_QUERY_COMMAND, type SmiResult } from '../core/smi';
import { forTerminal } from '../core/text';
import type { RemoteConnection } from './connection';
import { boxFailed } from './errors';
import { dataDirScript, parseDataDir, DATA_DIR_CANDIDATES, type DataDir, type DataDirCandidate } from './platform';
import { shQuote } from './shell';
import { boxLines } from '../core/boxLines';

/** What the probe may print (nvidia-smi, the torch probe, df): a real reply is a few KiB. */
export const PROBE_OUTPUT_BYTES = 4 * 1024 * 1024;

export interface DiskUse {
  /** 'system' for /, 'data' for the data folder's disk (when it is another disk), 'home' otherwise. */
  role: 'system' | 'data' | 'home';
  /** The folder asked about. */
  path: string;
  mountedOn: string;
  filesystem: string;
  sizeBytes: number;
  usedBytes: number;
  availableBytes: number;
}

export interface BoxProbe {
  smi: SmiResult;
  torch: ProbeResult;
  diagnosis: Diagnosis;
  disks: DiskUse[];
  /** $CONDA_DEFAULT_ENV in the login shell; null when conda is not active. */
  condaEnv: string | null;
  dataDir: DataDir;
  home: string;
  /** GPUs nvidia-smi listed (0 when it failed). */
  gpuCount: number;
  seconds: number;
}

/** Parses `df -P -B1` lines (header skipped). Odd lines are dropped, never guessed. */
export function parseDf(text: string): Array<Omit<DiskUse, 'role' | 'path'>> {
  const out: Array<Omit<DiskUse, 'role' | 'path'>> = [];
  for (const line of boxLines(text)) {
    const m = /^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+%\s+(\/.*)$/.exec(line.trim());
    if (!m) continue;
    out.push({ filesystem: m[1]!, sizeBytes: Number(m[2]), usedBytes: Number(m[3]), availableBytes: Number(m[4]), mountedOn: m[5]! });
  }
  return out;
}

function section(text: string, marker: string, name: string): string {
  const start = text.indexOf(`${marker}:${name}\n`);
  if (start === -1) return '';
  const from = start + marker.length + name.length + 2;
  const end = text.indexOf(`${marker}:`, from);
  return text.slice(from, end === -1 ? undefined : end);
}

/** The one shell script the probe runs (under the login shell, so conda is on PATH). */
export function probeScript(marker: string, candidates: readonly DataDirCandidate[] = DATA_DIR_CANDIDATES): string {
  const m = (name: string) => `printf '\\n%s\\n' ${shQuote(`${marker}:${name}`)}`;
  return [
    m('smi'),
    `if command -v nvidia-smi >/dev/null 2>&1; then ${SMI_QUERY_COMMAND}; else echo 'nvidia-smi: command not found'; fi`,
    m('torch'),
    // conda's `python` first (the env users train in), then python3.
    `PY=$(command -v python || command -v python3); if [ -n "$PY" ]; then "$PY" -c ${shQuote(TORCH_PROBE_PY)} 2>&1; else echo 'python: command not found'; fi`,
    m('env'),
    `printf 'conda\\t%s\\n' "\${CONDA_DEFAULT_ENV:-}"`,
    `printf 'homedir\\t%s\\n' "$HOME"`,
    dataDirScript(candidates),
    m('df'),
    `DATA=$( (${dataDirScript(candidates)}) | cut -f2-)`,
    `df -P -B1 / 2>/dev/null | tail -n +2`,
    `df -P -B1 "$DATA" 2>/dev/null | tail -n +2`,
    m('end'),
  ].join('\n');
}

export async function probeBox(conn: RemoteConnection, opts: { timeoutMs?: number; signal?: AbortSignal; dataDirCandidates?: readonly DataDirCandidate[] } = {}): Promise<BoxProbe> {
  const started = Date.now();
  const marker = `@@GPURENT-${randomBytes(6).toString('hex')}`;
  const candidates = opts.dataDirCandidates ?? DATA_DIR_CANDIDATES;
  // torch import can take many seconds on a cold disk.
  const r = await conn.exec(probeScript(marker, candidates), { timeoutMs: opts.timeoutMs ?? 90000, signal: opts.signal, maxOutputBytes: PROBE_OUTPUT_BYTES });
  const out = r.stdout;
  if (r.outputLimited || r.truncated.stdout > 0) {
    throw boxFailed({ code: 'probe-output-too-big', limitBytes: PROBE_OUTPUT_BYTES });
  }
  if (!out.includes(`${marker}:end`)) {
    const why = forTerminal(r.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 500));
    throw boxFailed({ code: 'probe-unfinished', exit: String(r.code ?? r.signal ?? '?'), output: why });
  }
  const smi = parseNvidiaSmi(section(out, marker, 'smi').trim());
  const torch = parseTorchProbe(section(out, marker, 'torch'));
  const envText = section(out, marker, 'env');
  const field = (k: string) => new RegExp(`^${k}\\t(.*)$`, 'm').exec(envText)?.[1] ?? '';
  const home = field('homedir');
  const condaEnv = field('conda') || (torch.ok ? torch.probe.conda : null) || null;
  const data = parseDataDir(envText.split('\n').find((l) => /^(env|platform|home)\t/.test(l)) ?? '', home, candidates);

  const dfs = parseDf(section(out, marker, 'df'));
  const disks: DiskUse[] = [];
  const root = dfs[0];
  if (root) disks.push({ role: 'system', path: '/', ...root });
  const dataDisk = dfs[1];
  if (dataDisk && (!root || dataDisk.mountedOn !== root.mountedOn)) disks.push({ role: data.source === 'home' ? 'home' : 'data', path: data.path, ...dataDisk });

  const diagnosis = diagnose({ smi: smi.ok ? smi.report : smi.error, probe: torch });
  return {
    smi,
    torch,
    diagnosis,
    disks,
    condaEnv,
    dataDir: data,
    home,
    gpuCount: smi.ok ? smi.report.gpus.length : 0,
    seconds: (Date.now() - started) / 1000,
  };
}
