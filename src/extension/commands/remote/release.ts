// Release Instance: lists the checkpoints on the box the local copy lacks (or holds in another
// version) and asks; "Sync First" pulls them and asks again. Memory-only uploads are wiped by
// the "about to release" hook before the release is recorded.
import * as vscode from 'vscode';
import { showWarning, withNotificationProgress } from '../../notify';
import { releaseRisk, type ReleaseRisk } from '../../../app/release';
import { ReleaseArgs } from '../../args';
import { Commands } from '../../commandIds';
import { releaseDialog } from '../../releaseDialog';
import type { CommandContext } from '../context';
import { UserError } from '../errors';
import { notReleased, parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { syncFoldersOf } from '../sync/folders';
import { switchState } from '../instances/switchState';

export async function releaseInstance(ctx: CommandContext, arg: unknown): Promise<boolean> {
  const scripted = isScripted(arg) ? parseArgs(ReleaseArgs, arg) : undefined;
  const inst = await pickInstance(ctx, scripted ?? arg, notReleased);
  if (!inst) return false;
  const reachable = powered(inst) && vscode.workspace.isTrusted;
  let risk: ReleaseRisk | undefined;
  let checkFailed = false;
  if (reachable && !scripted?.skipCheck) {
    const f = syncFoldersOf(ctx, inst);
    try {
      risk = await withNotificationProgress({ title: vscode.l10n.t('Comparing checkpoints on {0} with the local copy…', inst.name) }, async () =>
        releaseRisk(await ctx.sessions.connect(inst, scripted?.acceptNewHostKey ? { acceptNewHostKey: true } : {}), f.remoteDir, f.localDir),
      );
    } catch (e) {
      checkFailed = true;
      ctx.log.warn(`[${inst.id}] release check failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const lost = risk?.files.map((f) => f.rel) ?? [];
  if (scripted) {
    if (lost.length > 0 && !scripted.discardUnsynced) throw new UserError(vscode.l10n.t('{0} checkpoint files on {1} are not synced: {2}', lost.length, inst.name, lost.slice(0, 10).join(', ')));
    if (checkFailed && !scripted.discardUnsynced) throw new UserError(vscode.l10n.t('Could not check the checkpoint folders on {0}: unsynced work may be lost. Not released.', inst.name));
  } else {
    const d = releaseDialog({ name: inst.name, where: 'list', check: risk ? { kind: 'checked', risk } : { kind: 'notChecked', reason: reachable ? 'unreachable' : 'notRunning' } }, vscode.l10n);
    const pick = await showWarning(d.message, { modal: true, detail: d.detail }, ...d.buttons);
    if (pick?.choice === 'syncFirst') {
      await vscode.commands.executeCommand(Commands.syncCheckpoints, { kind: 'instance', id: inst.id });
      return releaseInstance(ctx, { kind: 'instance', id: inst.id });
    }
    if (pick?.choice !== 'release') return false;
  }
  if (lost.length) ctx.log.warn(`[${inst.id}] released with ${lost.length} unsynced checkpoint files`);
  ctx.watches.stop(inst.id);
  await ctx.releases.willRelease({ inst, acceptNewHostKey: scripted?.acceptNewHostKey === true, removing: false });
  await switchState(ctx, { id: inst.id, state: 'released' });
  return true;
}
