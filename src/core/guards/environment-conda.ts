// environment.yml, read as YAML.
// The YAML is parsed outside core (src/remote/guards/environment-yml.ts, with the `yaml`
// package, every scalar a string) into the tree below; core checks the tree and writes the file
// the new box gets from the checked values only (every value double-quoted), so what conda reads
// there is exactly what was checked, whatever YAML tricks the captured file used.
import { ASKABLE_PROBLEMS, classifyRequirement, hasUrlCredential, shownLine, TORCH_FAMILY, yamlReasonEnglish, type DroppedRequirement, type RequirementProblem, type RequirementProblemKind, type YamlPart, type YamlReason } from './environment-requirements';

/** A conda export is tens of KB; past this it is not read (the YAML parser's time grows with it). */
export const MAX_ENVIRONMENT_YML_CHARS = 256 * 1024;

/** A conda env name the rebuild may use (letters, digits, `_.-`, at most 64), or null. */
export function safeEnvName(raw: string): string | null {
  const name = raw.trim();
  return /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name) ? name : null;
}

export type YamlNode =
  | { kind: 'scalar'; value: string | null; line: number }
  | { kind: 'seq'; items: YamlNode[]; line: number }
  | { kind: 'map'; entries: Array<{ key: string; line: number; value: YamlNode }>; line: number };

export type ParsedYaml = { ok: true; root: YamlNode | null } | { ok: false; line: number; text: string; kind: 'unsupportedYaml' | 'tooLarge'; reason?: YamlReason };

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
  if (!parsed.ok) return { env: null, problems: [{ file, line: parsed.line, text: shownLine(parsed.text), kind: parsed.kind, ...(parsed.reason ? { reason: parsed.reason } : {}) }], dropped };
  const env: CondaEnvironment = { channels: [], conda: [], pip: null, variables: [] };
  let refused = false;
  const problem = (line: number, text: string, kind: RequirementProblemKind, reason?: YamlReason): boolean => {
    if (!ASKABLE_PROBLEMS.has(kind)) refused = true;
    else if (opts.allowPipOptions) return true;
    problems.push({ file, line, text: shownLine(text), kind, ...(reason ? { reason } : {}) });
    return false;
  };
  const shape = (line: number, reason: YamlReason) => problem(line, yamlReasonEnglish(reason), 'wrongShape', reason);
  const str = (n: YamlNode, what: YamlPart): string | undefined => {
    if (n.kind === 'scalar' && n.value !== null) return n.value;
    shape(n.line, { code: 'not-string', what });
    return undefined;
  };
  const list = (n: YamlNode, what: YamlPart): YamlNode[] => {
    if (n.kind === 'seq') return n.items;
    if (n.kind === 'scalar' && (n.value === null || n.value === '')) return [];
    shape(n.line, { code: 'not-list', what });
    return [];
  };
  const root = parsed.root;
  if (root === null || (root.kind === 'scalar' && (root.value === null || root.value === ''))) return { env, problems, dropped };
  if (root.kind !== 'map') {
    shape(root.line, { code: 'root-not-mapping' });
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
      if (value.kind !== 'scalar') shape(value.line, { code: 'not-string', what: { part: 'key', key } });
    } else if (key === 'channels') {
      for (const item of list(value, { part: 'key', key: 'channels' })) {
        const c = str(item, { part: 'channel' });
        if (c === undefined) continue;
        if (hasUrlCredential(c) ? problem(item.line, c, 'credentialUrl') : channelOk(c) || problem(item.line, c, 'channel')) env.channels.push(c);
      }
    } else if (key === 'variables') {
      if (value.kind === 'scalar' && (value.value === null || value.value === '')) continue;
      if (value.kind !== 'map') {
        shape(value.line, { code: 'variables-not-mapping' });
        continue;
      }
      for (const v of value.entries) {
        const val = str(v.value, { part: 'variable', key: v.key });
        if (val === undefined) continue;
        if (!ENV_VAR_NAME.test(v.key)) shape(v.line, { code: 'variable-name', name: v.key });
        else if (problem(v.line, `${v.key}=${val}`, 'envVariable')) env.variables.push([v.key, val]);
      }
    } else {
      for (const item of list(value, { part: 'key', key: 'dependencies' })) {
        if (item.kind === 'map') {
          const pip = item.entries.length === 1 && item.entries[0]!.key === 'pip' ? item.entries[0]! : undefined;
          if (!pip) {
            shape(item.line, { code: 'dependency-mapping', keys: item.entries.map((e) => e.key).join(', ') });
            continue;
          }
          env.pip ??= [];
          for (const p of list(pip.value, { part: 'key', key: 'pip' })) {
            const req = str(p, { part: 'pip-requirement' });
            if (req === undefined) continue;
            const c = classifyRequirement(req);
            if (c.kind === 'drop') dropped.push({ file, line: p.line, text: shownLine(req), reason: c.reason });
            else if (c.kind === 'keep' || problem(p.line, req, c.problem)) env.pip.push(req);
          }
          continue;
        }
        const spec = str(item, { part: 'dependency' });
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
