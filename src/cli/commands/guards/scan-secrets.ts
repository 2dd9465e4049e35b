// `gpu-rent scan-secrets DIR...`: warns before a folder goes onto a box's unencrypted disk when
// it holds likely secrets (keys, .env files, tokens). Exit 1 when anything is found.
import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join, relative } from 'node:path';
import { scanForSecrets, shouldReadContent, MAX_SCAN_CHARS, type ScanInput, type SecretFinding } from '../../../core/guards/secrets';
import { formatHelp, parseArgs, UsageError } from '../../args';
import type { CliCommand } from '../../command';

const specs = {
  json: { type: 'boolean', description: 'print the findings as JSON' },
  'max-files': { type: 'number', valueName: 'N', min: 1, max: 10_000_000, integer: true, description: 'stop after this many files (default 200000)' },
} as const;

const USAGE = 'gpu-rent scan-secrets DIR|FILE... [--json]';
const SUMMARY =
  'Looks for likely secrets before you upload a folder to a rented box (its data disk is not encrypted): private keys, id_rsa, *.pem, .env files, cloud and API tokens (AWS, Hugging Face hf_, OpenAI sk-, GitHub ghp_ …). Prints where, never the secret. Exit 1 when something is found. For sensitive data use secure-upload (RAM only).';

// Big generated folders: scanned by name only.
const NAME_ONLY_DIRS = new Set(['node_modules', '__pycache__', '.venv', 'venv', 'site-packages', '.tox', '.mypy_cache']);

function readHead(path: string, size: number): string | undefined {
  const n = Math.min(size, MAX_SCAN_CHARS);
  const buf = Buffer.alloc(n);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const got = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, got).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function collectScanInputs(roots: readonly string[], maxFiles: number): { inputs: ScanInput[]; truncated: boolean; unreadable: string[] } {
  const inputs: ScanInput[] = [];
  const unreadable: string[] = [];
  let truncated = false;
  const walk = (abs: string, shown: string, nameOnly: boolean) => {
    if (inputs.length >= maxFiles) {
      truncated = true;
      return;
    }
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      unreadable.push(shown);
      return;
    }
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(abs).sort();
      } catch {
        unreadable.push(shown);
        return;
      }
      const base = abs.split(/[\\/]/).pop() ?? '';
      // .git: only its config (remote URLs can carry tokens).
      if (base === '.git') {
        if (names.includes('config')) walk(join(abs, 'config'), `${shown}/config`, false);
        return;
      }
      for (const n of names) walk(join(abs, n), shown === '.' ? n : `${shown}/${n}`, nameOnly || NAME_ONLY_DIRS.has(base));
      return;
    }
    if (!st.isFile()) return;
    const content = !nameOnly && shouldReadContent(abs, st.size) ? readHead(abs, st.size) : undefined;
    inputs.push({ path: shown, content });
  };
  for (const r of roots) walk(r, relative(process.cwd(), r) || '.', false);
  return { inputs, truncated, unreadable };
}

const KIND_TEXT: Record<SecretFinding['kind'], string> = {
  privateKey: 'private key',
  sshKeyFile: 'SSH private key file',
  keyFile: 'key/certificate file',
  dotenv: '.env file',
  credentialsFile: 'credentials file',
  awsAccessKeyId: 'AWS access key id',
  awsSecretAccessKey: 'AWS secret access key',
  huggingFaceToken: 'Hugging Face token',
  openAiKey: 'OpenAI API key',
  anthropicKey: 'Anthropic API key',
  githubToken: 'GitHub token',
  gitlabToken: 'GitLab token',
  slackToken: 'Slack token',
  googleApiKey: 'Google API key',
  stripeKey: 'Stripe live key',
  aliyunAccessKeyId: '阿里云 AccessKey id',
  wandbKey: 'Weights & Biases API key',
  genericSecretAssignment: 'secret-looking assignment',
};

export const command: CliCommand = {
  name: 'scan-secrets',
  summary: 'Warn about keys, .env files and tokens in a folder before it goes onto a box.',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs);
    if (!positionals.length) throw new UsageError('expects at least one DIR or FILE to scan');
    for (const p of positionals) {
      try {
        lstatSync(p);
      } catch {
        throw new UsageError(`cannot read "${p}" (no such file or folder)`);
      }
    }
    const { inputs, truncated, unreadable } = collectScanInputs(positionals, flags['max-files'] ?? 200_000);
    const findings = scanForSecrets(inputs);
    if (flags.json) {
      io.stdout(JSON.stringify({ files: inputs.length, truncated, unreadable, findings }, null, 2) + '\n');
    } else {
      for (const f of findings) io.stdout(`${f.path}${f.line ? `:${f.line}` : ''}: ${KIND_TEXT[f.kind]} (${f.hint})\n`);
      io.stdout(
        findings.length
          ? `${findings.length} likely secret${findings.length === 1 ? '' : 's'} in ${new Set(findings.map((f) => f.path)).size} file(s) of ${inputs.length} scanned. The box's disk is not encrypted: leave them out, or use secure-upload (RAM only).\n`
          : `no likely secrets in ${inputs.length} file${inputs.length === 1 ? '' : 's'}\n`,
      );
      if (truncated) io.stderr(`note: stopped after ${inputs.length} files (--max-files)\n`);
      for (const u of unreadable) io.stderr(`note: could not read ${u}\n`);
    }
    return findings.length ? 1 : 0;
  },
};
