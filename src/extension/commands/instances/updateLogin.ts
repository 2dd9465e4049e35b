// Update Login: after a power cycle the platform shows a new login command (port) and maybe a
// new password. The old endpoint is remembered so its pinned host key is recognised, and the
// instance's pooled connection is dropped: the next command logs in with the new details.
import * as vscode from 'vscode';
import { showInfo } from '../../notify';
import { currentState } from '../../../core/spend';
import { tryParseTarget } from '../../../remote/target';
import { loginProblemText } from '../../../app/remoteWords';
import { UpdateLoginArgs } from '../../args';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';
import { loginFromTarget, sshConfigText } from './shared';

export async function updateLogin(ctx: CommandContext, arg: unknown): Promise<void> {
  let a: { id: string; login: string; password?: string | undefined };
  if (isScripted(arg) && 'login' in arg) a = parseArgs(UpdateLoginArgs, arg);
  else {
    const inst = await pickInstance(ctx, arg, (i) => currentState(i.intervals) !== 'released');
    if (!inst) return;
    const cfg = await sshConfigText(ctx.settings());
    const login = await vscode.window.showInputBox({
      title: vscode.l10n.t('New login for {0}', inst.name),
      prompt: vscode.l10n.t('After a restart the platform shows a new login command (new port) and maybe a new password. Paste the command.'),
      value: `ssh -p ${inst.login.port} ${inst.login.user}@${inst.login.host}`,
      ignoreFocusOut: true,
      validateInput: (v) => {
        const r = tryParseTarget(v, { sshConfig: cfg });
        return r.ok ? undefined : loginProblemText(r.reason, vscode.l10n);
      },
    });
    if (!login) return;
    let password: string | undefined;
    if (inst.login.auth === 'password') {
      password = await vscode.window.showInputBox({ title: vscode.l10n.t('Password (leave empty to keep the saved one)'), password: true, ignoreFocusOut: true });
      if (password === undefined) return;
      if (password === '') password = undefined;
    }
    a = { id: inst.id, login, ...(password !== undefined ? { password } : {}) };
  }
  const inst = ctx.store.get(a.id);
  if (!inst) throw new UserError(vscode.l10n.t('No instance with id {0}.', a.id));
  const t = tryParseTarget(a.login, { sshConfig: await sshConfigText(ctx.settings()) });
  if (!t.ok) throw new UserError(vscode.l10n.t('Cannot read the login: {0}', loginProblemText(t.reason, vscode.l10n)));
  const keepPassword = inst.login.auth === 'password' && a.password === undefined && t.target.identityFiles.length === 0;
  const login = loginFromTarget(t.target, a.password ?? (keepPassword ? '' : undefined), inst.login.keyPath);
  if (keepPassword) login.auth = 'password';
  await ctx.store.setLogin(inst.id, login, a.password);
  ctx.sessions.invalidate(inst.id);
  ctx.log.info(`instance ${inst.id}: login updated to ${login.host}:${login.port}${a.password !== undefined ? ' with a new password' : ''}`);
  if (!isScripted(arg)) void showInfo(vscode.l10n.t('{0} now logs in at {1}.', inst.name, `${login.user}@${login.host}:${login.port}`));
}
