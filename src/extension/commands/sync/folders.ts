// The two folders an instance syncs: on the box, and on this computer. Asked the first time
// (pre-filled from the settings), remembered on the instance, editable later (Edit Instance,
// or the Checkpoints row's "Change Sync Folders…"). Until the user chose them, the settings'
// defaults apply, so changing the settings still has an effect.
import * as vscode from 'vscode';
import { isAbsolute, relative, sep } from 'node:path';
import type { Instance } from '../../../core/instances';
import { checkRemoteDir, expandRemoteHome, resolveLocalDir, suggestedRemoteDir, type FolderProblem } from '../../../app/sync';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';

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
    case 'local-in-git':
      return vscode.l10n.t('Not a .git folder or inside one: files from the box there could run commands through git.');
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
  return { remoteDir: suggestedRemoteDir(s.syncRemoteDir, inst.lastProbe), localDir: r.ok ? r.path : undefined, localDirText: r.ok ? display(r.path) : s.syncLocalDir, chosen: false, resolveLocal };
}

/** Asks for both folders, pre-filled; undefined when cancelled. */
export async function askSyncFolders(ctx: Pick<CommandContext, 'settings'>, inst: Instance): Promise<{ remoteDir: string; localDir: string } | undefined> {
  const cur = syncFoldersOf(ctx, inst);
  const remoteDir = await vscode.window.showInputBox({
    title: vscode.l10n.t('Sync checkpoints from {0} (1/2): folder on the instance', inst.name),
    prompt: remotePrompt(inst),
    value: cur.remoteDir,
    ignoreFocusOut: true,
    validateInput: (v) => remoteDirProblem(inst, v),
  });
  if (remoteDir === undefined) return undefined;
  const remote = boxDir(inst, remoteDir);
  if (remote === undefined) return undefined;
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
  return { remoteDir: remote, localDir: cur.resolveLocal(localText) };
}

/** The box folder as typed, `~` as the login's home there (the last probe's $HOME; /root for root). */
export function boxDir(inst: Pick<Instance, 'lastProbe' | 'login'>, typed: string): string | undefined {
  return expandRemoteHome(typed, inst.lastProbe?.home, inst.login.user);
}

/** The input box's check of a box folder: `~` is allowed where the home is known. */
export function remoteDirProblem(inst: Pick<Instance, 'lastProbe' | 'login'>, typed: string): string | undefined {
  const d = boxDir(inst, typed);
  if (d === undefined) return vscode.l10n.t('The home folder on the box is not known yet: run Check GPU once, or write the full path.');
  const p = checkRemoteDir(d);
  return p ? folderProblemText(p) : undefined;
}

function remotePrompt(inst: Pick<Instance, 'lastProbe'>): string {
  const data = inst.lastProbe?.dataDir;
  if (data?.source === 'home') return vscode.l10n.t('Where your training writes checkpoints on the box. The last check found no data disk there, so the home folder ({0}) is offered; ~ is the home folder.', data.path);
  if (data) return vscode.l10n.t('Where your training writes checkpoints on the box (the last check found its data folder at {0}); ~ is the home folder.', data.path);
  return vscode.l10n.t('Where your training writes checkpoints on the box (AutoDL’s data disk is /root/autodl-tmp); ~ is the home folder.');
}

/** Remembers the chosen folders on the instance (the last sync's time and errors are kept when the folders did not change). */
export async function rememberSyncFolders(ctx: Pick<CommandContext, 'store'>, inst: Instance, f: { remoteDir: string; localDir: string }): Promise<void> {
  const same = inst.sync && inst.sync.remoteDir === f.remoteDir && inst.sync.localDir === f.localDir;
  await ctx.store.update(inst.id, { sync: same ? inst.sync : { remoteDir: f.remoteDir, localDir: f.localDir } });
}
