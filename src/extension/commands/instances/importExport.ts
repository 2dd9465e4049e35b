// Import and export of the instance list: a JSON file without secrets.
import * as vscode from 'vscode';
import { showInfo } from '../../notify';
import { readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { exportInstances, parseImport } from '../../../core/instances';
import { PathArgs } from '../../args';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { parseArgs } from '../pick';
import { isScripted } from '../registry';
import { loadProblemText } from './shared';

const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

export async function importInstances(ctx: CommandContext, arg: unknown): Promise<{ added: number; replaced: number } | undefined> {
  let path: string;
  if (isScripted(arg)) path = parseArgs(PathArgs, arg).path;
  else {
    const f = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json'] }, openLabel: vscode.l10n.t('Import') });
    if (!f?.[0]) return undefined;
    path = f[0].fsPath;
  }
  let text: string;
  try {
    const buf = await readFile(path);
    if (buf.length > MAX_IMPORT_BYTES) throw new UserError(vscode.l10n.t('{0} is larger than {1} MB: not an instance export.', path, MAX_IMPORT_BYTES / 1024 / 1024));
    text = buf.toString('utf8');
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(vscode.l10n.t('Cannot read {0}: {1}', path, (e as NodeJS.ErrnoException).code ?? String(e)));
  }
  const r = parseImport(text);
  if (!r.ok) throw new UserError(loadProblemText(r.problem));
  const res = await ctx.store.importInstances(r.instances);
  for (const i of r.instances) ctx.sessions.invalidate(i.id);
  const needPassword = r.instances.filter((i) => i.login.auth === 'password').length;
  ctx.log.info(`imported ${res.added} new and ${res.replaced} updated instances from ${path}`);
  if (!isScripted(arg)) void showInfo(vscode.l10n.t('Imported {0} new and {1} updated instances.', res.added, res.replaced) + (needPassword ? ' ' + vscode.l10n.t('Passwords are not exported; use “Update Login” to enter them.') : ''));
  return res;
}

export async function exportInstancesTo(ctx: CommandContext, arg: unknown): Promise<string | undefined> {
  let path: string;
  if (isScripted(arg)) path = parseArgs(PathArgs, arg).path;
  else {
    const f = await vscode.window.showSaveDialog({ filters: { JSON: ['json'] }, defaultUri: vscode.Uri.file(join(homedir(), 'gpu-rent-instances.json')), saveLabel: vscode.l10n.t('Export') });
    if (!f) return undefined;
    path = f.fsPath;
  }
  await writeFile(path, exportInstances(ctx.store.list()), { encoding: 'utf8', mode: 0o600 });
  ctx.log.info(`exported ${ctx.store.list().length} instances (no passwords) to ${path}`);
  if (!isScripted(arg)) void showInfo(vscode.l10n.t('Exported {0} instances to {1} (no passwords).', ctx.store.list().length, path));
  return path;
}
