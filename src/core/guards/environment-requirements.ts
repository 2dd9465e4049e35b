// requirements.txt as the user left it: each line kept, dropped (torch family, a local path) or
// a problem (pip options, credentials, anything pip reads as more than a package). The pip
// section of an environment.yml is checked line by line with the same rules (environment-conda.ts).
export const TORCH_FAMILY = /^(torch|torchvision|torchaudio|pytorch|pytorch-cuda|pytorch-mutex|cudatoolkit|nvidia-[a-z0-9-]+-cu\d+|triton)$/i;

export function packageName(spec: string): string {
  return spec.trim().replace(/^-\s*/, '').split(/[=<>!~ @[;]/)[0]!.trim();
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
  /** For unsupportedYaml and wrongShape: what `text` says, as a code with its facts (`text` is its English, yamlReasonEnglish). */
  reason?: YamlReason;
}

/** Which part of environment.yml a wrong shape is about. */
export type YamlPart = { part: 'key'; key: string } | { part: 'variable'; key: string } | { part: 'channel' } | { part: 'pip-requirement' } | { part: 'dependency' };

/** Why an environment.yml could not be checked (unsupportedYaml) or is not what conda env export writes (wrongShape). */
export type YamlReason =
  | { code: 'nesting-columns'; max: number }
  | { code: 'tab-indent' }
  | { code: 'flow-depth'; max: number }
  | { code: 'directive' }
  | { code: 'documents'; count: number }
  /** `message`: the YAML library's own first line (data). */
  | { code: 'yaml-error'; message: string }
  | { code: 'tree-depth'; max: number }
  | { code: 'alias'; name: string }
  | { code: 'anchor'; name: string }
  | { code: 'tag'; tag: string }
  | { code: 'block-scalar' }
  | { code: 'control-value' }
  | { code: 'key-not-string' }
  | { code: 'key-anchor-tag' }
  | { code: 'merge-key' }
  | { code: 'key-control' }
  | { code: 'unknown-node' }
  | { code: 'not-string'; what: YamlPart }
  | { code: 'not-list'; what: YamlPart }
  | { code: 'root-not-mapping' }
  | { code: 'variables-not-mapping' }
  | { code: 'variable-name'; name: string }
  | { code: 'dependency-mapping'; keys: string };

function yamlPartEnglish(w: YamlPart): string {
  switch (w.part) {
    case 'key':
      return w.key;
    case 'variable':
      return `variable ${w.key}`;
    case 'channel':
      return 'a channel';
    case 'pip-requirement':
      return 'a pip requirement';
    case 'dependency':
      return 'a dependency';
  }
}

/** The English of a YAML reason, as the checks always wrote it in `text`. */
export function yamlReasonEnglish(r: YamlReason): string {
  switch (r.code) {
    case 'nesting-columns':
      return `nesting deeper than ${r.max} columns`;
    case 'tab-indent':
      return 'a tab in the indentation';
    case 'flow-depth':
      return `flow collections nested deeper than ${r.max}`;
    case 'directive':
      return 'a YAML directive (%)';
    case 'documents':
      return `${r.count} YAML documents in one file`;
    case 'yaml-error':
      return `YAML error: ${r.message}`;
    case 'tree-depth':
      return `nested deeper than ${r.max}`;
    case 'alias':
      return `an alias (*${r.name})`;
    case 'anchor':
      return `an anchor (&${r.name})`;
    case 'tag':
      return `a tag (${r.tag})`;
    case 'block-scalar':
      return 'a block scalar (| or >)';
    case 'control-value':
      return 'a value with a line break or control character';
    case 'key-not-string':
      return 'a key that is not a plain string';
    case 'key-anchor-tag':
      return 'an anchor or tag on a key';
    case 'merge-key':
      return 'a merge key (<<)';
    case 'key-control':
      return 'a key with a control character';
    case 'unknown-node':
      return 'a YAML node of an unknown kind';
    case 'not-string':
      return `${yamlPartEnglish(r.what)} is not a string`;
    case 'not-list':
      return `${yamlPartEnglish(r.what)} is not a list`;
    case 'root-not-mapping':
      return 'the file is not a mapping (name:, channels:, dependencies:)';
    case 'variables-not-mapping':
      return 'variables is not a mapping';
    case 'variable-name':
      return `variable name ${r.name}`;
    case 'dependency-mapping':
      return `a dependency mapping other than pip: (${r.keys})`;
  }
}

export interface DroppedRequirement {
  file: 'requirements.txt' | 'environment.yml';
  line: number;
  text: string;
  /** torchFamily: reinstalled for the new driver; localPath: a file on the old box. */
  reason: 'torchFamily' | 'localPath';
}

const MAX_REQUIREMENTS_CHARS = 2 * 1024 * 1024;
const REQ_NAME = '[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?';
const REQ_SPEC = '(?:===|==|!=|<=|>=|~=|<|>)\\s*[A-Za-z0-9.*+!_-]+';
const REQ_SPECS = `${REQ_SPEC}(?:\\s*,\\s*${REQ_SPEC})*`;
// name[extras] (specs | (specs) | @ url) ; markers — PEP 508 as pip freeze and people write it.
const PLAIN_REQUIREMENT = new RegExp(
  `^${REQ_NAME}\\s*(?:\\[\\s*(?:${REQ_NAME}(?:\\s*,\\s*${REQ_NAME})*\\s*)?\\]\\s*)?(?:(?:${REQ_SPECS}|\\(\\s*${REQ_SPECS}\\s*\\)|@\\s*[a-z][a-z0-9+.-]*://[^\\s;]+)\\s*)?(?:;[^#]*)?$`,
);

/** A URL whose user part is a credential: any user part over http(s), or user:password anywhere. */
export function hasUrlCredential(text: string): boolean {
  for (const m of text.matchAll(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*):\/\/([^\s/@]*)@/gi)) {
    const scheme = m[1]!.toLowerCase();
    if (m[2]!.includes(':') || /(^|\+)https?$/.test(scheme)) return true;
  }
  return false;
}

export function shownLine(text: string): string {
  const masked = text.replace(/(:\/\/)[^\s/@]*@/g, '$1***@');
  return masked.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}

const LINE_BREAK_OR_CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/;

/** How one requirement line is treated: kept, dropped (with why) or a problem. */
export function classifyRequirement(line: string): { kind: 'keep' } | { kind: 'drop'; reason: DroppedRequirement['reason'] } | { kind: 'problem'; problem: RequirementProblemKind } {
  const code = line.replace(/(^|\s)#.*$/, '').trim();
  if (hasUrlCredential(line)) return { kind: 'problem', problem: 'credentialUrl' };
  // pip splits its files at every line break Python knows (str.splitlines: \v \f \x1c-\x1e \x85
  // \u2028 \u2029 besides \n \r): one inside a line starts a second, hidden line (--index-url …).
  if (LINE_BREAK_OR_CONTROL.test(line)) return { kind: 'problem', problem: 'notARequirement' };
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
