// The two folders an instance syncs: on the box, and on this computer. Asked the first time
// (pre-filled from the settings), remembered on the instance, editable later (Edit Instance,
// or the Checkpoints row's "Change Sync Folders…"). Until the user chose them, the settings'
// defaults apply, so changing the settings still has an effect.
import * as vscode from 'vscode';
import { isAbsolute, relative, sep } from 'node:path';
import type { Instance } from '../../../core/instances';
import { checkRemoteDir, resolveLocalDir, type FolderProblem } from '../../../app/sync';
import type { CommandContext } from '../context';
import { UserError } from '../errors';

export function folderProblemText(p: FolderProblem): string {
  switch (p) {
    case 'remote-not-absolute':
      return vscode.l10n.t('Use an absolute path on the box, starting with /.');
    case 'remote-dot-segment':
      return vscode.l10n.t('The path may not contain “..”.');
    case 'remote-control-char':
    case 'local-control-char':
      return vscode.l10n.t('The path may not contain control characters.');
    case 'local-empty':
      return vscode.l10n.t('Enter a value.');
    case 'local-needs-workspace':
      return vscode.l10n.t('Open a folder, or give an absolute local folder, to sync checkpoints into.');
  }
}

function workspaceRoot(): string | undefined {
  const ws = vscode.workspace.workspaceFolders?.[0];
  return ws && ws.uri.scheme === 'file' ? ws.uri.fsPath : undefined;
}

export interface SyncFolders {
  remoteDir: string;
  /** Absolute local folder, when it can be resolved (a relative default needs a workspace). */
  localDir: string | undefined;
  /** As the user sees it: relative to the workspace when inside it. */
  localDirText: string;
  /** Whether the user chose them for this instance (else: the settings' defaults). */
  chosen: boolean;
  resolveLocal(text: string): string;
}

export function syncFoldersOf(ctx: Pick<CommandContext, 'settings'>, inst: Instance): SyncFolders {
  const s = ctx.settings();
  const root = workspaceRoot();
  const resolveLocal = (text: string): string => {
    const r = resolveLocalDir(text, root);
    if (!r.ok) throw new UserError(folderProblemText(r.problem));
    return r.path;
  };
  const display = (abs: string): string => {
    if (!root) return abs;
    const rel = relative(root, abs);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : abs;
  };
  if (inst.sync) return { remoteDir: inst.sync.remoteDir, localDir: inst.sync.localDir, localDirText: display(inst.sync.localDir), chosen: true, resolveLocal };
  const r = resolveLocalDir(s.syncLocalDir, root);
  return { remoteDir: s.syncRemoteDir, localDir: r.ok ? r.path : undefined, localDirText: r.ok ? display(r.path) : s.syncLocalDir, chosen: false, resolveLocal };
}

/** Asks for both folders, pre-filled; undefined when cancelled. */
export async function askSyncFolders(ctx: Pick<CommandContext, 'settings'>, inst: Instance): Promise<{ remoteDir: string; localDir: string } | undefined> {
  const cur = syncFoldersOf(ctx, inst);
  const remoteDir = await vscode.window.showInputBox({
    title: vscode.l10n.t('Sync checkpoints from {0} (1/2): folder on the instance', inst.name),
    prompt: vscode.l10n.t('Where your training writes checkpoints on the box (AutoDL’s data disk is /root/autodl-tmp).'),
    value: cur.remoteDir,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const p = checkRemoteDir(v.trim());
      return p ? folderProblemText(p) : undefined;
    },
  });
  if (remoteDir === undefined) return undefined;
  const root = workspaceRoot();
  const localText = await vscode.window.showInputBox({
    title: vscode.l10n.t('Sync checkpoints from {0} (2/2): local folder', inst.name),
    prompt: root ? vscode.l10n.t('Relative to {0}, or an absolute path. Created if missing.', root) : vscode.l10n.t('An absolute path on this computer. Created if missing.'),
    value: cur.localDirText,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const r = resolveLocalDir(v, root);
      return r.ok ? undefined : folderProblemText(r.problem);
    },
  });
  if (localText === undefined) return undefined;
  return { remoteDir: remoteDir.trim(), localDir: cur.resolveLocal(localText) };
}

/** Remembers the chosen folders on the instance (the last sync's time and errors are kept when the folders did not change). */
export async function rememberSyncFolders(ctx: Pick<CommandContext, 'store'>, inst: Instance, f: { remoteDir: string; localDir: string }): Promise<void> {
  const same = inst.sync && inst.sync.remoteDir === f.remoteDir && inst.sync.localDir === f.localDir;
  await ctx.store.update(inst.id, { sync: same ? inst.sync : { remoteDir: f.remoteDir, localDir: f.localDir } });
}
