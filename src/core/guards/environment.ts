// A portable training environment: what a box had (conda env export, pip packages, Python,
// driver, CUDA, torch) and the script that rebuilds it in a fresh env on another box, so users
// are not locked to one platform's image. torch is reinstalled for the new box's driver (the
// doctor's wheel table picks the CUDA build) instead of copying a +cuXYZ pin that may not run.
import { cudaFitsDriver } from '../compat/cuda-driver';
import { findRelease, pipCommand, TORCH_RELEASES } from '../compat/torch-wheels';
import { compareVersions, parseTorchVersion } from '../compat/version';
import { checkCondaEnvironment, MAX_ENVIRONMENT_YML_CHARS, safeEnvName, writeCondaEnvironment, type YamlReader } from './environment-conda';
import { checkRequirements, packageName, shownLine, TORCH_FAMILY, type RequirementProblem, type RequirementsCheck } from './environment-requirements';

// The requirement and conda checks live beside this file; their names stay importable from here.
export { ASKABLE_PROBLEMS, checkRequirements, yamlReasonEnglish, type DroppedRequirement, type RequirementProblem, type RequirementProblemKind, type RequirementsCheck, type YamlPart, type YamlReason } from './environment-requirements';
export { checkCondaEnvironment, MAX_ENVIRONMENT_YML_CHARS, safeEnvName, writeCondaEnvironment, type CondaEnvironment, type CondaEnvironmentCheck, type ParsedYaml, type YamlNode, type YamlReader } from './environment-conda';

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
    const item = /^\s+-\s+(\S.*)$/.exec(line);
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


// ── The capture folder's JSON (format 2) and what a rebuild accepts from the files beside it ──

/** What a capture holds, whatever file it was read from. */
export type EnvCapture = Omit<EnvSnapshot, 'version'>;

/** `gpu-rent-env.json` format 2: the facts only; requirements.txt and environment.yml beside it are the packages. */
export const ENV_CAPTURE_VERSION = 2;
export const ENV_CAPTURE_FORMAT = 'gpu-rent-env';

/** The capture's facts without its package lists, tagged with the format. */
export type EnvCaptureMeta = Omit<EnvCapture, 'requirements' | 'environmentYml'> & {
  format: typeof ENV_CAPTURE_FORMAT;
  version: typeof ENV_CAPTURE_VERSION;
};

export function captureMeta(c: EnvCapture): EnvCaptureMeta {
  const { capturedAt, source, pythonVersion, condaEnv, torch, torchCuda, driverVersion, driverMaxCuda, gpus } = c;
  return { format: ENV_CAPTURE_FORMAT, version: ENV_CAPTURE_VERSION, capturedAt, source, pythonVersion, condaEnv, torch, torchCuda, driverVersion, driverMaxCuda, gpus: [...gpus] };
}

export type ParsedCaptureFile =
  | { ok: true; version: 2; meta: EnvCaptureMeta }
  | { ok: true; version: 1; snapshot: EnvSnapshot }
  | { ok: false; problems: SnapshotProblem[] };

/** Reads either format from parsed JSON: 2 (facts only) or 1 (facts plus the package lists inline). Never throws. */
export function parseEnvCaptureFile(json: unknown): ParsedCaptureFile {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { ok: false, problems: [{ path: '', problem: 'wrongType' }] };
  const o = json as Record<string, unknown>;
  if (o.version !== ENV_CAPTURE_VERSION) {
    const r = parseEnvSnapshot(json);
    return r.ok ? { ok: true, version: 1, snapshot: r.snapshot } : r;
  }
  const problems: SnapshotProblem[] = [];
  if (o.format !== ENV_CAPTURE_FORMAT) problems.push({ path: 'format', problem: o.format === undefined ? 'missing' : 'wrongType' });
  // Format 2 has no inline lists: check it as a format-1 snapshot with empty ones.
  const r = parseEnvSnapshot({ ...o, version: ENV_SNAPSHOT_VERSION, requirements: '', environmentYml: null });
  if (!r.ok) problems.push(...r.problems);
  if (problems.length) return { ok: false, problems };
  return { ok: true, version: 2, meta: captureMeta(r.ok ? r.snapshot : (o as unknown as EnvCapture)) };
}

/**
 * "3.10" from a probed Python version, or null when it is not a plain version (a hostile or
 * garbled box answer never reaches the rebuild script).
 */
export function pythonMinorOf(version: string): string | null {
  const m = /^([23])\.(\d{1,2})(?:\.\d{1,3})?(?:(?:a|b|rc)\d{1,2})?\+?$/.exec(version);
  return m ? `${m[1]}.${m[2]}` : null;
}

export type RebuildProblem =
  | RequirementProblem
  | { kind: 'badEnvName'; value: string }
  | { kind: 'badValue'; field: 'pythonVersion'; value: string };

export interface RebuildInputs {
  envName: string;
  /** "3.10", or null to take the default python. */
  pythonMinor: string | null;
  requirements: RequirementsCheck;
  /** The conda file, renamed and without the machine's prefix and torch; null without one. */
  environmentYml: string | null;
  problems: RebuildProblem[];
}

/** Everything a rebuild takes from a capture, checked; `problems` empty means it may go ahead. Pure. */
export function checkRebuildInputs(capture: EnvCapture, opts: { envName: string; allowPipOptions?: boolean; readYaml: YamlReader }): RebuildInputs {
  const problems: RebuildProblem[] = [];
  if (safeEnvName(opts.envName) !== opts.envName) problems.push({ kind: 'badEnvName', value: shownLine(opts.envName) });
  let pythonMinor: string | null = null;
  if (capture.pythonVersion !== null) {
    pythonMinor = typeof capture.pythonVersion === 'string' ? pythonMinorOf(capture.pythonVersion) : null;
    if (pythonMinor === null) problems.push({ kind: 'badValue', field: 'pythonVersion', value: shownLine(String(capture.pythonVersion)) });
  }
  const requirements = checkRequirements(capture.requirements, opts);
  problems.push(...requirements.problems);
  let environmentYml: string | null = null;
  if (capture.environmentYml) {
    const yml = checkCondaEnvironment(capture.environmentYml.length > MAX_ENVIRONMENT_YML_CHARS ? { ok: false, kind: 'tooLarge', line: 0, text: `${capture.environmentYml.length} characters` } : opts.readYaml(capture.environmentYml), opts);
    problems.push(...yml.problems);
    requirements.dropped.push(...yml.dropped);
    if (yml.env && !yml.problems.length) environmentYml = writeCondaEnvironment(yml.env, safeEnvName(opts.envName) ?? 'env');
  }
  return { envName: opts.envName, pythonMinor, requirements, environmentYml, problems };
}
