// Release Instance: lists the checkpoints on the box the local copy lacks (or holds in another
// version) in every folder its launches and sync watches use (./releaseCheck) and asks; "Sync
// First" pulls them and asks again; "Release Anyway" over unsynced checkpoints asks once more. Memory-only uploads are wiped by
// the "about to release" hook before the release is recorded.
import * as vscode from 'vscode';
import { showInfo, showWarning } from '../../notify';
import { ReleaseArgs } from '../../args';
import { releaseDialog } from '../../releaseDialog';
import type { CommandContext } from '../../services/context';
import { notReleased, parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { switchState } from '../instances/switchState';
import { confirmReleaseAnyway, dialogCheck, runReleaseCheck, scriptedRefusal, syncBeforeRelease } from './releaseCheck';

export async function releaseInstance(ctx: CommandContext, arg: unknown): Promise<boolean> {
  const scripted = isScripted(arg) ? parseArgs(ReleaseArgs, arg) : undefined;
  const inst = await pickInstance(ctx, scripted ?? arg, notReleased);
  if (!inst) return false;
  const reachable = powered(inst) && vscode.workspace.isTrusted;
  // The folders the launches and the sync watches use, each against its local copy (issue 41 bug 4).
  const check = reachable && !scripted?.skipCheck ? await runReleaseCheck(ctx, inst, scripted?.acceptNewHostKey === true) : undefined;
  const lost = check?.kind === 'checked' ? check.risk.files.map((f) => f.rel) : [];
  if (scripted) {
    const refused = scriptedRefusal(inst, check, scripted.discardUnsynced === true);
    if (refused) throw refused;
  } else {
    const d = releaseDialog({ name: inst.name, where: 'list', check: check ? dialogCheck(check) : { kind: 'notChecked', reason: reachable ? 'unreachable' : 'notRunning' } }, vscode.l10n);
    const pick = await showWarning(d.message, { modal: true, detail: d.detail }, ...d.buttons);
    if (pick?.choice === 'syncFirst') {
      await syncBeforeRelease(ctx, inst, check);
      return releaseInstance(ctx, { kind: 'instance', id: inst.id });
    }
    if (pick?.choice !== 'release') return false;
    if (!(await confirmReleaseAnyway(inst, check))) return false;
  }
  if (lost.length) ctx.log.warn(`[${inst.id}] released with ${lost.length} unsynced checkpoint files`);
  ctx.watches.stop(inst.id);
  await ctx.releases.willRelease({ inst, acceptNewHostKey: scripted?.acceptNewHostKey === true, removing: false });
  await switchState(ctx, { id: inst.id, state: 'released' });
  // The one notice that says the release went ahead.
  if (!scripted) void showInfo(vscode.l10n.t('{0} is marked released here. Release it in the platform’s console too if you have not: its data disk bills until then.', inst.name));
  return true;
}
