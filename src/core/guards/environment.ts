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

export function safeEnvName(raw: string): string | null {
  const name = raw.trim();
  return /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name) ? name : null;
}

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

/**
 * pipOption, credentialUrl, notARequirement, channel (a conda channel that is not a well-known
 * one) and envVariable (a variable the env sets on activation) may be passed with the user's
 * yes; unsupportedYaml (anchors, aliases, tags, merge keys, several documents, block or
 * multi-line scalars, directives, deep nesting, a parse error), wrongShape and unknownKey are
 * refused: the file cannot be checked, so it cannot go to the box.
 */
export type RequirementProblemKind = 'pipOption' | 'credentialUrl' | 'notARequirement' | 'tooLarge' | 'channel' | 'envVariable' | 'unsupportedYaml' | 'wrongShape' | 'unknownKey';

/** The kinds a user may say yes to (`allowPipOptions`); any other stops the rebuild. */
export const ASKABLE_PROBLEMS: ReadonlySet<RequirementProblemKind> = new Set(['pipOption', 'credentialUrl', 'notARequirement', 'channel', 'envVariable']);

export interface RequirementProblem {
  file: 'requirements.txt' | 'environment.yml';
  /** 1-based. */
  line: number;
  /** The line, printable and at most 200 characters (a credential is masked). */
  text: string;
  kind: RequirementProblemKind;
}

export interface DroppedRequirement {
  file: 'requirements.txt' | 'environment.yml';
  line: number;
  text: string;
  /** torchFamily: reinstalled for the new driver; localPath: a file on the old box. */
  reason: 'torchFamily' | 'localPath';
}

const MAX_REQUIREMENTS_CHARS = 2 * 1024 * 1024;
/** A conda export is tens of KB; past this it is not read (the YAML parser's time grows with it). */
export const MAX_ENVIRONMENT_YML_CHARS = 256 * 1024;
const REQ_NAME = '[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?';
const REQ_SPEC = '(?:===|==|!=|<=|>=|~=|<|>)\\s*[A-Za-z0-9.*+!_-]+';
const REQ_SPECS = `${REQ_SPEC}(?:\\s*,\\s*${REQ_SPEC})*`;
// name[extras] (specs | (specs) | @ url) ; markers — PEP 508 as pip freeze and people write it.
const PLAIN_REQUIREMENT = new RegExp(
  `^${REQ_NAME}\\s*(?:\\[\\s*(?:${REQ_NAME}(?:\\s*,\\s*${REQ_NAME})*\\s*)?\\]\\s*)?(?:(?:${REQ_SPECS}|\\(\\s*${REQ_SPECS}\\s*\\)|@\\s*[a-z][a-z0-9+.-]*://[^\\s;]+)\\s*)?(?:;[^#]*)?$`,
);

/** A URL whose user part is a credential: any user part over http(s), or user:password anywhere. */
function hasUrlCredential(text: string): boolean {
  for (const m of text.matchAll(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*):\/\/([^\s/@]*)@/gi)) {
    const scheme = m[1]!.toLowerCase();
    if (m[2]!.includes(':') || /(^|\+)https?$/.test(scheme)) return true;
  }
  return false;
}

function shownLine(text: string): string {
  const masked = text.replace(/(:\/\/)[^\s/@]*@/g, '$1***@');
  return masked.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}

/** How one requirement line is treated: kept, dropped (with why) or a problem. */
function classifyRequirement(line: string): { kind: 'keep' } | { kind: 'drop'; reason: DroppedRequirement['reason'] } | { kind: 'problem'; problem: RequirementProblemKind } {
  const code = line.replace(/(^|\s)#.*$/, '').trim();
  if (hasUrlCredential(line)) return { kind: 'problem', problem: 'credentialUrl' };
  if (code.startsWith('-')) {
    // An editable install of a folder on the old box cannot be reproduced: left out, as before.
    if (/^(-e|--editable)[\s=]/.test(code) && !code.includes('://')) return { kind: 'drop', reason: 'localPath' };
    return { kind: 'problem', problem: 'pipOption' };
  }
  if (/ @ file:/.test(code) || /^\S+\s*@\s*file:/.test(code)) return { kind: 'drop', reason: 'localPath' };
  // pip reads " -x" anywhere on a line as an option, "\" as a continuation and ${VAR} from the environment.
  if (/\s-/.test(code)) return { kind: 'problem', problem: 'pipOption' };
  if (code.includes('\\') || code.includes('${') || !PLAIN_REQUIREMENT.test(code)) return { kind: 'problem', problem: 'notARequirement' };
  if (TORCH_FAMILY.test(packageName(code))) return { kind: 'drop', reason: 'torchFamily' };
  return { kind: 'keep' };
}

export interface RequirementsCheck {
  /** What the rebuild installs: the plain lines (and, when allowed, the rest) without torch. */
  text: string;
  kept: number;
  dropped: DroppedRequirement[];
  problems: RequirementProblem[];
}

/**
 * Checks requirements.txt as the user left it. Only plain requirement lines pass: pip options
 * (--extra-index-url, -r, -e of a URL, -f, --index-url …), URLs with credentials and anything
 * pip would read as more than a package are problems, unless `allowPipOptions` (the user said
 * yes to those lines), in which case they are kept as written.
 */
export function checkRequirements(raw: string, opts: { allowPipOptions?: boolean } = {}): RequirementsCheck {
  const file = 'requirements.txt' as const;
  if (raw.length > MAX_REQUIREMENTS_CHARS) return { text: '\n', kept: 0, dropped: [], problems: [{ file, line: 0, text: `${raw.length} characters`, kind: 'tooLarge' }] };
  const out: string[] = [];
  const dropped: DroppedRequirement[] = [];
  const problems: RequirementProblem[] = [];
  raw.split('\n').forEach((rawLine, i) => {
    const line = rawLine.replace(/\r$/, '').trim();
    if (!line || line.startsWith('#')) return;
    const c = classifyRequirement(line);
    if (c.kind === 'drop') dropped.push({ file, line: i + 1, text: shownLine(line), reason: c.reason });
    else if (c.kind === 'problem' && !opts.allowPipOptions) problems.push({ file, line: i + 1, text: shownLine(line), kind: c.problem });
    else out.push(line);
  });
  return { text: out.join('\n') + '\n', kept: out.length, dropped, problems };
}

// ── environment.yml, read as YAML ──
// The YAML is parsed outside core (src/remote/guards/environment-yml.ts, with the `yaml`
// package, every scalar a string) into the tree below; core checks the tree and writes the file
// the new box gets from the checked values only (every value double-quoted), so what conda reads
// there is exactly what was checked, whatever YAML tricks the captured file used.

export type YamlNode =
  | { kind: 'scalar'; value: string | null; line: number }
  | { kind: 'seq'; items: YamlNode[]; line: number }
  | { kind: 'map'; entries: Array<{ key: string; line: number; value: YamlNode }>; line: number };

export type ParsedYaml = { ok: true; root: YamlNode | null } | { ok: false; line: number; text: string; kind: 'unsupportedYaml' | 'tooLarge' };

export type YamlReader = (raw: string) => ParsedYaml;

/** A checked conda environment: only these values reach the new box. */
export interface CondaEnvironment {
  channels: string[];
  /** Conda specs, torch family and local paths left out. */
  conda: string[];
  /** The pip section's requirement lines (torch family and local paths left out); null without one. */
  pip: string[] | null;
  variables: Array<[string, string]>;
}

export interface CondaEnvironmentCheck {
  /** null when the file could not be checked (a refusal among `problems`). */
  env: CondaEnvironment | null;
  problems: RequirementProblem[];
  dropped: DroppedRequirement[];
}

// Channels a conda export names and every conda user reads from; anything else (another
// anaconda.org user's channel, a URL) is the conda form of --index-url: the user's yes first.
const KNOWN_CHANNELS: ReadonlySet<string> = new Set(['defaults', 'conda-forge', 'pytorch', 'nvidia', 'bioconda', 'main', 'r', 'msys2', 'anaconda', 'free', 'pkgs/main', 'pkgs/r', 'pkgs/free', 'pytorch-nightly', 'pytorch-lts', 'dglteam', 'huggingface', 'xformers', 'rapidsai', 'intel']);
// Public mirrors of those channels used on rented boxes in China (https only).
const MIRROR_HOSTS: ReadonlySet<string> = new Set(['mirrors.tuna.tsinghua.edu.cn', 'mirrors.ustc.edu.cn', 'mirrors.bfsu.edu.cn', 'mirrors.aliyun.com', 'mirrors.sjtug.sjtu.edu.cn', 'mirror.sjtu.edu.cn', 'mirrors.nju.edu.cn', 'mirror.nju.edu.cn', 'mirrors.zju.edu.cn', 'mirrors.hit.edu.cn', 'mirrors.cloud.tencent.com', 'mirrors.huaweicloud.com', 'repo.anaconda.com']);

function channelOk(c: string): boolean {
  if (KNOWN_CHANNELS.has(c)) return true;
  const m = /^https:\/\/([a-z0-9.-]+)(\/[A-Za-z0-9._~/-]*)?$/.exec(c);
  return m !== null && MIRROR_HOSTS.has(m[1]!);
}

const CONDA_NAME = '[A-Za-z0-9_][A-Za-z0-9_.-]*';
// name, name=1.2, name=1.2=build, name>=1,<2, "name 1.2.* build", channel::name=1.2 (conda's
// MatchSpec as exports and people write it). No brackets, URLs, paths, quotes or $.
const CONDA_SPEC = new RegExp(`^(?:(${CONDA_NAME}(?:/${CONDA_NAME})?)::)?(${CONDA_NAME})(?:[=<>!~ ][A-Za-z0-9.*+!_,|<>=~ -]*)?$`);
const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const TOP_KEYS: ReadonlySet<string> = new Set(['name', 'channels', 'dependencies', 'prefix', 'variables']);

/**
 * Checks a parsed environment.yml: top-level name/channels/dependencies/prefix/variables only,
 * channels known (or askable), conda specs plain, the pip section's items checked as
 * requirement lines, variables listed (askable). With `allowPipOptions` the askable problems
 * are kept as written; refusals stay.
 */
export function checkCondaEnvironment(parsed: ParsedYaml, opts: { allowPipOptions?: boolean } = {}): CondaEnvironmentCheck {
  const file = 'environment.yml' as const;
  const problems: RequirementProblem[] = [];
  const dropped: DroppedRequirement[] = [];
  if (!parsed.ok) return { env: null, problems: [{ file, line: parsed.line, text: shownLine(parsed.text), kind: parsed.kind }], dropped };
  const env: CondaEnvironment = { channels: [], conda: [], pip: null, variables: [] };
  let refused = false;
  const problem = (line: number, text: string, kind: RequirementProblemKind): boolean => {
    if (!ASKABLE_PROBLEMS.has(kind)) refused = true;
    else if (opts.allowPipOptions) return true;
    problems.push({ file, line, text: shownLine(text), kind });
    return false;
  };
  const shape = (line: number, text: string) => problem(line, text, 'wrongShape');
  const str = (n: YamlNode, what: string): string | undefined => {
    if (n.kind === 'scalar' && n.value !== null) return n.value;
    shape(n.line, `${what} is not a string`);
    return undefined;
  };
  const list = (n: YamlNode, what: string): YamlNode[] => {
    if (n.kind === 'seq') return n.items;
    if (n.kind === 'scalar' && (n.value === null || n.value === '')) return [];
    shape(n.line, `${what} is not a list`);
    return [];
  };
  const root = parsed.root;
  if (root === null || (root.kind === 'scalar' && (root.value === null || root.value === ''))) return { env, problems, dropped };
  if (root.kind !== 'map') {
    shape(root.line, 'the file is not a mapping (name:, channels:, dependencies:)');
    return { env: null, problems, dropped };
  }
  for (const { key, line, value } of root.entries) {
    if (!TOP_KEYS.has(key)) {
      // A scalar under an unknown key is not written to the new box; a list or mapping might
      // be read by some conda as packages, so it is refused.
      if (value.kind !== 'scalar') problem(line, key, 'unknownKey');
      continue;
    }
    if (key === 'name' || key === 'prefix') {
      if (value.kind !== 'scalar') shape(value.line, `${key} is not a string`);
    } else if (key === 'channels') {
      for (const item of list(value, 'channels')) {
        const c = str(item, 'a channel');
        if (c === undefined) continue;
        if (hasUrlCredential(c) ? problem(item.line, c, 'credentialUrl') : channelOk(c) || problem(item.line, c, 'channel')) env.channels.push(c);
      }
    } else if (key === 'variables') {
      if (value.kind === 'scalar' && (value.value === null || value.value === '')) continue;
      if (value.kind !== 'map') {
        shape(value.line, 'variables is not a mapping');
        continue;
      }
      for (const v of value.entries) {
        const val = str(v.value, `variable ${v.key}`);
        if (val === undefined) continue;
        if (!ENV_VAR_NAME.test(v.key)) shape(v.line, `variable name ${v.key}`);
        else if (problem(v.line, `${v.key}=${val}`, 'envVariable')) env.variables.push([v.key, val]);
      }
    } else {
      for (const item of list(value, 'dependencies')) {
        if (item.kind === 'map') {
          const pip = item.entries.length === 1 && item.entries[0]!.key === 'pip' ? item.entries[0]! : undefined;
          if (!pip) {
            shape(item.line, `a dependency mapping other than pip: (${item.entries.map((e) => e.key).join(', ')})`);
            continue;
          }
          env.pip ??= [];
          for (const p of list(pip.value, 'pip')) {
            const req = str(p, 'a pip requirement');
            if (req === undefined) continue;
            const c = classifyRequirement(req);
            if (c.kind === 'drop') dropped.push({ file, line: p.line, text: shownLine(req), reason: c.reason });
            else if (c.kind === 'keep' || problem(p.line, req, c.problem)) env.pip.push(req);
          }
          continue;
        }
        const spec = str(item, 'a dependency');
        if (spec === undefined) continue;
        const m = CONDA_SPEC.exec(spec);
        if (hasUrlCredential(spec)) {
          if (problem(item.line, spec, 'credentialUrl')) env.conda.push(spec);
        } else if (!m) {
          if (problem(item.line, spec, 'notARequirement')) env.conda.push(spec);
        } else if (TORCH_FAMILY.test(m[2]!)) dropped.push({ file, line: item.line, text: shownLine(spec), reason: 'torchFamily' });
        else if (m[1] !== undefined && !channelOk(m[1]) && !problem(item.line, spec, 'channel')) continue;
        else env.conda.push(spec);
      }
    }
  }
  return { env: refused ? null : env, problems, dropped };
}

/** environment.yml for the new box from checked values only: every value double-quoted (JSON strings are YAML). */
export function writeCondaEnvironment(env: CondaEnvironment, envName: string): string {
  if (safeEnvName(envName) !== envName) throw new Error(`"${envName}" is not a usable env name`);
  const q = (v: string) => JSON.stringify(v);
  const lines = [`name: ${envName}`];
  if (env.channels.length) lines.push('channels:', ...env.channels.map((c) => `  - ${q(c)}`));
  lines.push('dependencies:' + (env.conda.length || env.pip ? '' : ' []'), ...env.conda.map((c) => `  - ${q(c)}`));
  if (env.pip) lines.push(env.pip.length ? '  - pip:' : '  - pip: []', ...env.pip.map((p) => `    - ${q(p)}`));
  if (env.variables.length) lines.push('variables:', ...env.variables.map(([k, v]) => `  ${k}: ${q(v)}`));
  return lines.join('\n') + '\n';
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
