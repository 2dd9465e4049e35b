// Every failure a command can meet, in the user's words, with the button that helps. The
// command registry is the only place that shows them.
import * as vscode from 'vscode';
import { isAppError, type AppError } from '../../app/session';
import { isRemoteError, type RemoteError } from '../../remote/errors';
import { stateLabel } from '../view/present';
import { Commands } from '../commandIds';
import { boxFailureText, inputProblemText, loginProblemText, protocolFailureText, waitProblemText } from '../../app/remoteWords';

/** A problem the user can fix (bad input, nothing to act on): shown as is. */
export class UserError extends Error {}

/** A UserError with the buttons that offer a way out (Power On refused for no free GPU → Clone…). */
export class UserErrorWithActions extends UserError {
  constructor(message: string, readonly actions: ErrorAction[]) {
    super(message);
  }
}

/** Remote commands in Restricted Mode: shown with a "Manage Workspace Trust" button. */
export class RestrictedModeError extends UserError {
  constructor() {
    super(vscode.l10n.t('Connecting to instances is disabled in Restricted Mode, so that a folder you opened cannot make the editor log in to your boxes. Trust this workspace to use it.'));
  }
}

export function requireTrust(): void {
  if (!vscode.workspace.isTrusted) throw new RestrictedModeError();
}

/** A button under an error notification and what it runs. */
export interface ErrorAction {
  title: string;
  run: () => Thenable<unknown> | void;
}

export interface ShownError {
  message: string;
  actions: ErrorAction[];
  /** Modal detail (fingerprints), when the message needs more than a line. */
  detail?: string;
}

export function remoteErrorText(e: RemoteError, where: string): string {
  switch (e.code) {
    case 'bad-target':
      // An argument that is not the login (a job name, --gpus, a folder on the box) says only what is wrong with it.
      if (e.is('bad-target') && e.detail.input) return inputProblemText(e.detail.input, vscode.l10n);
      return vscode.l10n.t('The login cannot be used: {0}', e.is('bad-target') && e.detail.login ? loginProblemText(e.detail.login, vscode.l10n) : e.message);
    case 'host-key-changed':
      return vscode.l10n.t('The host key of {0} changed since the last connection. Nothing was sent: no password, no command. If the platform really moved your instance, review the pinned entry; otherwise someone may be in between.', where);
    case 'host-key-unknown':
      return vscode.l10n.t('The host key of {0} was not trusted, so nothing was sent.', where);
    case 'auth-failed':
      return vscode.l10n.t('{0} refused the login. After a restart the platform may show a new password: paste the new login command.', where);
    case 'no-credentials':
      return vscode.l10n.t('No password or key to log in to {0} with.', where);
    case 'connect-refused':
      return vscode.l10n.t('Nothing answers at {0}. The instance may be stopped, or its SSH port changed after a restart: paste the new login command.', where);
    case 'host-not-found':
      return vscode.l10n.t('The host name of {0} cannot be resolved.', where);
    case 'timeout':
      // A deadline the remote layer named (a free channel, a command's time): said with its facts.
      if (e.is('timeout') && e.detail.wait) return vscode.l10n.t('{0} (on {1})', waitProblemText(e.detail.wait, vscode.l10n), where);
      return vscode.l10n.t('{0} did not answer in time.', where);
    case 'session-limit':
      return vscode.l10n.t('{0} refused another session (too many open at once).', where);
    case 'disconnected':
      return vscode.l10n.t('The connection to {0} dropped.', where);
    case 'aborted':
      if (e.is('aborted') && e.detail.wait?.code === 'connection-closed') return vscode.l10n.t('{0} (on {1})', waitProblemText(e.detail.wait, vscode.l10n), where);
      return vscode.l10n.t('Cancelled.');
    case 'protocol':
      return vscode.l10n.t('SSH to {0} failed: {1}', where, failureText(e));
    case 'remote-failed':
      // The box ran what was asked and said no: the SSH link was fine, so the sentence leads.
      return vscode.l10n.t('{0} (on {1})', failureText(e), where);
  }
}

/** A coded box or SSH failure in the UI's language; one raised without a code keeps its message. */
function failureText(e: RemoteError): string {
  if (e.is('remote-failed') && e.detail.failure) return boxFailureText(e.detail.failure, vscode.l10n);
  if (e.is('protocol') && e.detail.failure) return protocolFailureText(e.detail.failure, vscode.l10n);
  return e.message;
}

/** Fingerprints and the pinned entry of a changed host key, for the modal detail. */
function hostKeyDetail(e: RemoteError): string | undefined {
  if (!e.is('host-key-changed')) return undefined;
  const d = e.detail;
  const lines = [
    ...d.pinned.map((p) => vscode.l10n.t('Pinned for {0}: {1} {2} ({3}, line {4})', `${p.host}:${p.port}`, p.keyType, p.fingerprint, p.knownHostsPath, p.line)),
    vscode.l10n.t('Offered now by {0}: {1} {2}', `${d.host}:${d.port}`, d.presented.keyType, d.presented.fingerprint),
  ];
  if (d.previousEndpoint) lines.push(vscode.l10n.t('The instance answered at {0} before; a power cycle keeps its key, so a different key means a different machine.', `${d.previousEndpoint.host}:${d.previousEndpoint.port}`));
  return lines.join('\n');
}

function knownHostsLocation(e: RemoteError): { path: string; line?: number } | undefined {
  if (!e.is('host-key-changed')) return undefined;
  const first = e.detail.pinned[0];
  return { path: first?.knownHostsPath ?? e.detail.knownHostsPath, ...(first ? { line: first.line } : {}) };
}

function appErrorShown(e: AppError): ShownError {
  const info = e.info;
  switch (info.kind) {
    case 'no-instance':
      return { message: vscode.l10n.t('No instance with id {0}.', info.id), actions: [] };
    case 'not-powered':
      // A linked instance is powered on through its account (the same menu's Power On), not sent to the console (issue 41 bug 4).
      if (info.linked && info.state !== 'released')
        return {
          message: vscode.l10n.t('{0} is {1}: power it on first (Power On (Platform)).', info.name, stateLabel(info.state, vscode.l10n)),
          actions: [{ title: vscode.l10n.t('Power On (Platform)'), run: () => vscode.commands.executeCommand(Commands.powerOn, { kind: 'instance', id: info.id }) }],
        };
      return {
        message: vscode.l10n.t('{0} is {1}: start it in the platform’s console, then switch its state here.', info.name, stateLabel(info.state, vscode.l10n)),
        actions: [{ title: vscode.l10n.t('Switch State'), run: () => vscode.commands.executeCommand(Commands.switchState, { kind: 'instance', id: info.id }) }],
      };
    case 'remote': {
      const where = `${info.host}:${info.port}`;
      const message = `${info.name}: ${remoteErrorText(info.remote, where)}`;
      const actions: ErrorAction[] = [];
      if (info.action === 'update-login') actions.push({ title: vscode.l10n.t('Update Login'), run: () => vscode.commands.executeCommand(Commands.updateLogin, { kind: 'instance', id: info.id }) });
      if (info.action === 'review-host-key') {
        const loc = knownHostsLocation(info.remote);
        if (loc)
          actions.push({
            title: vscode.l10n.t('Review Pinned Key'),
            run: async () => {
              const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(loc.path));
              const line = Math.max(0, (loc.line ?? 1) - 1);
              await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
            },
          });
      }
      if (info.action === 'retry') actions.push({ title: vscode.l10n.t('Show Log'), run: () => vscode.commands.executeCommand(Commands.showLog) });
      const detail = info.remote.code === 'host-key-changed' ? hostKeyDetail(info.remote) : undefined;
      return { message, actions, ...(detail ? { detail } : {}) };
    }
  }
}

/** The words and buttons for any error a command throws. */
export function shownError(e: unknown): ShownError {
  if (e instanceof RestrictedModeError) return { message: e.message, actions: [{ title: vscode.l10n.t('Manage Workspace Trust'), run: () => vscode.commands.executeCommand('workbench.trust.manage') }] };
  if (e instanceof UserErrorWithActions) return { message: e.message, actions: e.actions };
  if (isAppError(e)) return appErrorShown(e);
  if (isRemoteError(e)) {
    const d = e.detail as { host?: string; port?: number };
    return { message: remoteErrorText(e, d.host ? `${d.host}${d.port ? `:${d.port}` : ''}` : vscode.l10n.t('the instance')), actions: [] };
  }
  return { message: e instanceof Error ? e.message : String(e), actions: [] };
}
