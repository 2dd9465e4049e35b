// Switch State: what the instance is doing now (the user does the same in the console). Each
// stretch of time keeps the price in force then.
import * as vscode from 'vscode';
import { currentState, INSTANCE_STATES, type InstanceState } from '../../../core/spend';
import { SwitchStateArgs } from '../../args';
import { peakNoticeAfterStart } from '../../monitors/peak';
import { formatRate, stateLabel } from '../../view/present';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { notReleased, parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';

export async function switchState(ctx: CommandContext, arg: unknown): Promise<InstanceState | undefined> {
  let id: string;
  let state: InstanceState;
  if (isScripted(arg) && 'state' in arg) ({ id, state } = parseArgs(SwitchStateArgs, arg));
  else {
    const inst = await pickInstance(ctx, arg, notReleased);
    if (!inst) return undefined;
    const cur = currentState(inst.intervals);
    const p = inst.pricing;
    const rate = (s: InstanceState): string => {
      const fen = s === 'running' ? p.hourlyRate : s === 'spot' ? (p.spotRate ?? p.hourlyRate) : s === 'noGpu' ? p.noGpuModeRate : 0;
      return formatRate(fen + (p.storageGbDay * p.dataDiskGb) / 24, vscode.l10n);
    };
    const pick = await vscode.window.showQuickPick(
      INSTANCE_STATES.filter((s) => s !== cur && s !== 'released').map((s) => ({ label: stateLabel(s, vscode.l10n), description: rate(s), s })),
      { placeHolder: vscode.l10n.t('Switch {0} to… (do the same in the platform’s console)', inst.name) },
    );
    if (!pick) return undefined;
    id = inst.id;
    state = pick.s;
  }
  const r = await ctx.store.switchState(id, state);
  if (!r.ok) {
    const e = r.error;
    throw new UserError(
      e.kind === 'alreadyReleased' ? vscode.l10n.t('This instance is released; add it again if you rent a new one.') : e.kind === 'sameState' ? vscode.l10n.t('The instance is already in that state.') : e.kind === 'unknownInstance' ? vscode.l10n.t('No instance with id {0}.', id) : vscode.l10n.t('The clock is before the current state began.'),
    );
  }
  ctx.log.info(`instance ${id}: state → ${state}`);
  // A stopped or released box does not answer: its pooled connection is of no use.
  if (state === 'stopped' || state === 'released') ctx.sessions.invalidate(id);
  if (state === 'running' || state === 'spot') peakNoticeAfterStart(ctx, r.instance);
  return state;
}
