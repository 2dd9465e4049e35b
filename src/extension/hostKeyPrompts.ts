// The two questions a first connection may ask: trust this host key? what is the password?
import * as vscode from 'vscode';
import { showWarning } from './notify';
import type { SessionPrompts } from '../app/session';
import type { TrustQuestion } from '../remote/hostkeys';

export function hostKeyPrompts(): SessionPrompts {
  return {
    confirmNewKey: (inst, q) => confirmNewHostKey(inst.name, q),
    askPassword: (inst, q) => askLoginPassword(inst.name, q),
  };
}

/** The trust question for a first-contact key of the box called `name` (an instance, a launch's box). */
export async function confirmNewHostKey(name: string, q: TrustQuestion): Promise<boolean> {
  const trust = vscode.l10n.t('Trust and Connect');
  const pick = await showWarning(
    vscode.l10n.t('First connection to {0} at {1}:{2}. Its {3} host key fingerprint is {4}. Trust it?', name, q.host, q.port, q.keyType, q.fingerprint),
    { modal: true, detail: vscode.l10n.t('Compare it with the fingerprint the platform shows, if it shows one. It is remembered; a later change is refused. After a restart on a new port, the same key is recognised without asking.') },
    trust,
  );
  return pick === trust;
}

/** The password prompt for a login of the box called `name`; null when dismissed. */
export async function askLoginPassword(name: string, q: { user: string; host: string; port: number }): Promise<string | null> {
  const pw = await vscode.window.showInputBox({ title: vscode.l10n.t('Password for {0} ({1}@{2}:{3})', name, q.user, q.host, q.port), password: true, ignoreFocusOut: true });
  return pw || null;
}
