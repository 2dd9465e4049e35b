// What the instance commands share: words for input problems, the login from a parsed target,
// billing labels, and the SSH config the add and update prompts offer hosts from.
import * as vscode from 'vscode';
import type { LoadProblem, Login } from '../../../core/instances';
import type { BillingMode } from '../../../core/spend';
import type { SshTarget } from '../../../remote/target';
import { listSshHosts, readSshConfig } from '../../../app/sshConfig';
import type { InputProblem } from '../../input';
import type { Settings } from '../../settings';

export function problemText(p: InputProblem): string {
  switch (p) {
    case 'empty':
      return vscode.l10n.t('Enter a value.');
    case 'notNumber':
      return vscode.l10n.t('Enter a number, for example 1.98.');
    case 'negative':
      return vscode.l10n.t('The value cannot be negative.');
    case 'tooLarge':
      return vscode.l10n.t('The value is too large.');
    case 'notInteger':
      return vscode.l10n.t('Enter a whole number.');
  }
}

export function loadProblemText(p: LoadProblem): string {
  switch (p.kind) {
    case 'notJson':
      return vscode.l10n.t('The file is not JSON.');
    case 'wrongShape':
      return vscode.l10n.t('The file is not a GPU Rent instance export.');
    case 'badInstance':
      return vscode.l10n.t('Instance {0} is invalid at "{1}": {2}', p.index + 1, p.path, p.message);
    case 'duplicateId':
      return vscode.l10n.t('Instance id {0} appears twice.', p.id);
  }
}

export function loginFromTarget(t: SshTarget, password: string | undefined, keyPath: string | undefined): Login {
  const login: Login = { host: t.host, port: t.port, user: t.user ?? 'root', auth: password !== undefined ? 'password' : keyPath || t.identityFiles[0] ? 'key' : 'agent' };
  const key = keyPath ?? t.identityFiles[0];
  if (key && password === undefined) login.keyPath = key;
  if (t.alias) login.sshConfigHost = t.alias;
  return login;
}

export const billingLabel = (m: BillingMode): string =>
  m === 'hour' ? vscode.l10n.t('Hourly') : m === 'day' ? vscode.l10n.t('Daily') : m === 'week' ? vscode.l10n.t('Weekly package') : vscode.l10n.t('Monthly package');

/** The user's SSH config text (the setting's path, else ~/.ssh/config), or null. */
export async function sshConfigText(settings: Settings): Promise<string | null> {
  return readSshConfig({ path: settings.sshConfigPath || undefined, env: process.env });
}

export function sshConfigHosts(text: string | null): string[] {
  return text ? listSshHosts(text) : [];
}
