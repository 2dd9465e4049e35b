// Words for Upload Folder to Instance's two stops: the secret scan found something, or it
// stopped at its cap before reading every file. Pure: `l10n` is passed in (vscode.l10n in the
// extension, a plain formatter in unit tests). Every message is a literal so the zh-CN bundle
// covers it. Paths are the user's own file names, shown as data (notify.ts renders them inert).
import type { SecretFinding, SecretKind } from '../../core/guards/secrets';
import type { L10n } from '../view/present';

/** At most this many findings are named in the dialog; the rest are counted (all go to the log). */
export const DIALOG_FINDINGS = 15;

export function secretKindLabel(kind: SecretKind, l10n: L10n): string {
  switch (kind) {
    case 'privateKey':
      return l10n.t('private key');
    case 'sshKeyFile':
      return l10n.t('SSH private key file');
    case 'keyFile':
      return l10n.t('key or certificate file');
    case 'dotenv':
      return l10n.t('.env file');
    case 'credentialsFile':
      return l10n.t('credentials file');
    case 'awsAccessKeyId':
      return l10n.t('AWS access key id');
    case 'awsSecretAccessKey':
      return l10n.t('AWS secret access key');
    case 'huggingFaceToken':
      return l10n.t('Hugging Face token');
    case 'openAiKey':
      return l10n.t('OpenAI API key');
    case 'anthropicKey':
      return l10n.t('Anthropic API key');
    case 'githubToken':
      return l10n.t('GitHub token');
    case 'gitlabToken':
      return l10n.t('GitLab token');
    case 'slackToken':
      return l10n.t('Slack token');
    case 'googleApiKey':
      return l10n.t('Google API key');
    case 'stripeKey':
      return l10n.t('Stripe live key');
    case 'aliyunAccessKeyId':
      return l10n.t('Aliyun AccessKey id');
    case 'wandbKey':
      return l10n.t('Weights & Biases API key');
    case 'genericSecretAssignment':
      return l10n.t('secret-looking assignment');
  }
}

export interface SecretsDialog {
  message: string;
  /** One line per finding: "path:line — kind". */
  detail: string;
  /** Files to leave out for Upload Without These Files (each flagged file once). */
  files: string[];
  buttons: { without: string; anyway: string; cancel: string };
}

/**
 * The modal shown when the scan finds likely secrets. The first button (the one VS Code's
 * dialog focuses) is the safe way on: upload without the flagged files; Cancel is the close
 * affordance (Escape); Upload Anyway comes second.
 */
export function secretsDialog(findings: readonly Pick<SecretFinding, 'path' | 'kind' | 'line'>[], folder: string, l10n: L10n): SecretsDialog {
  const files = [...new Set(findings.map((f) => f.path))];
  const lines = findings.slice(0, DIALOG_FINDINGS).map((f) => `${f.path}${f.line ? `:${f.line}` : ''} — ${secretKindLabel(f.kind, l10n)}`);
  if (findings.length > DIALOG_FINDINGS) lines.push(l10n.t('… and {0} more (all are in the GPU Rent output).', findings.length - DIALOG_FINDINGS));
  return {
    message: l10n.t('{0} likely secrets in {1} files of {2}. The box’s data disk is not encrypted. Nothing was sent.', findings.length, files.length, folder),
    detail: lines.join('\n'),
    files,
    buttons: { without: l10n.t('Upload Without These Files'), anyway: l10n.t('Upload Anyway'), cancel: l10n.t('Cancel') },
  };
}

export interface UnscannedDialog {
  message: string;
  detail: string;
  buttons: { scanAll: string; anyway: string; cancel: string };
}

/**
 * The modal shown when the scan stopped at its cap. The first button scans everything (slower,
 * sends nothing unchecked); Upload Unchecked Files comes second; Cancel is the close affordance.
 */
export function unscannedDialog(scan: { truncated: { reason: 'maxFiles' | 'maxBytes'; filesSeen: number; limit: number }; unscanned: number }, folder: string, l10n: L10n): UnscannedDialog {
  const t = scan.truncated;
  const limit = t.reason === 'maxBytes' ? l10n.t('{0} MiB of file content', Math.round(t.limit / 1024 / 1024)) : l10n.t('{0} files', t.limit);
  return {
    message: l10n.t('The secret scan of {0} stopped at its limit ({1}): {2} files were not checked. Nothing was sent.', folder, limit, scan.unscanned),
    detail: l10n.t('Every file name was checked; the content of the files after the first {0} was not read. Scan everything (slower), or upload the unchecked files as they are.', t.filesSeen),
    buttons: { scanAll: l10n.t('Scan Everything'), anyway: l10n.t('Upload Unchecked Files'), cancel: l10n.t('Cancel') },
  };
}
