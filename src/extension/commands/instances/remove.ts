// Remove Instance: forget it here (and its password). A powered one may still bill on the
// platform, and its unsynced checkpoints are listed before asking.
import * as vscode from 'vscode';
import { showWarning, withNotificationProgress } from '../../notify';
import { currentState } from '../../../core/spend';
import { releaseRisk } from '../../../app/release';
import { RemoveArgs } from '../../args';
import { riskDetail } from '../../words/guardText';
import { stateLabel } from '../../view/present';
import type { CommandContext } from '../../services/context';
import { parseArgs, pickInstance, powered } from '../pick';
import { isScripted } from '../registry';
import { syncFoldersOf } from '../sync/folders';

export async function removeInstance(ctx: CommandContext, arg: unknown): Promise<boolean> {
  // Scripts pass `{ id, confirm: true }` or a bare id; the tree and the palette ask.
  const scripted = isScripted(arg) ? parseArgs(RemoveArgs, arg) : typeof arg === 'string' ? { id: arg } : undefined;
  const inst = await pickInstance(ctx, scripted ?? arg);
  if (!inst) return false;
  if (!scripted) {
    const state = currentState(inst.intervals);
    const msg =
      state !== 'released'
        ? vscode.l10n.t('Remove {0}? It is still {1} on the platform: removing it here does not stop billing there. Its saved password is deleted.', inst.name, stateLabel(state, vscode.l10n))
        : vscode.l10n.t('Remove {0} and its saved password?', inst.name);
    let detail: string | undefined;
    if (powered(inst) && vscode.workspace.isTrusted) {
      const f = syncFoldersOf(ctx, inst);
      const risk = await withNotificationProgress({ title: vscode.l10n.t('Comparing checkpoints on {0} with the local copy…', inst.name) }, async () => releaseRisk(await ctx.sessions.connect(inst), f.remoteDir, f.localDir))
        .then(undefined, (e: unknown) => {
          ctx.log.warn(`[${inst.id}] removal check failed: ${e instanceof Error ? e.message : String(e)}`);
          return undefined;
        });
      detail = riskDetail(risk, vscode.l10n);
    }
    const ok = vscode.l10n.t('Remove');
    if ((await showWarning(msg, { modal: true, ...(detail ? { detail } : {}) }, ok)) !== ok) return false;
  }
  ctx.watches.stop(inst.id);
  await ctx.releases.willRelease({ inst, acceptNewHostKey: false, removing: true });
  ctx.sessions.invalidate(inst.id);
  await ctx.store.remove(inst.id);
  ctx.log.info(`removed instance ${inst.id}`);
  return true;
}
