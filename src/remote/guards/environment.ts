// Environment capture and rebuild over SSH. Capture runs the doctor's probe (driver, CUDA,
// torch, conda env) plus `conda env export` and `pip list --format=freeze` through the login
// shell; rebuild copies the files to ~/.gpu-rent/env/NAME on the new box and runs the rebuild
// script as a detached job, so a dropped connection does not kill a long pip install.
import { randomBytes } from 'node:crypto';
import { planTorch, portableEnvironmentYml, portableRequirements, rebuildScript, safeEnvName, ENV_SNAPSHOT_VERSION, type EnvSnapshot, type TorchPlan } from '../../core/guards/environment';
import { parseNvidiaSmi, SMI_QUERY_COMMAND } from '../../core/smi';
import type { RemoteConnection } from '../connection';
import { RemoteError } from '../errors';
import { startJob, type StartedJob } from '../jobs';
import { probeBox } from '../probe';
import { runSh } from './session';

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
  if (!r.stdout.includes(`${marker}:end`)) throw new RemoteError('remote-failed', `capturing the environment did not finish on the box (exit ${r.code ?? '?'})`);
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

export interface RebuildStarted {
  job: StartedJob;
  torch: TorchPlan;
  /** Folder on the box holding the files and the script. */
  dir: string;
  targetDriver: { version: string | null; maxCuda: string | null };
}

/** Copies the snapshot to the new box and starts the rebuild as job `env-NAME`. */
export async function startRebuild(conn: RemoteConnection, snapshot: EnvSnapshot, envName: string, opts: { timeoutMs?: number } = {}): Promise<RebuildStarted> {
  if (safeEnvName(envName) !== envName) throw new RemoteError('bad-target', `"${envName}" is not a usable env name: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64`);
  const smiOut = await conn.exec(`if command -v nvidia-smi >/dev/null 2>&1; then ${SMI_QUERY_COMMAND}; else echo 'nvidia-smi: command not found'; fi`, { timeoutMs: opts.timeoutMs ?? 30000 });
  const smi = parseNvidiaSmi(smiOut.stdout.trim());
  const targetDriver = smi.ok ? { version: smi.report.driverVersion, maxCuda: smi.report.cudaVersion } : { version: null, maxCuda: null };
  const torch = planTorch(snapshot, targetDriver);
  const yml = snapshot.environmentYml ? portableEnvironmentYml(snapshot.environmentYml, envName) : null;
  const files: [string, string, string][] = [
    ['requirements.txt', portableRequirements(snapshot.requirements), '600'],
    ['rebuild.sh', rebuildScript(snapshot, envName, torch, yml !== null), '700'],
    ['snapshot.json', JSON.stringify(snapshot, null, 2) + '\n', '600'],
  ];
  if (yml) files.push(['environment.yml', yml, '600']);
  for (const [name, text, mode] of files) {
    await runSh(conn, `D="$HOME"/${ENV_DIR}/${envName}\nmkdir -p "$D" && cat > "$D/${name}" && chmod ${mode} "$D/${name}"`, { what: `copying ${name}`, stdin: text, timeoutMs: opts.timeoutMs });
  }
  const job = await startJob(conn, { name: `env-${envName}`, command: [`bash "$HOME"/${ENV_DIR}/${envName}/rebuild.sh`], cwd: '~' });
  return { job, torch, dir: `~/${ENV_DIR}/${envName}`, targetDriver };
}
