// Power On / Power Off / Release through the platform: only what the connector declares, on
// accounts whose power actions are enabled, after confirming the price per hour. The action
// is sent once; then the state is read until it settles (with a deadline), shown as progress,
// and recorded at the time it was seen. After a start, the platform's SSH login (new port and
// password on AutoDL) replaces the stored one and the pooled connection is dropped.
import * as vscode from 'vscode';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import type { ReleaseCheck } from '../../../app/releaseCheck';
import { isPowered } from '../../../app/session';
import { TARGET, waitForState } from '../../../app/platforms/settle';
import { releaseThroughPlatform } from '../../../app/platforms/releaseFlow';
import { PlatformError } from '../../../app/platforms/errors';
import type { Instance } from '../../../core/instances';
import { descriptorOf } from '../../../core/platforms/descriptors';
import { can, type Capability, type Connector, type PlatformState } from '../../../core/platforms/types';
import { currentState, storageRateFor, storageUnknown } from '../../../core/spend';
import type { Account } from '../../../app/platforms/accounts';
import { PlatformPowerArgs } from '../../args';
import { releaseDialog } from '../../releaseDialog';
import { releaseNeedsStopped } from '../../../core/guards/powerOffer';
import { Commands } from '../../commandIds';
import type { PlatformMonitor } from '../../monitors/platforms';
import { formatCny } from '../../../core/money';
import { keepAliveLocked } from '../../../app/platforms/keepAlive';
import { busyText } from '../../../app/platforms/powerLock';
import { KEEP_ALIVE_MINUTES, keepAliveCostFen, noGpuRateFen } from '../../../core/platforms/keepAlive';
import { formatRate, formatRateOf } from '../../view/present';
import { afterPowerLines, type AfterPowerInput, type PowerChoice } from '../../words/powerWords';
import { guardFacts } from '../../guardDecisions';
import type { CommandContext } from '../../services/context';
import { powerActionsOff } from '../../services/allowPower';
import { UserError, UserErrorWithActions } from '../../words/errors';
import { parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';
import { confirmReleaseAnyway, dialogCheck, runReleaseCheck, scriptedRefusal, syncBeforeRelease } from '../remote/releaseCheck';
import { platformErrorText, platformName, platformStateLabel } from '../../words/platforms';

type Action = 'powerOn' | 'powerOff' | 'release';
const SETTLE_DEADLINE_MS = 5 * 60_000;
const SETTLE_EVERY_MS = 2000;

const linked = (i: Instance): boolean => !!i.platformRef && currentState(i.intervals) !== 'released';

async function target(ctx: CommandContext, mon: PlatformMonitor, arg: unknown) {
  const scripted = isScripted(arg) ? parseArgs(PlatformPowerArgs, arg) : undefined;
  const inst = await pickInstance(ctx, scripted ?? arg, linked);
  if (!inst) return undefined;
  const link = await mon.link(inst);
  if (!link) throw new UserError(vscode.l10n.t('{0} is not linked to a connected platform account.', inst.name));
  return { scripted, inst, ...link };
}

function modes(kind: Account['kind'], action: Action): { cap: Capability; label: string }[] {
  const all: { cap: Capability; label: string; action: Action }[] = [
    { cap: 'powerOn:gpu', label: vscode.l10n.t('Power on with GPU'), action: 'powerOn' },
    { cap: 'powerOn:noGpu', label: vscode.l10n.t('Power on in no-GPU mode'), action: 'powerOn' },
    { cap: 'powerOff:keep', label: can(kind, 'powerOff:stopCharging') ? vscode.l10n.t('Power off, keep charging (billed as if it ran)') : vscode.l10n.t('Power off'), action: 'powerOff' },
    { cap: 'powerOff:stopCharging', label: vscode.l10n.t('Power off and stop charging compute (disks still bill)'), action: 'powerOff' },
    { cap: 'release', label: vscode.l10n.t('Release'), action: 'release' },
  ];
  return all.filter((m) => m.action === action && can(kind, m.cap));
}

const MODE_OF: Record<string, Capability> = { gpu: 'powerOn:gpu', noGpu: 'powerOn:noGpu', keep: 'powerOff:keep', stopCharging: 'powerOff:stopCharging' };

export async function platformAction(ctx: CommandContext, mon: PlatformMonitor, action: Action, arg: unknown): Promise<string | undefined> {
  const t = await target(ctx, mon, arg);
  if (!t) return undefined;
  const { scripted, inst, account, connector } = t;
  const offered = modes(account.kind, action);
  if (!offered.length) throw new UserError(vscode.l10n.t('{0} offers no such action through its API: do it in the platform’s console.', platformName(account.kind)));
  if (!mon.powerAllowed(account.id)) throw powerActionsOff(account);
  let cap: Capability;
  if (scripted?.mode) {
    const c = MODE_OF[scripted.mode];
    if (!c || !offered.some((m) => m.cap === c)) throw new UserError(vscode.l10n.t('{0} offers no such action through its API: do it in the platform’s console.', platformName(account.kind)));
    cap = c;
  } else if (action === 'release' || offered.length === 1) cap = offered[0]!.cap;
  else {
    const pick = await vscode.window.showQuickPick(offered.map((m) => ({ label: m.label, cap: m.cap })), { placeHolder: inst.name });
    if (!pick) return undefined;
    cap = pick.cap;
  }
  const obs = mon.observations.get(inst.id);
  const price = obs?.priceFenPerHour ?? (can(account.kind, 'price') ? await connector.price(t.inst.platformRef!.ref).then((p) => p?.fenPerHour, () => undefined) : undefined) ?? inst.pricing.hourlyRate;
  const priceText = formatRate(price, vscode.l10n);
  // What keeps billing once the action is done (disk per day, compute where keep-charging, the release day), not only the hourly price.
  const afterInput = (choice: PowerChoice): AfterPowerInput => ({ choice, pricing: { ...inst.pricing, hourlyRate: price }, keepChargesCompute: can(account.kind, 'powerOff:stopCharging'), releaseRules: guardFacts(ctx.catalog(), inst.platform).releaseRules, now: ctx.now() });
  // The folders the launches and the sync watches of this box use, each against its local copy (issue 41 bug 4).
  const check = action === 'release' ? await checkpointsAtRisk(ctx, inst, scripted?.acceptNewHostKey === true) : undefined;
  // AutoDL releases only stopped instances: then the release is power off → confirmed stopped → release.
  const stopFirst = action === 'release' && releaseNeedsStopped(account.kind) && obs?.state !== 'stopped';
  if (scripted) {
    const refused = scriptedRefusal(inst, check, scripted.discardUnsynced === true);
    if (refused) throw refused;
  } else if (action === 'release') {
    // A stopped box bills its disk only: that is its rate now, `?` where the disk size is not known (issue 41 bug 5).
    const nowText = (obs?.state ?? currentState(inst.intervals)) === 'stopped' ? formatRateOf(storageRateFor(inst.pricing, 'stopped') / 24, storageUnknown(inst.pricing, 'stopped'), vscode.l10n) : priceText;
    const extra = [vscode.l10n.t('Now: {0}', nowText), ...afterPowerLines(afterInput('release'), vscode.l10n), ...(stopFirst ? [vscode.l10n.t('{0} releases only stopped instances: it is powered off first, confirmed stopped, then released.', platformName(account.kind))] : [])];
    const canPowerOn = can(account.kind, 'powerOn:gpu') || can(account.kind, 'powerOn:noGpu');
    const d = releaseDialog({ name: inst.name, where: 'platform', accountLabel: account.label, check: dialogCheck(check), extra, canPowerOn }, vscode.l10n);
    const pick = await showWarning(d.message, { modal: true, detail: d.detail }, ...d.buttons);
    // Asked again afterwards as a tree click would (never with scripted arguments, which must confirm).
    const again = { kind: 'instance', id: inst.id };
    if (pick?.choice === 'syncFirst') {
      await syncBeforeRelease(ctx, inst, check);
      return platformAction(ctx, mon, action, again);
    }
    if (pick?.choice === 'powerOn') {
      // A stopped box cannot be synced: powered on through the platform, then synced, then asked again.
      await vscode.commands.executeCommand(Commands.powerOn, again);
      const now = ctx.store.get(inst.id);
      if (!now || !isPowered(now)) return undefined;
      const c = await checkpointsAtRisk(ctx, now, false);
      await syncBeforeRelease(ctx, now, c);
      return platformAction(ctx, mon, action, again);
    }
    if (pick?.choice !== 'release') return undefined;
    if (!(await confirmReleaseAnyway(inst, check))) return undefined;
  } else {
    const go = offered.find((m) => m.cap === cap)!.label;
    const message = vscode.l10n.t('{0} {1} on {2}? Now: {3}', go, inst.name, account.label, priceText);
    const detail = afterPowerLines(afterInput(cap as PowerChoice), vscode.l10n).join('\n\n');
    if ((await showWarning(message, { modal: true, detail }, go)) !== go) return undefined;
  }
  const ref = inst.platformRef!.ref;
  ctx.log.info(`[${inst.id}] ${cap} on ${account.id}/${ref} at ${price} fen/h`);
  const done = await withNotificationProgress({ title: vscode.l10n.t('{0}: {1}…', inst.name, offered.find((m) => m.cap === cap)!.label), cancellable: true }, async (progress, token) => {
    if (action === 'release') {
      // Power off (where the platform releases only stopped instances) and see it stopped first: the
      // sync watches stop and "about to release" fires only then, so a failed power-off leaves them
      // for an instance that still exists (app/platforms/releaseFlow).
      const flow = await releaseThroughPlatform(connector, ref, {
        stopFirst,
        deadlineMs: SETTLE_DEADLINE_MS,
        intervalMs: SETTLE_EVERY_MS,
        onStep: (step, seen) => {
          if (step === 'poweringOff') progress.report({ message: vscode.l10n.t('powering off first (released only when stopped)…') });
          else if (step === 'waitingStopped' && seen) progress.report({ message: vscode.l10n.t('waiting until stopped: {0}', platformStateLabel(seen.state)) });
          else if (step === 'releasing' && stopFirst) progress.report({ message: vscode.l10n.t('stopped; releasing…') });
        },
        beforeRelease: async () => {
          ctx.watches.stop(inst.id);
          await ctx.releases.willRelease({ inst, acceptNewHostKey: scripted?.acceptNewHostKey === true, removing: false });
        },
      }).catch((e: unknown) => {
        // The release request is sent once: a refusal is shown with the platform's own code, never retried.
        throw e instanceof PlatformError ? new UserError(platformErrorText(e)) : e;
      });
      if (flow.kind === 'powerOffFailed') throw new UserError(vscode.l10n.t('{0} was not released: the power-off before it failed: {1}', inst.name, platformErrorText(flow.error)));
      if (flow.kind === 'notStopped') {
        if (flow.last) await mon.observe(inst.id, account, flow.last);
        await ctx.store.markStillBilling(inst.id, { since: ctx.now(), action: 'powerOff', fenPerHour: price + storageRateFor(inst.pricing, 'running') / 24, why: vscode.l10n.t('it did not reach "stopped" (last seen: {0})', flow.last ? platformStateLabel(flow.last.state) : '?') }).catch(() => undefined);
        throw new UserError(vscode.l10n.t('{0} was NOT released and keeps billing {1}: it did not reach "stopped" (last seen: {2}). Stop it in the platform’s console.', inst.name, priceText, flow.last ? platformStateLabel(flow.last.state) : '?'));
      }
      if (flow.stopped) await mon.observe(inst.id, account, flow.stopped);
    } else {
      try {
        if (cap === 'powerOn:gpu' || cap === 'powerOn:noGpu') await connector.powerOn(ref, cap === 'powerOn:gpu' ? 'gpu' : 'noGpu');
        else await connector.powerOff(ref, cap === 'powerOff:keep' ? 'keep' : 'stopCharging');
      } catch (e) {
        // Sent once: a refusal is shown with the platform's own code, never retried. No free card: the ways out as buttons
        // (issue 41 friction): wait for one (Start When a Card Is Free…), or, where the platform clones, a host that has one.
        if (cap === 'powerOn:gpu' && e instanceof PlatformError && (e.failure.kind === 'noGpuOnHost' || e.failure.kind === 'noStock')) {
          const again = { kind: 'instance', id: inst.id };
          const actions = [
            { title: vscode.l10n.t('Start When a Card Is Free…'), run: () => vscode.commands.executeCommand(Commands.powerOnWhenFree, again) },
            ...(descriptorOf(account.kind).clone ? [{ title: vscode.l10n.t('Clone to a Host with a Free Card…'), run: () => vscode.commands.executeCommand(Commands.cloneInstance, again) }] : []),
          ];
          throw new UserErrorWithActions(platformErrorText(e), actions);
        }
        throw new UserError(platformErrorText(e));
      }
    }
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    const targets = cap === 'powerOn:gpu' ? TARGET.powerOnGpu : cap === 'powerOn:noGpu' ? TARGET.powerOnNoGpu : action === 'powerOff' ? TARGET.powerOff : TARGET.release;
    const deadlineMs = scripted?.waitSeconds !== undefined ? scripted.waitSeconds * 1000 : SETTLE_DEADLINE_MS;
    const r = await waitForState(connector, ref, targets, { deadlineMs, intervalMs: Math.min(SETTLE_EVERY_MS, deadlineMs / 4), signal: abort.signal, onProgress: (p) => progress.report({ message: platformStateLabel(p.state) }) }).catch((e: unknown) => {
      ctx.log.warn(`[${inst.id}] state after ${cap} could not be read: ${platformErrorText(e)}`);
      return { settled: false as const, last: undefined };
    });
    if (r.last) await mon.observe(inst.id, account, r.last);
    if (action === 'powerOn' && r.settled) await mon.refreshLogin(inst.id, account, connector as Connector);
    ctx.refresh('power', inst.id);
    const state = r.last?.state;
    // A stop the platform accepted but never carried out bills on: said loudly, and marked on the
    // row and the status bar until the instance is seen stopped (issue 22.2). Not on a cancel.
    if (!r.settled && action === 'powerOff' && !abort.signal.aborted) throw await notStopped(ctx, inst, price, state, deadlineMs);
    if (!r.settled && !scripted) void showWarning(vscode.l10n.t('{0} has not settled yet (last seen: {1}); the panel keeps following it.', inst.name, state ? platformStateLabel(state) : '?'));
    return state;
  });
  // A release that went ahead is said once (issue 41 bug 4); one still settling was said above.
  if (action === 'release' && done === 'released' && !scripted) void showInfo(vscode.l10n.t('{0} is released on {1}: its disks are deleted and it no longer bills.', inst.name, account.label));
  return done;
}

/**
 * Keep from Release: AutoDL deletes a shut-down instance, data and all, 15 days after it was
 * shut down; a start and a shut-down restart that clock. Started in no-GPU mode where the
 * account's API can (the console token, ¥0.1/h), else with its GPU at its hourly price, and shut
 * down again as soon as it runs. Opt-in, its cost stated first, each step shown; a shut-down
 * that does not happen is said loudly and marks the row like any power-off (issue 18.3). The
 * cycle itself, under the instance's power-on lock, is app/platforms/keepAlive.ts, which the
 * automatic keep-alive (monitors/keepAlive.ts, `gpu-rent schedule run`) runs too.
 */
export async function keepAlive(ctx: CommandContext, mon: PlatformMonitor, arg: unknown): Promise<string | undefined> {
  const t = await target(ctx, mon, arg);
  if (!t) return undefined;
  const { scripted, inst, account, connector } = t;
  if (!descriptorOf(account.kind).releasesStoppedOnClock) throw new UserError(vscode.l10n.t('{0} does not release stopped instances on a clock: nothing to keep alive.', platformName(account.kind)));
  if (!mon.powerAllowed(account.id)) throw powerActionsOff(account);
  const seen = mon.observations.get(inst.id)?.state ?? currentState(inst.intervals);
  if (seen !== 'stopped') throw new UserError(vscode.l10n.t('{0} is not shut down ({1}): only a shut-down instance is on the release clock.', inst.name, platformStateLabel(seen as never)));
  const how = can(account.kind, 'powerOn:noGpu') ? 'noGpu' : can(account.kind, 'powerOn:gpu') ? 'gpu' : undefined;
  if (!how) throw new UserError(vscode.l10n.t('{0} offers no such action through its API: do it in the platform’s console.', platformName(account.kind)));
  const ref = inst.platformRef!.ref;
  const rate = how === 'noGpu' ? inst.pricing.noGpuModeRate || (noGpuRateFen(account.kind) ?? 0) : (mon.observations.get(inst.id)?.priceFenPerHour ?? (await connector.price(ref).then((p) => p?.fenPerHour, () => undefined)) ?? inst.pricing.hourlyRate);
  const cost = formatCny(keepAliveCostFen(rate));
  const way = how === 'noGpu' ? vscode.l10n.t('in no-GPU mode ({0})', formatRate(rate, vscode.l10n)) : vscode.l10n.t('with its GPU ({0}: this API has no no-GPU start)', formatRate(rate, vscode.l10n));
  if (!scripted) {
    const go = vscode.l10n.t('Start and Shut Down');
    const msg = vscode.l10n.t('Keep {0} from being released? GPU Rent starts it {1} and shuts it down again as soon as it runs: about {2} minutes, about {3} (any minimum charge of the platform applies). AutoDL’s 15-day clock then starts again.', inst.name, way, KEEP_ALIVE_MINUTES, cost);
    if ((await showWarning(msg, { modal: true }, go)) !== go) return undefined;
  }
  ctx.log.info(`[${inst.id}] keep-alive on ${account.id}/${ref}: start ${how}, then shut down (${rate} fen/h)`);
  const deadlineMs = scripted?.waitSeconds !== undefined ? scripted.waitSeconds * 1000 : SETTLE_DEADLINE_MS;
  const every = Math.min(SETTLE_EVERY_MS, deadlineMs / 4);
  const started = ctx.now();
  const state = await withNotificationProgress({ title: vscode.l10n.t('Keeping {0} from release…', inst.name) }, async (progress) => {
    const r = await keepAliveLocked(mon.powerLocks, account.id, connector, ref, how, {
      deadlineMs,
      intervalMs: every,
      onStep: (step) => {
        if (step === 'starting') progress.report({ message: vscode.l10n.t('starting {0}…', way) });
        else if (step === 'stopping') progress.report({ message: vscode.l10n.t('shutting down again…') });
      },
      onProgress: (p) => progress.report({ message: platformStateLabel(p.state) }),
    });
    // Each reading recorded in order: the run between is kept in the instance's intervals.
    if ((r.kind === 'done' || r.kind === 'notStopped') && r.upSeen) await mon.observe(inst.id, account, r.upSeen);
    if ((r.kind === 'stopRefused' || r.kind === 'notStopped') && r.last) await mon.observe(inst.id, account, r.last);
    ctx.refresh('power', inst.id);
    if (r.kind === 'busy') throw new UserError(vscode.l10n.t('{0} was not started: it is {1}.', inst.name, busyText(r.holder)));
    if (r.kind === 'startRefused') throw new UserError(platformErrorText(r.error));
    if (r.kind === 'stopRefused') {
      await ctx.store.markStillBilling(inst.id, { since: ctx.now(), action: 'powerOff', fenPerHour: rate + storageRateFor(inst.pricing, 'running') / 24, why: platformErrorText(r.error) }).catch(() => undefined);
      throw new UserError(vscode.l10n.t('{0} did NOT power off and keeps billing {1}: {2}', inst.name, formatRate(rate, vscode.l10n), platformErrorText(r.error)));
    }
    if (r.kind === 'notStopped') throw await notStopped(ctx, inst, rate, r.last?.state, deadlineMs);
    if (r.after) await mon.observe(inst.id, account, r.after);
    return r.after?.state;
  });
  if (!scripted) void showInfo(vscode.l10n.t('{0} ran for {1} s and is shut down again: AutoDL’s 15-day release clock starts again now.', inst.name, Math.max(1, Math.round(ctx.now() - started))));
  return state;
}

/**
 * A power-off the platform accepted but did not carry out within the wait: the row and the status
 * bar are marked (compute at `computeFen` plus the disk) until the instance is seen stopped, and
 * the error says so (issue 22.2).
 */
async function notStopped(ctx: CommandContext, inst: Instance, computeFen: number, seen: PlatformState | undefined, waitedMs: number): Promise<UserError> {
  const last = seen ? platformStateLabel(seen) : '?';
  const seconds = Math.round(waitedMs / 1000);
  await ctx.store.markStillBilling(inst.id, { since: ctx.now(), action: 'powerOff', fenPerHour: computeFen + storageRateFor(inst.pricing, 'running') / 24, why: vscode.l10n.t('the platform accepted the power-off but still reports "{0}" after {1} s', last, seconds) }).catch(() => undefined);
  ctx.refresh('power', inst.id);
  return new UserError(vscode.l10n.t('{0} did NOT power off and keeps billing {1}: the platform accepted it but still reports "{2}" after {3} s. Power it off in the platform’s console; the row stays marked until it is seen stopped.', inst.name, formatRate(computeFen, vscode.l10n), last, seconds));
}

async function checkpointsAtRisk(ctx: CommandContext, inst: Instance, acceptNewHostKey: boolean): Promise<ReleaseCheck | undefined> {
  const state = ctx.platformFacts.observations.get(inst.id)?.state;
  const s = currentState(inst.intervals);
  // What the platform last said wins over the recorded state where it says the box is down.
  const running = state !== 'stopped' && state !== 'released' && (s === 'running' || s === 'spot' || s === 'noGpu' || state === 'running' || state === 'noGpu');
  if (!running || !vscode.workspace.isTrusted) return undefined;
  return runReleaseCheck(ctx, inst, acceptNewHostKey);
}
