// Environment capture and rebuild over SSH. Capture runs the doctor's probe (driver, CUDA,
// torch, conda env) plus `conda env export` and `pip list --format=freeze` through the login
// shell; rebuild checks what it was given (core), uploads the files to ~/.gpu-rent/env/NAME on
// the new box (base64 on stdin: no in-band terminator a file could contain) and runs the
// rebuild script as a detached job, so a dropped connection does not kill a long pip install.
// Front ends call src/app/environment.ts, which adds the capture folder on the local disk.
import { randomBytes } from 'node:crypto';
import {
  captureMeta,
  checkRebuildInputs,
  planTorch,
  safeEnvName,
  ENV_SNAPSHOT_VERSION,
  type DroppedRequirement,
  type EnvCapture,
  type EnvSnapshot,
  type RebuildInputs,
  type RebuildProblem,
  type TorchPlan,
} from '../../core/guards/environment';
import { parseNvidiaSmi, SMI_QUERY_COMMAND } from '../../core/smi';
import type { RemoteConnection } from '../connection';
import { badInput, boxFailed } from '../errors';
import { startJob, type StartedJob } from '../jobs';
import { probeBox } from '../probe';
import { shQuote } from '../shell';
import { runSh } from './session';
import { readEnvironmentYaml } from './environment-yml';

export const ENV_DIR = '.gpu-rent/env';

function section(text: string, marker: string, name: string): string | null {
  const start = text.indexOf(`${marker}:${name}\n`);
  if (start === -1) return null;
  const from = start + marker.length + name.length + 2;
  const end = text.indexOf(`\n${marker}:`, from);
  return text.slice(from, end === -1 ? undefined : end + 1);
}

/** Captures the box's environment (the active conda env, or the python on PATH). */
export async function captureEnvironment(conn: RemoteConnection, source: string, opts: { now?: () => number; timeoutMs?: number } = {}): Promise<EnvSnapshot> {
  const probe = await probeBox(conn, { timeoutMs: opts.timeoutMs });
  const marker = `@@GPURENT-ENV-${randomBytes(6).toString('hex')}`;
  const m = (name: string) => `printf '\\n%s\\n' '${marker}:${name}'`;
  const script = [
    m('conda'),
    'if command -v conda >/dev/null 2>&1; then conda env export --no-builds 2>/dev/null || echo "@@conda-failed"; else echo "@@no-conda"; fi',
    m('pip'),
    'PY=$(command -v python || command -v python3)',
    'if [ -n "$PY" ]; then "$PY" -m pip list --format=freeze 2>/dev/null || "$PY" -m pip freeze 2>/dev/null || echo "@@pip-failed"; else echo "@@no-python"; fi',
    m('end'),
  ].join('\n');
  const r = await conn.exec(script, { timeoutMs: opts.timeoutMs ?? 120000 });
  if (!r.stdout.includes(`${marker}:end`)) throw boxFailed({ code: 'env-capture-unfinished', exit: String(r.code ?? '?') });
  const condaText = (section(r.stdout, marker, 'conda') ?? '').trim();
  const pipText = (section(r.stdout, marker, 'pip') ?? '').trim();
  const torch = probe.torch.ok ? probe.torch.probe : null;
  const smi = probe.smi.ok ? probe.smi.report : null;
  return {
    version: ENV_SNAPSHOT_VERSION,
    capturedAt: (opts.now ?? (() => Math.floor(Date.now() / 1000)))(),
    source,
    pythonVersion: torch?.pythonVersion ?? null,
    condaEnv: probe.condaEnv,
    torch: torch?.torch ?? null,
    torchCuda: torch?.torchCuda ?? null,
    driverVersion: smi?.driverVersion ?? null,
    driverMaxCuda: smi?.cudaVersion ?? null,
    gpus: smi ? smi.gpus.map((g) => g.name ?? 'unknown') : [],
    environmentYml: condaText && !condaText.startsWith('@@') && /^name:|^dependencies:/m.test(condaText) ? condaText + '\n' : null,
    requirements: pipText.startsWith('@@') ? '' : pipText + '\n',
  };
}

/** The new box's driver, for picking the torch build; nulls when nvidia-smi is missing or unreadable. */
export async function readTargetDriver(conn: RemoteConnection, opts: { timeoutMs?: number } = {}): Promise<{ version: string | null; maxCuda: string | null }> {
  const smiOut = await conn.exec(`if command -v nvidia-smi >/dev/null 2>&1; then ${SMI_QUERY_COMMAND}; else echo 'nvidia-smi: command not found'; fi`, { timeoutMs: opts.timeoutMs ?? 30000 });
  const smi = parseNvidiaSmi(smiOut.stdout.trim());
  return smi.ok ? { version: smi.report.driverVersion, maxCuda: smi.report.cudaVersion } : { version: null, maxCuda: null };
}

/** `pip install A B --index-url U` from the wheel table as quoted words for "$PY" -m pip install. */
function torchInstallWords(torch: TorchPlan): string | null {
  if (torch.kind !== 'install' && torch.kind !== 'cpuOnly') return null;
  const words = torch.command.trim().split(/\s+/);
  if (words[0] !== 'pip' || words[1] !== 'install' || words.length < 3) throw boxFailed({ code: 'torch-command-unexpected', command: torch.command });
  return words.slice(2).map((w) => {
    if (!/^[A-Za-z0-9_.=+:/-]+$/.test(w)) throw boxFailed({ code: 'torch-word-unexpected', word: w });
    return shQuote(w);
  }).join(' ');
}

/**
 * The bash script that rebuilds the environment on the new box from the files next to it
 * (environment.yml, requirements.txt). conda when present (fresh env), else a venv. Every value
 * in it is checked first (core's checkRebuildInputs) and then shell-quoted. Exits non-zero on
 * the first failure; prints "gpu-rent: environment NAME ready: PYTHON" at the end.
 */
export function rebuildScript(inputs: Pick<RebuildInputs, 'envName' | 'pythonMinor'>, torch: TorchPlan, hasYml: boolean, source: string): string {
  if (safeEnvName(inputs.envName) !== inputs.envName) throw badInput({ code: 'env-name-invalid', name: inputs.envName, rule: false });
  if (inputs.pythonMinor !== null && !/^[23]\.\d{1,2}$/.test(inputs.pythonMinor)) throw badInput({ code: 'python-version-invalid' });
  const torchWords = torchInstallWords(torch);
  const from = source.replace(/[^A-Za-z0-9 ._@:()/,+-]/g, '?').slice(0, 200);
  return `#!/usr/bin/env bash
# Written by gpu-rent: rebuilds the environment captured from ${from} in a fresh env.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=${shQuote(inputs.envName)}
PYTHON_SPEC=${shQuote(inputs.pythonMinor ? `python=${inputs.pythonMinor}` : 'python')}
if command -v conda >/dev/null 2>&1; then
  if conda env list | awk '{print $1}' | grep -qx -- "$NAME"; then echo "gpu-rent: a conda env named $NAME exists already; pick another name" >&2; exit 3; fi
  conda create -y -n "$NAME" "$PYTHON_SPEC"
  PY="$(conda info --base)/envs/$NAME/bin/python"
  ${hasYml ? 'conda env update -n "$NAME" -f "$HERE/environment.yml"' : ':'}
else
  echo "gpu-rent: conda not found; using a venv with $(python3 -V 2>&1)"
  VENV="$HOME/.gpu-rent/venvs/$NAME"
  if [ -e "$VENV" ]; then echo "gpu-rent: $VENV exists already; pick another name" >&2; exit 3; fi
  python3 -m venv "$VENV"
  PY="$VENV/bin/python"
fi
if [ -s "$HERE/requirements.txt" ]; then "$PY" -m pip install -r "$HERE/requirements.txt"; fi
${torchWords ? `"$PY" -m pip install ${torchWords}` : ''}
"$PY" -c 'import sys; print("python", sys.version.split()[0])'
echo "gpu-rent: environment $NAME ready: $PY"
`;
}

/** A rebuild the checks refused; `problems` say which lines or values, for the front end to show. */
export class RebuildRefused extends Error {
  constructor(readonly problems: RebuildProblem[]) {
    super(`the rebuild was refused: ${problems.slice(0, 5).map(describeRebuildProblem).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`);
    this.name = 'RebuildRefused';
  }
}

/** One problem in English (the CLI's words; the extension localizes from the fields). */
export function describeRebuildProblem(p: RebuildProblem): string {
  switch (p.kind) {
    case 'badEnvName':
      return `"${p.value}" is not a usable env name`;
    case 'badValue':
      return `the captured ${p.field} "${p.value}" is not a version`;
    case 'pipOption':
      return `${p.file} line ${p.line} is a pip option (${p.text})`;
    case 'credentialUrl':
      return `${p.file} line ${p.line} has a URL with a password or token (${p.text})`;
    case 'notARequirement':
      return `${p.file} line ${p.line} is not a plain requirement (${p.text})`;
    case 'tooLarge':
      return `${p.file} is too large (${p.text})`;
    case 'channel':
      return `${p.file} line ${p.line} uses a conda channel that is not a well-known one (${p.text})`;
    case 'envVariable':
      return `${p.file} line ${p.line} sets an environment variable in the new env (${p.text})`;
    case 'unsupportedYaml':
      return `${p.file} line ${p.line} cannot be checked: ${p.text}; write it as plain YAML (as conda env export does)`;
    case 'wrongShape':
      return `${p.file} line ${p.line} is not what conda env export writes: ${p.text}`;
    case 'unknownKey':
      return `${p.file} line ${p.line} has an unknown top-level key with a list or mapping (${p.text})`;
  }
}

export interface RebuildFile {
  name: 'requirements.txt' | 'environment.yml' | 'rebuild.sh' | 'gpu-rent-env.json';
  text: string;
  mode: '600' | '700';
}

export type RebuildPlan =
  | { ok: true; inputs: RebuildInputs; torch: TorchPlan; files: RebuildFile[] }
  | { ok: false; problems: RebuildProblem[] };

/** What a rebuild would upload to a box with this driver. Pure apart from quoting. */
export function planRebuild(capture: EnvCapture, opts: { envName: string; allowPipOptions?: boolean; targetDriver: { version: string | null; maxCuda: string | null } }): RebuildPlan {
  const inputs = checkRebuildInputs(capture, { ...opts, readYaml: readEnvironmentYaml });
  if (inputs.problems.length) return { ok: false, problems: inputs.problems };
  const torch = planTorch(capture, opts.targetDriver);
  const files: RebuildFile[] = [
    { name: 'requirements.txt', text: inputs.requirements.text, mode: '600' },
    { name: 'rebuild.sh', text: rebuildScript(inputs, torch, inputs.environmentYml !== null, capture.source), mode: '700' },
    { name: 'gpu-rent-env.json', text: JSON.stringify(captureMeta(capture), null, 2) + '\n', mode: '600' },
  ];
  if (inputs.environmentYml !== null) files.push({ name: 'environment.yml', text: inputs.environmentYml, mode: '600' });
  return { ok: true, inputs, torch, files };
}

export interface RebuildStarted {
  job: StartedJob;
  torch: TorchPlan;
  /** Folder on the box holding the files and the script. */
  dir: string;
  targetDriver: { version: string | null; maxCuda: string | null };
  /** How many requirement lines go to pip, and which were left out (torch family, local paths). */
  requirements: { kept: number; dropped: DroppedRequirement[] };
  /** The script as uploaded. */
  script: string;
}

/**
 * Checks the capture, uploads it to the new box and starts the rebuild as job `env-NAME`.
 * Throws RebuildRefused (before touching the box's files) when a check fails.
 */
export async function startRebuild(conn: RemoteConnection, capture: EnvCapture, envName: string, opts: { timeoutMs?: number; allowPipOptions?: boolean; env?: Record<string, string>; before?: string } = {}): Promise<RebuildStarted> {
  if (safeEnvName(envName) !== envName) throw badInput({ code: 'env-name-invalid', name: envName, rule: true });
  const early = checkRebuildInputs(capture, { envName, allowPipOptions: opts.allowPipOptions, readYaml: readEnvironmentYaml });
  if (early.problems.length) throw new RebuildRefused(early.problems);
  const targetDriver = await readTargetDriver(conn, opts);
  const plan = planRebuild(capture, { envName, allowPipOptions: opts.allowPipOptions, targetDriver });
  if (!plan.ok) throw new RebuildRefused(plan.problems);
  for (const f of plan.files) {
    const tmp = `"$D"/${shQuote(`.${f.name}.tmp`)}`;
    await runSh(conn, `D="$HOME"/${ENV_DIR}/${shQuote(envName)}\nmkdir -p "$D" && chmod 700 "$D" && base64 -d > ${tmp} && chmod ${f.mode} ${tmp} && mv -f ${tmp} "$D"/${shQuote(f.name)}`, {
      what: { step: 'env-copy', name: f.name },
      stdin: Buffer.from(f.text, 'utf8').toString('base64') + '\n',
      timeoutMs: opts.timeoutMs,
    });
  }
  // env and before (a line run first, e.g. sourcing a proxy): the launch's mirrors for this job only.
  const job = await startJob(conn, { name: `env-${envName}`, command: [`${opts.before ? `${opts.before}\n` : ''}bash "$HOME"/${ENV_DIR}/${shQuote(envName)}/rebuild.sh`], cwd: '~', ...(opts.env && Object.keys(opts.env).length ? { env: opts.env } : {}) });
  const script = plan.files.find((f) => f.name === 'rebuild.sh')!.text;
  return { job, torch: plan.torch, dir: `~/${ENV_DIR}/${envName}`, targetDriver, requirements: { kept: plan.inputs.requirements.kept, dropped: plan.inputs.requirements.dropped }, script };
}
