// Open in Remote-SSH: shows the Host block it will write into ~/.ssh/config and asks; the block
// goes before any `Host *` (ssh takes the first value it finds), replaces our earlier one, is
// written atomically with a backup; then Remote-SSH opens it, when installed.
import * as vscode from 'vscode';
import { showInfo } from '../../notify';
import { renderHostBlock, sshConfigPath, SshConfigValueError, writeHostBlock } from '../../../app/sshConfig';
import { RemoteSshArgs } from '../../args';
import { hostBlockOf } from '../../sshConfigEntry';
import type { CommandContext } from '../../services/context';
import { requireTrust, UserError } from '../../words/errors';
import { parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { probeWorkspace } from '../../../remote/workspaceProbe';
import type { Instance } from '../../../core/instances';

/** VS Code 1.99 and later need glibc 2.28 on the box for the Remote-SSH server. */
function needsNewGlibc(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major! > 1 || (major === 1 && minor! >= 99);
}

/**
 * What would make Remote-SSH fail or surprise on this box, read before anything is written:
 * glibc older than the server needs, conda only in login shells. Undefined when all is well or
 * the box could not be read (the open goes on; the log says why).
 */
async function remoteSshWarning(ctx: CommandContext, inst: Instance): Promise<{ blocking: boolean; text: string } | undefined> {
  try {
    const { conn } = await ctx.sessions.open(inst.id);
    const w = await probeWorkspace(conn, { network: false });
    const notes: string[] = [];
    let blocking = false;
    if (w.glibcVerdict.code === 'too-old' && needsNewGlibc(vscode.version)) {
      blocking = true;
      notes.push(vscode.l10n.t('{0} has glibc {1}; the Remote-SSH server of VS Code {2} needs glibc {3} or newer, so the window will fail to connect. Use an image with a newer system (Ubuntu 20.04 or later), or VS Code 1.98, or this extension’s terminal, sync and ports instead.', inst.name, w.glibcVerdict.version, vscode.version, w.glibcVerdict.min));
    }
    if (!w.condaNonLogin && w.condaLogin) notes.push(vscode.l10n.t('conda is on PATH only in login shells on {0}: Remote-SSH’s terminals and tasks will not find it. Run `conda init bash` on the box once.', inst.name));
    return notes.length ? { blocking, text: notes.join('\n\n') } : undefined;
  } catch (e) {
    ctx.log.warn(`[${inst.id}] could not check the box before Remote-SSH: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

export async function openInRemoteSsh(ctx: CommandContext, arg: unknown): Promise<string | undefined> {
  requireTrust();
  const a = isScripted(arg) ? parseArgs(RemoteSshArgs, arg) : undefined;
  const inst = await pickInstance(ctx, a ?? arg, powered);
  if (!inst) return undefined;
  const block = hostBlockOf(inst);
  const loc = { path: ctx.settings().sshConfigPath || undefined, env: process.env };
  const path = sshConfigPath(loc);
  let text: string;
  try {
    text = renderHostBlock(block);
  } catch (e) {
    if (e instanceof SshConfigValueError) throw new UserError(vscode.l10n.t('Not written to {0}: {1}', path, e.message));
    throw e;
  }
  if (!a) {
    const warning = await remoteSshWarning(ctx, inst);
    if (warning?.blocking) {
      const anyway = vscode.l10n.t('Open Anyway');
      if ((await showInfo(vscode.l10n.t('Remote-SSH will probably fail on {0}.', inst.name), { modal: true, detail: warning.text }, anyway)) !== anyway) return undefined;
    } else if (warning) void showInfo(warning.text);
    const write = vscode.l10n.t('Write and Open');
    const pick = await showInfo(vscode.l10n.t('Remote-SSH needs a Host entry for {0}. Add this block to {1}? (The old file is kept as a backup.)', inst.name, path), { modal: true, detail: text }, write);
    if (pick !== write) return undefined;
  }
  const written = await writeHostBlock(block, loc).catch((e: unknown) => {
    if (e instanceof SshConfigValueError) throw new UserError(vscode.l10n.t('Not written to {0}: {1}', path, e.message));
    throw e;
  });
  ctx.log.info(`[${inst.id}] ${written.changed ? 'wrote' : 'kept'} Host ${written.alias} in ${written.path}${written.backupPath ? ` (backup ${written.backupPath})` : ''}`);
  const remoteSsh = vscode.extensions.getExtension('ms-vscode-remote.remote-ssh');
  if (!remoteSsh || a?.open === false) {
    if (!a) void showInfo(vscode.l10n.t('Wrote “Host {0}” to {1}. Install the Remote - SSH extension (or your editor’s equivalent) to open it.', written.alias, written.path));
    return written.alias;
  }
  // Remote-SSH asks for the box's platform on first open unless remote.SSH.remotePlatform names it: a rented box is Linux.
  const platforms = vscode.workspace.getConfiguration('remote.SSH').get<Record<string, string>>('remotePlatform') ?? {};
  if (platforms[written.alias] !== 'linux')
    await vscode.workspace
      .getConfiguration('remote.SSH')
      .update('remotePlatform', { ...platforms, [written.alias]: 'linux' }, vscode.ConfigurationTarget.Global)
      .then(undefined, (e: unknown) => ctx.log.warn(`[${inst.id}] could not set remote.SSH.remotePlatform: ${e instanceof Error ? e.message : String(e)}`));
  if (inst.login.auth === 'password' && !a) {
    const pw = await ctx.store.getPassword(inst.id);
    if (pw) {
      const copy = vscode.l10n.t('Copy Password');
      // Only on request: the clipboard is readable by every program on the laptop.
      if ((await showInfo(vscode.l10n.t('Remote-SSH will ask for the password of {0}.', inst.name), copy)) === copy) await vscode.env.clipboard.writeText(pw);
    }
  }
  await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.parse(`vscode-remote://ssh-remote+${written.alias}/root`), { forceNewWindow: true });
  return written.alias;
}
