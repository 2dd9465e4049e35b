// `gpu-rent scan-secrets DIR...`: warns before a folder goes onto a box's unencrypted disk when
// it holds likely secrets (keys, .env files, tokens). Exit 1 when anything is found. The walk
// and the rules are src/app/secretScan.ts, the same the extension uses.
import { lstatSync } from 'node:fs';
import { scanSecrets, type SecretFinding } from '../../../app/secretScan';
import { UsageError } from '../../args';
import { defineCommand } from '../../define';
import type { CliCommand } from '../../command';
import { LANG_FLAG_SPEC } from '../../lang';
import { t } from '../../words';

const specs = {
  json: { type: 'boolean', description: 'print the findings as JSON (exit 1 adds error {code: "secrets-found", message} beside them)', zh: '以 JSON 输出发现（退出码为 1 时旁边多一个 error {code: "secrets-found", message}）' },
  'max-files': { type: 'number', valueName: 'N', min: 1, max: 10_000_000, integer: true, description: 'stop after this many files (default 200000)', zh: '扫描这么多文件后停止（默认 200000）' },
  'max-mb': { type: 'number', valueName: 'MB', min: 1, max: 1_000_000, integer: true, description: 'stop before reading more than this many MiB of file content (default 512)', zh: '读取的文件内容超过这么多 MiB 之前停止（默认 512）' },
  lang: LANG_FLAG_SPEC,
} as const;

const USAGE = 'gpu-rent scan-secrets DIR|FILE... [--json]';
const SUMMARY =
  'Looks for likely secrets before you upload a folder to a rented box (its data disk is not encrypted): private keys, id_rsa, *.pem, .env files, cloud and API tokens (AWS, Hugging Face hf_, OpenAI sk-, GitHub ghp_ …), tokens in git remote URLs (.git/config). Prints where, never the secret. Exit 1 when something is found. For sensitive data use secure-upload (RAM only).';

const SUMMARY_ZH =
  '在你把目录上传到租来的机器（其数据盘没有加密）之前，查找疑似密钥：私钥、id_rsa、*.pem、.env 文件、云服务和 API 令牌（AWS、Hugging Face hf_、OpenAI sk-、GitHub ghp_ …）、git 远程地址中的令牌（.git/config）。只打印位置，从不打印密钥本身。发现任何东西时退出码为 1。敏感数据请用 secure-upload（只放内存）。';

const KIND_ZH: Partial<Record<SecretFinding['kind'], string>> = {
  privateKey: '私钥',
  sshKeyFile: 'SSH 私钥文件',
  keyFile: '密钥/证书文件',
  dotenv: '.env 文件',
  credentialsFile: '凭据文件',
  genericSecretAssignment: '疑似密钥的赋值',
};

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

export const command: CliCommand = defineCommand({
  name: 'scan-secrets',
  summary: 'Warn about keys, .env files and tokens in a folder before it goes onto a box.',
  summaryZh: '目录上传到机器之前，提醒其中的密钥、.env 文件和令牌。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  run: async (flags, { lang, json, positionals, io }) => {
    if (!positionals.length) throw new UsageError('expects at least one DIR or FILE to scan', '需要至少一个要扫描的 DIR 或 FILE');
    for (const p of positionals) {
      try {
        lstatSync(p);
      } catch {
        throw new UsageError(`cannot read "${p}" (no such file or folder)`, `无法读取 "${p}"（没有这个文件或目录）`);
      }
    }
    const r = await scanSecrets(positionals, {
      relativeTo: process.cwd(),
      ...(flags['max-files'] !== undefined ? { maxFiles: flags['max-files'] } : {}),
      ...(flags['max-mb'] !== undefined ? { maxBytes: flags['max-mb'] * 1024 * 1024 } : {}),
    });
    // What was not checked, on stderr (text only: the JSON names it).
    if (!json) {
      if (r.truncated?.reason === 'maxFiles') io.stderr(t(lang, 'note: stopped after {0} files (--max-files {1}): the rest was not checked\n', '注意：扫描 {0} 个文件后停止（--max-files {1}）：其余的没有检查\n', r.truncated.filesSeen, r.truncated.limit));
      if (r.truncated?.reason === 'maxBytes') io.stderr(t(lang, 'note: stopped after {0} files, at {1} MiB of content read (--max-mb): the rest was not checked\n', '注意：扫描 {0} 个文件、读了 {1} MiB 内容后停止（--max-mb）：其余的没有检查\n', r.truncated.filesSeen, Math.round(r.truncated.limit / 1024 / 1024)));
      for (const u of r.unreadable) io.stderr(t(lang, 'note: could not read {0}\n', '注意：无法读取 {0}\n', u));
      if (r.unreadableCount > r.unreadable.length) io.stderr(t(lang, 'note: and {0} more unreadable\n', '注意：另有 {0} 个无法读取\n', r.unreadableCount - r.unreadable.length));
    }
    return r;
  },
  // Something found (exit 1): `error` beside the report, as every failed --json run has.
  json: (r) => {
    const fileCount = new Set(r.findings.map((f) => f.path)).size;
    const error = r.findings.length ? { code: 'secrets-found', message: `${r.findings.length} likely secret${r.findings.length === 1 ? '' : 's'} in ${fileCount} file(s) of ${r.files} scanned: leave them out of the upload, or use secure-upload (RAM only)` } : undefined;
    return { files: r.files, truncated: r.truncated, unreadable: r.unreadable, unreadableCount: r.unreadableCount, skippedLinks: r.skippedLinks, findings: r.findings, ...(error ? { error } : {}) };
  },
  text: (r, lang) => {
    const { findings } = r;
    const zh = lang === 'zh-cn';
    let out = findings.map((f) => `${f.path}${f.line ? `:${f.line}` : ''}: ${(zh ? KIND_ZH[f.kind] : undefined) ?? KIND_TEXT[f.kind]} (${f.hint})\n`).join('');
    const fileCount = new Set(findings.map((f) => f.path)).size;
    if (zh) out += findings.length ? `在扫描的 ${r.files} 个文件中，有 ${fileCount} 个文件含 ${findings.length} 处疑似密钥。机器的磁盘没有加密：请把它们排除，或用 secure-upload（只放内存）。\n` : `${r.files} 个文件中没有疑似密钥\n`;
    else
      out += findings.length
        ? `${findings.length} likely secret${findings.length === 1 ? '' : 's'} in ${fileCount} file(s) of ${r.files} scanned. The box's disk is not encrypted: leave them out, or use secure-upload (RAM only).\n`
        : `no likely secrets in ${r.files} file${r.files === 1 ? '' : 's'}\n`;
    return out;
  },
  // Something found: exit 1 in both formats (the findings are the report).
  exit: (r) => (r.findings.length ? 1 : 0),
});
