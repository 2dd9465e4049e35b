// The release check both release commands run (issue 41 bug 4): the folders the launches and
// the sync watches of this instance use (app/releaseCheck), compared with their local copies;
// *Sync First* pulls exactly those folders; *Release Anyway* over unsynced checkpoints is asked
// once more by name; a release that went ahead is said in one notice.
import * as vscode from 'vscode';
import { configHome } from '../../../app/platforms/accountFile';
import { checkRelease, launchFoldersOf, releaseFolders, unsyncedEntries, type CheckFolder, type ReleaseCheck } from '../../../app/releaseCheck';
import { syncRemote } from '../../../app/sync';
import type { Instance } from '../../../core/instances';
import { Commands } from '../../commandIds';
import { showWarning, withNotificationProgress } from '../../notify';
import { releaseAnywayQuestion, type ReleaseDialogInput } from '../../releaseDialog';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { syncFoldersOf } from '../sync/folders';

export async function foldersToCheck(ctx: CommandContext, inst: Instance): Promise<CheckFolder[]> {
  const launch = await launchFoldersOf(inst, configHome(process.env), (l) => ctx.log.info(`[${inst.id}] ${l}`));
  return releaseFolders(launch, syncFoldersOf(ctx, inst));
}

/** Compares every folder the box's checkpoints go to with its local copy, with a progress notice. */
export async function runReleaseCheck(ctx: CommandContext, inst: Instance, acceptNewHostKey: boolean): Promise<ReleaseCheck> {
  const folders = await foldersToCheck(ctx, inst);
  const check = await withNotificationProgress({ title: vscode.l10n.t('Comparing checkpoints on {0} with the local copy…', inst.name) }, () =>
    checkRelease(() => ctx.sessions.connect(inst, acceptNewHostKey ? { acceptNewHostKey: true } : {}), folders),
  );
  if (check.kind === 'unreachable') ctx.log.warn(`[${inst.id}] release check: the box could not be reached: ${check.detail}`);
  else for (const u of check.unreadable) ctx.log.warn(`[${inst.id}] release check: ${u.remoteDir} cannot be read: ${u.detail}`);
  return check;
}

/** The dialog's view of a check (or of a box that was not running). */
export function dialogCheck(check: ReleaseCheck | undefined): ReleaseDialogInput['check'] {
  if (!check) return { kind: 'notChecked', reason: 'notRunning' };
  if (check.kind === 'unreachable') return { kind: 'notChecked', reason: 'unreachable', detail: check.detail.slice(0, 300) };
  return { kind: 'checked', risk: check.risk, unreadable: check.unreadable };
}

/** Files at risk (their paths) and whether the check was incomplete, for the scripted refusals. */
export function scriptedRefusal(inst: Instance, check: ReleaseCheck | undefined, discardUnsynced: boolean): UserError | undefined {
  if (!check || discardUnsynced) return undefined;
  if (check.kind === 'unreachable') return new UserError(vscode.l10n.t('Could not check the checkpoint folders on {0}: unsynced work may be lost. Not released.', inst.name));
  const lost = check.risk.files.map((f) => f.rel);
  if (lost.length) return new UserError(vscode.l10n.t('{0} checkpoint files on {1} are not synced: {2}', lost.length, inst.name, lost.slice(0, 10).join(', ')));
  const u = check.unreadable[0];
  if (u) return new UserError(vscode.l10n.t('{0} on {1} could not be read by this login ({2}): unsynced work may be lost. Not released.', u.remoteDir, inst.name, u.detail));
  return undefined;
}

/** *Release Anyway* over unsynced checkpoints: asked once more by name; true when the user confirms (or nothing unsynced was found). */
export async function confirmReleaseAnyway(inst: Instance, check: ReleaseCheck | undefined): Promise<boolean> {
  const q = check?.kind === 'checked' ? releaseAnywayQuestion(inst.name, unsyncedEntries(check), vscode.l10n) : undefined;
  if (!q) return true;
  const pick = await showWarning(q.message, { modal: true, detail: q.detail }, ...q.buttons);
  return pick?.choice === 'release';
}

/**
 * *Sync First*: pulls each checked folder that has a local copy (a launch's folder into its
 * task's local folder, the instance's sync folders into theirs), verified and durable; where a
 * folder has no local copy yet, the Sync command asks for it.
 */
export async function syncBeforeRelease(ctx: CommandContext, inst: Instance, check: ReleaseCheck | undefined): Promise<void> {
  const folders = check?.kind === 'checked' ? check.folders : [];
  const direct = folders.filter((f): f is CheckFolder & { localDir: string } => f.source === 'launch' && !!f.localDir);
  const rest = folders.filter((f) => !direct.includes(f as never));
  if (direct.length) {
    const { syncOnce } = await import('../../../remote/sync');
    await withNotificationProgress({ title: vscode.l10n.t('Syncing checkpoints from {0}', inst.name), cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const conn = await ctx.sessions.connect(inst);
      for (const f of direct) {
        progress.report({ message: f.remoteDir });
        const r = await syncOnce(syncRemote(conn), { remoteDir: f.remoteDir, localDir: f.localDir, durable: true, signal: abort.signal, log: (line: string) => ctx.log.info(`[${inst.id}] sync: ${line}`) });
        ctx.log.info(`[${inst.id}] sync before release ${f.remoteDir} → ${f.localDir}: ${r.files} files, ${r.bytes} bytes${r.interrupted ? ' (cancelled)' : ''}`);
      }
    });
  }
  if (rest.length || !direct.length) await vscode.commands.executeCommand(Commands.syncCheckpoints, { kind: 'instance', id: inst.id });
}
