// Finds likely secrets in a folder about to be uploaded to a box's (unencrypted) disk: key files
// by name, and tokens by their published shapes. Pure: the caller walks the folder and hands
// in names and contents. Findings carry a masked hint, never the secret itself.

export type SecretKind =
  | 'privateKey' // a PEM/OpenSSH private key block in the content
  | 'sshKeyFile' // id_rsa, id_ed25519 … (not .pub)
  | 'keyFile' // *.pem, *.key, *.p12, *.pfx, *.keystore
  | 'dotenv' // .env, .env.local …
  | 'credentialsFile' // .netrc, .git-credentials, .aws/credentials, .docker/config.json, .kube/config, kaggle.json, .pgpass …
  | 'awsAccessKeyId'
  | 'awsSecretAccessKey'
  | 'huggingFaceToken'
  | 'openAiKey'
  | 'anthropicKey'
  | 'githubToken'
  | 'gitlabToken'
  | 'slackToken'
  | 'googleApiKey'
  | 'stripeKey'
  | 'aliyunAccessKeyId'
  | 'wandbKey'
  | 'genericSecretAssignment';

export interface SecretFinding {
  /** The path as given by the caller. */
  path: string;
  kind: SecretKind;
  /** 1-based line of a content match; absent for name matches. */
  line?: number;
  /** The match with all but its first 4 characters hidden ("hf_a…"), or the file name. */
  hint: string;
}

export interface ScanInput {
  path: string;
  /** Text content (or its first part); undefined when only the name is known. */
  content?: string;
}

/** Content past this many characters is not scanned (keys and .env files are small). */
export const MAX_SCAN_CHARS = 1_000_000;

const baseName = (p: string): string => {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] ?? p;
};

interface NameRule {
  kind: SecretKind;
  test: (base: string, path: string) => boolean;
}

const NAME_RULES: NameRule[] = [
  { kind: 'sshKeyFile', test: (b) => /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/.test(b) },
  { kind: 'keyFile', test: (b) => /\.(pem|key|p12|pfx|keystore|jks|ppk)$/i.test(b) && !/\.pub\.pem$/i.test(b) },
  // .env.example / .env.sample are templates: checked by content only.
  { kind: 'dotenv', test: (b) => /^\.env(\.[A-Za-z0-9_-]+)?$/.test(b) && !/^\.env\.(example|sample|template|dist)$/i.test(b) },
  {
    kind: 'credentialsFile',
    test: (b, p) =>
      /^(\.netrc|_netrc|\.git-credentials|\.pgpass|\.pypirc|kaggle\.json|\.dockercfg|credentials\.json|service[-_]account.*\.json)$/i.test(b) ||
      /(^|[\\/])\.aws[\\/]credentials$/.test(p) ||
      /(^|[\\/])\.docker[\\/]config\.json$/.test(p) ||
      /(^|[\\/])\.kube[\\/]config$/.test(p) ||
      /(^|[\\/])huggingface[\\/]token$/.test(p),
  },
];

interface ContentRule {
  kind: SecretKind;
  re: RegExp;
}

// Shapes as the issuers publish them; anchored on word boundaries to keep false hits down.
const CONTENT_RULES: ContentRule[] = [
  { kind: 'privateKey', re: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'awsAccessKeyId', re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b/ },
  { kind: 'awsSecretAccessKey', re: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}\b/i },
  { kind: 'huggingFaceToken', re: /\bhf_[A-Za-z0-9]{30,}\b/ },
  { kind: 'anthropicKey', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { kind: 'openAiKey', re: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/ },
  { kind: 'githubToken', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})\b/ },
  { kind: 'gitlabToken', re: /\bglpat-[A-Za-z0-9_-]{20,}\b/ },
  { kind: 'slackToken', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'googleApiKey', re: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: 'stripeKey', re: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}\b/ },
  { kind: 'aliyunAccessKeyId', re: /\bLTAI[A-Za-z0-9]{12,20}\b/ },
  { kind: 'wandbKey', re: /WANDB_API_KEY["']?\s*[:=]\s*["']?[0-9a-f]{40}\b/ },
  // KEY=value lines (env, shell) whose upper-case name says secret and whose value is not a placeholder or a $reference.
  {
    kind: 'genericSecretAssignment',
    re: /^[ \t]*(?:export[ \t]+)?[A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY)[A-Z0-9_]*[ \t]*=[ \t]*["']?(?!(?:your|changeme|xxx|none|null|false|true|example|placeholder)\b)[^\s"'#$<]{8,}/m,
  },
  // A quoted literal assigned to a name that says secret (code, YAML, JSON): password = "hunter2hunter2".
  {
    kind: 'genericSecretAssignment',
    re: /(?<![A-Za-z0-9_])[A-Za-z0-9_]*(?:secret|token|password|passwd|api_?key|access_?key)[A-Za-z0-9_]*["']?[ \t]*[:=][ \t]*["'](?!(?:your|changeme|xxx|none|null|example|placeholder)\b)[^\s"'$<{]{8,}["']/i,
  },
];

function mask(s: string): string {
  const shown = s.slice(0, 4);
  return s.length > 4 ? `${shown}…` : shown;
}

function looksBinary(content: string): boolean {
  return content.slice(0, 8000).includes('\u0000');
}

/** Scans one file by name and content. */
export function scanFile(input: ScanInput): SecretFinding[] {
  const findings: SecretFinding[] = [];
  if (typeof input.path !== 'string' || !input.path) return findings;
  const base = baseName(input.path);
  for (const rule of NAME_RULES) {
    if (rule.test(base, input.path)) {
      findings.push({ path: input.path, kind: rule.kind, hint: base });
      break;
    }
  }
  const content = typeof input.content === 'string' ? input.content.slice(0, MAX_SCAN_CHARS) : undefined;
  if (content === undefined || content === '' || looksBinary(content)) return findings;
  const lineStarts: number[] = [0];
  for (let i = 0; i < content.length; i++) if (content.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const lineOf = (index: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const seen = new Set<SecretKind>();
  for (const rule of CONTENT_RULES) {
    // One finding per kind per file is enough to warn; a specific kind hides the generic one.
    if (rule.kind === 'genericSecretAssignment' && seen.size > 0) continue;
    const m = rule.re.exec(content);
    if (!m) continue;
    seen.add(rule.kind);
    const text = rule.kind === 'privateKey' ? m[0] : m[0].trim();
    findings.push({ path: input.path, kind: rule.kind, line: lineOf(m.index + (m[0].length - m[0].trimStart().length)), hint: rule.kind === 'privateKey' ? text : mask(text) });
  }
  return findings;
}

/** Scans many files; findings in input order. */
export function scanForSecrets(files: readonly ScanInput[]): SecretFinding[] {
  return files.flatMap((f) => scanFile(f));
}

/** Names worth reading in full even when large folders are scanned by name only. */
export function shouldReadContent(path: string, sizeBytes: number): boolean {
  if (!(sizeBytes >= 0)) return false;
  if (sizeBytes > 4 * 1024 * 1024) return false;
  const base = baseName(path);
  // Model weights and archives are big binaries: not where tokens hide.
  if (/\.(safetensors|bin|pt|pth|ckpt|onnx|gguf|npz|npy|parquet|arrow|zip|tar|gz|tgz|xz|zst|7z|jpg|jpeg|png|gif|webp|mp4|wav|flac|h5|pkl)$/i.test(base)) return false;
  return true;
}

// ── What the walker reads (one set of rules for the CLI and the extension) ──

/** Generated folders: their files are checked by name only (a key file there still counts). */
export const NAME_ONLY_DIRS: ReadonlySet<string> = new Set(['node_modules', '__pycache__', '.venv', 'venv', 'site-packages', '.tox', '.mypy_cache', '.pytest_cache', '.ruff_cache']);

/**
 * Inside .git: the object stores and bookkeeping are skipped (packed history, not where a
 * token sits in plain text); config (remote URLs can carry tokens), modules/<name>/config,
 * FETCH_HEAD and hooks are read.
 */
export const GIT_SKIP_DIRS: ReadonlySet<string> = new Set(['objects', 'lfs', 'logs', 'refs', 'rr-cache']);
const GIT_SKIP_FILES: ReadonlySet<string> = new Set(['index', 'packed-refs', 'ORIG_HEAD', 'HEAD', 'shallow']);

export type ScanDirRule = 'walk' | 'nameOnly' | 'skip';

/** How the walker treats a folder named `name`, given whether it is already inside .git. */
export function scanDirRule(name: string, insideGit: boolean): ScanDirRule {
  if (insideGit) return GIT_SKIP_DIRS.has(name) ? 'skip' : 'walk';
  return NAME_ONLY_DIRS.has(name) ? 'nameOnly' : 'walk';
}

/** Files inside .git the walker leaves out (binary bookkeeping). */
export function skipGitFile(name: string): boolean {
  // *.sample hooks are git's own templates.
  return GIT_SKIP_FILES.has(name) || name.endsWith('.sample');
}

/** Default caps of one scan: files looked at, and bytes of content read. */
export const SCAN_MAX_FILES = 200_000;
export const SCAN_MAX_BYTES = 512 * 1024 * 1024;
