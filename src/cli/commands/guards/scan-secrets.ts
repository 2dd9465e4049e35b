// `gpu-rent scan-secrets DIR...`: warns before a folder goes onto a box's unencrypted disk when
// it holds likely secrets (keys, .env files, tokens). Exit 1 when anything is found. The walk
// and the rules are src/app/secretScan.ts, the same the extension uses.
import { lstatSync } from 'node:fs';
import { scanSecrets, type SecretFinding } from '../../../app/secretScan';
import { formatHelp, parseArgs, UsageError } from '../../args';
import type { CliCommand } from '../../command';

const specs = {
  json: { type: 'boolean', description: 'print the findings as JSON' },
  'max-files': { type: 'number', valueName: 'N', min: 1, max: 10_000_000, integer: true, description: 'stop after this many files (default 200000)' },
  'max-mb': { type: 'number', valueName: 'MB', min: 1, max: 1_000_000, integer: true, description: 'stop before reading more than this many MiB of file content (default 512)' },
} as const;

const USAGE = 'gpu-rent scan-secrets DIR|FILE... [--json]';
const SUMMARY =
  'Looks for likely secrets before you upload a folder to a rented box (its data disk is not encrypted): private keys, id_rsa, *.pem, .env files, cloud and API tokens (AWS, Hugging Face hf_, OpenAI sk-, GitHub ghp_ …), tokens in git remote URLs (.git/config). Prints where, never the secret. Exit 1 when something is found. For sensitive data use secure-upload (RAM only).';

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
  summaryZh: '目录上传到机器之前，提醒其中的密钥、.env 文件和令牌。',
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
    const r = await scanSecrets(positionals, {
      relativeTo: process.cwd(),
      ...(flags['max-files'] !== undefined ? { maxFiles: flags['max-files'] } : {}),
      ...(flags['max-mb'] !== undefined ? { maxBytes: flags['max-mb'] * 1024 * 1024 } : {}),
    });
    const { findings } = r;
    if (flags.json) {
      io.stdout(JSON.stringify({ files: r.files, truncated: r.truncated, unreadable: r.unreadable, unreadableCount: r.unreadableCount, skippedLinks: r.skippedLinks, findings }, null, 2) + '\n');
    } else {
      for (const f of findings) io.stdout(`${f.path}${f.line ? `:${f.line}` : ''}: ${KIND_TEXT[f.kind]} (${f.hint})\n`);
      io.stdout(
        findings.length
          ? `${findings.length} likely secret${findings.length === 1 ? '' : 's'} in ${new Set(findings.map((f) => f.path)).size} file(s) of ${r.files} scanned. The box's disk is not encrypted: leave them out, or use secure-upload (RAM only).\n`
          : `no likely secrets in ${r.files} file${r.files === 1 ? '' : 's'}\n`,
      );
      if (r.truncated?.reason === 'maxFiles') io.stderr(`note: stopped after ${r.truncated.filesSeen} files (--max-files ${r.truncated.limit}): the rest was not checked\n`);
      if (r.truncated?.reason === 'maxBytes') io.stderr(`note: stopped after ${r.truncated.filesSeen} files, at ${Math.round(r.truncated.limit / 1024 / 1024)} MiB of content read (--max-mb): the rest was not checked\n`);
      for (const u of r.unreadable) io.stderr(`note: could not read ${u}\n`);
      if (r.unreadableCount > r.unreadable.length) io.stderr(`note: and ${r.unreadableCount - r.unreadable.length} more unreadable\n`);
    }
    return findings.length ? 1 : 0;
  },
};
