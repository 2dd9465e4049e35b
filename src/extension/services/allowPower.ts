// Allowing an account's power actions without hand-editing settings.json (issue 41 friction):
// the refusal "power actions are off" carries an *Allow Power Actions* button that adds the
// account's id to gpuRent.platforms.powerActions in the user settings, after a modal that says
// what it allows (power on/off, create, release: things that bill or delete).
import * as vscode from 'vscode';
import { showInfo, showWarning } from '../notify';
import { UserErrorWithActions } from '../words/errors';

/** The setting's list with `id` in it (once, the others kept in their order). */
export function withAccountAllowed(list: readonly unknown[] | undefined, id: string): string[] {
  const ids = (list ?? []).filter((x): x is string => typeof x === 'string');
  return ids.includes(id) ? ids : [...ids, id];
}

/** Asks, then adds the account to gpuRent.platforms.powerActions (user settings); true when it was added. */
export async function allowPowerActions(account: { id: string; label: string }): Promise<boolean> {
  const go = vscode.l10n.t('Allow Power Actions');
  const msg = vscode.l10n.t('Allow GPU Rent to power on, power off, create and release instances of {0} through its API? This adds "{1}" to gpuRent.platforms.powerActions in your user settings; remove it there to take it back.', account.label, account.id);
  if ((await showWarning(msg, { modal: true }, go)) !== go) return false;
  const cfg = vscode.workspace.getConfiguration('gpuRent.platforms');
  await cfg.update('powerActions', withAccountAllowed(cfg.get<unknown[]>('powerActions'), account.id), vscode.ConfigurationTarget.Global);
  void showInfo(vscode.l10n.t('Power actions are on for {0}. Run the action again.', account.label));
  return true;
}

/** The refusal while an account's power actions are off, with the button that allows them. */
export function powerActionsOff(account: { id: string; label: string }): UserErrorWithActions {
  return new UserErrorWithActions(vscode.l10n.t('Power actions are off for {0}: add "{1}" to the setting gpuRent.platforms.powerActions.', account.label, account.id), [
    { title: vscode.l10n.t('Allow Power Actions…'), run: () => allowPowerActions(account) },
  ]);
}
