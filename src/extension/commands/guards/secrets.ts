// Scan Folder for Secrets (Explorer context menu; works in Restricted Mode): the same walker
// and rules as `gpu-rent scan-secrets`, .git/config included, with a cut-off reported.
import * as vscode from 'vscode';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import { lstat } from 'node:fs/promises';
import { scanSecrets as scan, type SecretFinding } from '../../../app/secretScan';
import { ScanSecretsArgs } from '../../args';
import { findingLine, secretsWarning } from '../../words/guardText';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { parseArgs } from '../pick';
import { isScripted } from '../registry';

export async function scanSecrets(ctx: CommandContext, arg: unknown): Promise<{ files: number; findings: SecretFinding[]; truncated: boolean } | undefined> {
  let path: string;
  if (isScripted(arg)) path = parseArgs(ScanSecretsArgs, arg).path;
  else if (arg instanceof vscode.Uri) path = arg.fsPath;
  else {
    const f = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: vscode.l10n.t('Scan for Secrets') });
    if (!f?.[0]) return undefined;
    path = f[0].fsPath;
  }
  if (!(await lstat(path).catch(() => undefined))) throw new UserError(vscode.l10n.t('Cannot read {0}: {1}', path, 'ENOENT'));
  const r = await withNotificationProgress({ title: vscode.l10n.t('Scanning {0} for secrets…', path), cancellable: true }, (progress, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    return scan(path, { signal: abort.signal, onProgress: (p) => progress.report({ message: vscode.l10n.t('{0} files', p.filesSeen) }) });
  });
  ctx.log.info(`secret scan of ${path}: ${r.files} files, ${r.findings.length} findings${r.truncated ? `, stopped at ${r.truncated.limit} (${r.truncated.reason})` : ''}`);
  const cut = r.truncated ? ' ' + vscode.l10n.t('The scan stopped after {0} files ({1} limit): the rest was not checked.', r.truncated.filesSeen, r.truncated.reason === 'maxFiles' ? vscode.l10n.t('file') : vscode.l10n.t('size')) : '';
  if (r.findings.length === 0) (r.truncated ? showWarning : showInfo)(vscode.l10n.t('No likely secrets in {0} ({1} files checked).', path, r.files) + cut);
  else {
    for (const f of r.findings) ctx.log.warn(`secret: ${findingLine(f)}`);
    const show = vscode.l10n.t('Show Findings');
    void showWarning(secretsWarning(r.findings, path, vscode.l10n) + cut, show).then((p) => p && ctx.log.show());
  }
  return { files: r.files, findings: r.findings, truncated: r.truncated !== null };
}
