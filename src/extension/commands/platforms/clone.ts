// Clone to a Host with a Free Card…: AutoDL's way out when Power On is refused because the
// instance's host has no free GPU (该主机空闲GPU不足). The hosts with the same card free (same
// region, cheapest first) in a quick pick with their price per hour; the cost in a modal (the
// data disk is copied first, the old instance stays billing its disk until released); the clone
// sent once (app/platforms/clone.ts), waited for, and the account polled so the new instance
// appears in the tree with its login, as a created one does.
import * as vscode from 'vscode';
import { z } from 'zod';
import { canClone, chooseCandidate, cloneInstance, costOf, planClone, type ClonePlan } from '../../../app/platforms/clone';
import { gib, isCloneRefusal, type CloneCandidate, type CloneRefusal } from '../../../core/platforms/autodlClone';
import { descriptorOf } from '../../../core/platforms/descriptors';
import type { Instance } from '../../../core/instances';
import { formatCny } from '../../../core/money';
import { currentState } from '../../../core/spend';
import { forLabel } from '../../../core/text';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import type { PlatformMonitor } from '../../monitors/platforms';
import type { CommandContext } from '../../services/context';
import { powerActionsOff } from '../../services/allowPower';
import { UserError } from '../../words/errors';
import { parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';
import { platformErrorText, platformName } from '../../words/platforms';

/** A script's clone: the instance, optionally the host and name, the cost confirmed without a dialog. */
export const CloneInstanceArgs = z.strictObject({
  id: z.string().min(1).max(64),
  machineId: z.string().min(1).max(64).optional(),
  name: z.string().min(1).max(60).optional(),
  waitSeconds: z.number().int().min(0).max(7200).optional(),
  confirm: z.literal(true),
});

const SETTLE_EVERY_MS = 3000;
const DEFAULT_WAIT_S = 900;

const linked = (i: Instance): boolean => !!i.platformRef && currentState(i.intervals) !== 'released';

export function cloneRefusalText(r: CloneRefusal): string {
  switch (r.code) {
    case 'notSupported':
      return vscode.l10n.t('This account cannot clone: only an AutoDL console token account can.');
    case 'noCard':
      return vscode.l10n.t('The platform names no card for {0}: clone it in the console.', r.detail.ref);
    case 'cloning':
      return vscode.l10n.t('{0} is being cloned now ({1}): wait until that clone ends.', r.detail.ref, r.detail.rawState);
    case 'noCandidate':
      return vscode.l10n.t('No host in {0} has {1} free {2} with room for a {3} GiB data disk now ({4} hosts read). Wait and try again (Start When a Card Is Free…), or start it in no-GPU mode to reach its data.', r.detail.region || '?', r.detail.gpus, r.detail.card, gib(r.detail.dataDiskBytes), r.detail.seen);
    case 'unknownMachine':
      return vscode.l10n.t('Host {0} is not among the candidates.', r.detail.machineId);
  }
}

const priceText = (c: CloneCandidate) => (c.priceFenPerHour !== undefined ? vscode.l10n.t('{0}/h', formatCny(c.priceFenPerHour)) : vscode.l10n.t('?/h (the host shows no price)'));

/** The modal's detail: the price, the copy that takes time, the old instance that stays. */
function costDetail(plan: ClonePlan, c: CloneCandidate): string {
  const cost = costOf(plan, c);
  return [
    cost.priceFenPerHour !== undefined ? vscode.l10n.t('{0}/h while it runs (pay-as-you-go).', formatCny(cost.priceFenPerHour)) : vscode.l10n.t('The host shows no price per hour.'),
    cost.dataDiskBytes > 0 ? vscode.l10n.t('Its data disk ({0} GiB expansion) is copied first: that takes time (minutes for a large disk) before the clone runs; the expansion bills on the clone too.', gib(cost.dataDiskBytes)) : vscode.l10n.t('Its data disk is copied first: that takes time before the clone runs.'),
    vscode.l10n.t('{0} stays, shut down, billing its paid data disk (if any) until you release it in the console.', plan.source.name),
  ].join('\n\n');
}

export async function cloneInstanceCommand(ctx: CommandContext, mon: PlatformMonitor, arg: unknown): Promise<string | undefined> {
  const scripted = isScripted(arg) ? parseArgs(CloneInstanceArgs, arg) : undefined;
  const inst = await pickInstance(ctx, scripted ? { id: scripted.id } : arg, linked);
  if (!inst) return undefined;
  const link = await mon.link(inst);
  if (!link) throw new UserError(vscode.l10n.t('{0} is not linked to a connected platform account.', inst.name));
  const { account, connector } = link;
  if (!descriptorOf(account.kind).clone || !canClone(connector)) throw new UserError(cloneRefusalText({ code: 'notSupported' }));
  if (!mon.powerAllowed(account.id)) throw powerActionsOff(account);
  const ref = inst.platformRef!.ref;
  const plan = await withNotificationProgress({ title: vscode.l10n.t('Looking for hosts with a free card for {0}…', inst.name) }, async () => {
    try {
      return await planClone(connector, ref);
    } catch (e) {
      throw new UserError(platformErrorText(e));
    }
  });
  if (isCloneRefusal(plan)) throw new UserError(vscode.l10n.t('Nothing cloned: {0}', cloneRefusalText(plan)));
  let target: CloneCandidate;
  if (scripted) {
    const c = chooseCandidate(plan, scripted.machineId);
    if (isCloneRefusal(c)) throw new UserError(vscode.l10n.t('Nothing cloned: {0}', cloneRefusalText(c)));
    target = c;
  } else {
    const items = plan.candidates.map((c) => ({
      label: forLabel(c.alias),
      description: `${priceText(c)} · ${forLabel(c.regionName)} · ${vscode.l10n.t('{0} free', c.idle)}${c.sameRegion ? ` · ${vscode.l10n.t('same region')}` : ''}`,
      detail: [c.machineId, c.maxDataDiskBytes !== undefined ? vscode.l10n.t('data disk up to {0} GiB', gib(c.maxDataDiskBytes)) : '', c.highestCuda ? `CUDA ≤ ${forLabel(c.highestCuda)}` : ''].filter(Boolean).join(' · '),
      candidate: c,
    }));
    const pick = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Clone {0} ({1} ×{2}) onto which host?', inst.name, plan.source.card, plan.source.gpus) });
    if (!pick) return undefined;
    target = pick.candidate;
    const go = vscode.l10n.t('Clone');
    const message = vscode.l10n.t('Clone {0} onto {1} on {2}? {3}', inst.name, target.alias, account.label, priceText(target));
    if ((await showWarning(message, { modal: true, detail: costDetail(plan, target) }, go)) !== go) return undefined;
  }
  ctx.log.info(`[${inst.id}] clone of ${account.id}/${ref} onto ${target.machineId} at ${target.priceFenPerHour ?? '?'} fen/h`);
  const waitMs = (scripted?.waitSeconds ?? DEFAULT_WAIT_S) * 1000;
  const o = await withNotificationProgress({ title: vscode.l10n.t('Cloning {0} onto {1}…', inst.name, target.alias), cancellable: true }, async (progress, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    try {
      return await cloneInstance(connector, plan, target, { ...(scripted?.name ? { name: scripted.name } : {}), settleMs: waitMs, intervalMs: SETTLE_EVERY_MS, signal: abort.signal, onProgress: (s) => progress.report({ message: s || '?' }) });
    } catch (e) {
      throw new UserError(vscode.l10n.t('Not cloned: {0}', platformErrorText(e)));
    }
  });
  // The account's list brings the clone into the tree with its login, as any platform instance.
  await mon.pollNow(true);
  if (o.status === 'unknown') {
    ctx.log.warn(`[${inst.id}] clone ${o.name}: answer lost and not listed yet (${o.reason})`);
    void showWarning(vscode.l10n.t('The platform’s answer to the clone of {0} was lost and {1} is not listed yet. It may still appear in the tree; cloning again looks for it by name first.', inst.name, o.name));
    return undefined;
  }
  if (o.status === 'failed') throw new UserError(vscode.l10n.t('The clone of {0} failed: the platform made {1} and then reported {2}. {0} is unchanged; release {1} in the console and try another host.', inst.name, o.ref, o.rawState));
  ctx.log.info(`[${inst.id}] cloned to ${o.ref} (${o.name})${o.recovered ? ' (found by name)' : ''}, ${o.rawState}`);
  if (!scripted)
    void showInfo(
      o.settled
        ? vscode.l10n.t('{0} is cloned to {1} ({2}) on {3}. It is in the Instances view; {0} stays, shut down, billing its paid data disk until you release it.', inst.name, o.name, o.rawState, platformName(account.kind))
        : vscode.l10n.t('{0} is being cloned to {1} (still {2}); it shows in the Instances view once the platform lists it.', inst.name, o.name, o.rawState || '?'),
    );
  return o.ref;
}
