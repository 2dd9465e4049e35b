// A portable training environment: what a box had (conda env export, pip packages, Python,
// driver, CUDA, torch) and the script that rebuilds it in a fresh env on another box, so users
// are not locked to one platform's image. torch is reinstalled for the new box's driver (the
// doctor's wheel table picks the CUDA build) instead of copying a +cuXYZ pin that may not run.
import { cudaFitsDriver } from '../compat/cuda-driver';
import { findRelease, pipCommand, TORCH_RELEASES } from '../compat/torch-wheels';
import { compareVersions, parseTorchVersion } from '../compat/version';

export const ENV_SNAPSHOT_VERSION = 1;

export interface EnvSnapshot {
  version: typeof ENV_SNAPSHOT_VERSION;
  /** Epoch seconds. */
  capturedAt: number;
  /** Where it came from (the target as the user wrote it, without secrets). */
  source: string;
  pythonVersion: string | null;
  /** Active conda env name on the source box, null without conda. */
  condaEnv: string | null;
  torch: string | null;
  torchCuda: string | null;
  driverVersion: string | null;
  driverMaxCuda: string | null;
  gpus: string[];
  /** `conda env export --no-builds` output, null without conda. */
  environmentYml: string | null;
  /** `pip list --format=freeze` output (name==version lines). */
  requirements: string;
}

export type SnapshotProblem = { path: string; problem: 'missing' | 'wrongType' | 'unsupportedVersion' };

/** Validates a snapshot read from disk; never throws. */
export function parseEnvSnapshot(json: unknown): { ok: true; snapshot: EnvSnapshot } | { ok: false; problems: SnapshotProblem[] } {
  const problems: SnapshotProblem[] = [];
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { ok: false, problems: [{ path: '', problem: 'wrongType' }] };
  const o = json as Record<string, unknown>;
  if (o.version !== ENV_SNAPSHOT_VERSION) problems.push({ path: 'version', problem: o.version === undefined ? 'missing' : 'unsupportedVersion' });
  const str = (k: string, nullable: boolean) => {
    const v = o[k];
    if (v === undefined) problems.push({ path: k, problem: 'missing' });
    else if (!(typeof v === 'string' || (nullable && v === null))) problems.push({ path: k, problem: 'wrongType' });
  };
  if (typeof o.capturedAt !== 'number' || !Number.isFinite(o.capturedAt)) problems.push({ path: 'capturedAt', problem: o.capturedAt === undefined ? 'missing' : 'wrongType' });
  str('source', false);
  for (const k of ['pythonVersion', 'condaEnv', 'torch', 'torchCuda', 'driverVersion', 'driverMaxCuda', 'environmentYml']) str(k, true);
  str('requirements', false);
  if (!Array.isArray(o.gpus) || !o.gpus.every((g) => typeof g === 'string')) problems.push({ path: 'gpus', problem: o.gpus === undefined ? 'missing' : 'wrongType' });
  return problems.length ? { ok: false, problems } : { ok: true, snapshot: o as unknown as EnvSnapshot };
}

const TORCH_FAMILY = /^(torch|torchvision|torchaudio|pytorch|pytorch-cuda|pytorch-mutex|cudatoolkit|nvidia-[a-z0-9-]+-cu\d+|triton)$/i;

function packageName(spec: string): string {
  return spec.trim().replace(/^-\s*/, '').split(/[=<>!~ @[;]/)[0]!.trim();
}

/** pip requirements without torch and its CUDA runtime wheels (reinstalled for the new driver) and without unreproducible local paths. */
export function portableRequirements(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !/ @ file:/.test(l) && !l.startsWith('-e ') && !TORCH_FAMILY.test(packageName(l)))
    .join('\n')
    .concat('\n');
}

/** The conda export with a new name, no machine-specific prefix, and no torch family (conda or pip). */
export function portableEnvironmentYml(text: string, envName: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (/^prefix:/.test(line)) continue;
    if (/^name:/.test(line)) {
      out.push(`name: ${envName}`);
      continue;
    }
    const item = /^\s+-\s+(.+)$/.exec(line);
    if (item && item[1] !== 'pip:' && (TORCH_FAMILY.test(packageName(item[1]!)) || / @ file:/.test(item[1]!))) continue;
    out.push(line);
  }
  return out.join('\n');
}

export type TorchPlan =
  | { kind: 'none' }
  | { kind: 'install'; command: string; cuda: string; sameBuild: boolean }
  | { kind: 'cpuOnly'; command: string }
  | { kind: 'unknownRelease'; torch: string };

/**
 * How to install the snapshot's torch on a box with this driver: the same CUDA build when the
 * driver runs it, else the newest build of that release the driver runs.
 */
export function planTorch(snapshot: Pick<EnvSnapshot, 'torch' | 'torchCuda'>, driver: { version: string | null; maxCuda: string | null }): TorchPlan {
  if (!snapshot.torch) return { kind: 'none' };
  const parsed = parseTorchVersion(snapshot.torch);
  const base = parsed ? parsed.release : snapshot.torch.split('+')[0]!;
  const rel = findRelease(base);
  if (!rel) return { kind: 'unknownRelease', torch: snapshot.torch };
  const fits = (c: string) => cudaFitsDriver(c, { version: driver.version, maxCuda: driver.maxCuda }).fits;
  if (snapshot.torchCuda && rel.cuda.includes(snapshot.torchCuda) && fits(snapshot.torchCuda)) {
    return { kind: 'install', command: pipCommand(rel, snapshot.torchCuda), cuda: snapshot.torchCuda, sameBuild: true };
  }
  const usable = [...rel.cuda].sort(compareVersions).reverse().find(fits);
  if (usable) return { kind: 'install', command: pipCommand(rel, usable), cuda: usable, sameBuild: usable === snapshot.torchCuda };
  const pkgs = `torch==${rel.torch} torchvision==${rel.torchvision}${rel.torchaudio ? ` torchaudio==${rel.torchaudio}` : ''}`;
  return { kind: 'cpuOnly', command: `pip install ${pkgs}` };
}

/** Known releases (for tests and messages). */
export const KNOWN_TORCH_RELEASES = TORCH_RELEASES.length;

export function safeEnvName(raw: string): string | null {
  const name = raw.trim();
  return /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name) ? name : null;
}

/**
 * The bash script that rebuilds the environment on the new box from the files next to it
 * (environment.yml, requirements.txt). conda when present (fresh env), else a venv. Exits
 * non-zero on the first failure; prints "gpu-rent: environment NAME ready: PYTHON" at the end.
 */
export function rebuildScript(snapshot: EnvSnapshot, envName: string, torch: TorchPlan, hasYml: boolean): string {
  const py = snapshot.pythonVersion?.split('.').slice(0, 2).join('.') ?? '';
  const torchLine = torch.kind === 'install' || torch.kind === 'cpuOnly' ? torch.command.replace(/^pip install /, '"$PY" -m pip install ') : '';
  return `#!/usr/bin/env bash
# Written by gpu-rent: rebuilds the environment captured from ${snapshot.source.replace(/[^\x20-\x7e]/g, '?')} in a fresh env.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=${envName}
if command -v conda >/dev/null 2>&1; then
  if conda env list | awk '{print $1}' | grep -qx "$NAME"; then echo "gpu-rent: a conda env named $NAME exists already; pick another name" >&2; exit 3; fi
  conda create -y -n "$NAME" ${py ? `python=${py}` : 'python'}
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
${torchLine}
"$PY" -c 'import sys; print("python", sys.version.split()[0])'
echo "gpu-rent: environment $NAME ready: $PY"
`;
}
