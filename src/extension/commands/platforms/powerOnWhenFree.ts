// Start When a Card Is Free: a shut-down instance's GPU power-on, tried again while the platform
// has no free card (app/platforms/waitForGpu.ts: at most one call every 15 s, backing off to 5
// minutes, longer after a rate limit), as a cancellable progress notification that shows the
// time waited; a notification when it is up. Refusals that waiting does not mend (balance,
// real-name, token, quota) end it at once with what to do. The instance's power-on lock is held
// for the whole wait: Power On, Keep from Release and the end-of-run start are refused meanwhile.
import * as vscode from 'vscode';
import { z } from 'zod';
import { PlatformError } from '../../../app/platforms/errors';
import { powerLockKey, unlockedConnector, type PowerLockHolder } from '../../../app/platforms/powerLock';
import { TARGET, waitForState } from '../../../app/platforms/settle';
import { waitForGpu } from '../../../app/platforms/waitForGpu';
import { DEFAULT_WAIT_S, MAX_WAIT_S, type RefusalAdvice } from '../../../core/platforms/gpuWait';
import type { Instance } from '../../../core/instances';
import { can } from '../../../core/platforms/types';
import { beijingDateTime, currentState } from '../../../core/spend';
import { forNotification } from '../../../core/text';
import { showInfo, showWarning, withNotificationProgress } from '../../notify';
import { formatDuration, formatRate } from '../../view/present';
import type { PlatformMonitor } from '../../monitors/platforms';
import type { CommandContext } from '../../services/context';
import { Countdown } from '../../countdown';
import { powerActionsOff } from '../../services/allowPower';
import { UserError } from '../../words/errors';
import { parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';
import { platformErrorText, platformName, platformStateLabel } from '../../words/platforms';

const Args = z.strictObject({
  id: z.string().min(1).max(64),
  /** Confirms the price per hour without a dialog (scripts). */
  confirm: z.literal(true),
  /** How long to wait for a card (default 3600 s). */
  waitSeconds: z.number().int().min(1).max(MAX_WAIT_S).optional(),
});

const SETTLE_MS = 5 * 60_000;

const linkedStopped = (i: Instance): boolean => !!i.platformRef && currentState(i.intervals) === 'stopped';

function adviceText(a: RefusalAdvice): string {
  switch (a) {
    case 'topUp':
      return vscode.l10n.t('The balance is too low: top up the account, then try again.');
    case 'realName':
      return vscode.l10n.t('Real-name verification (实名认证) is not done: finish it in the platform console, then try again.');
    case 'renewToken':
      return vscode.l10n.t('The token was refused or has expired: add the account again with a new token.');
    case 'checkKeys':
      return vscode.l10n.t('The key was refused: check the AccessKey / SecretId and its permissions.');
    case 'raiseQuota':
      return vscode.l10n.t('An account quota is used up: raise it in the console (quota centre), or release an instance you do not need.');
    case 'notFound':
      return vscode.l10n.t('The instance is gone from the account (released?).');
    case 'checkState':
      return vscode.l10n.t('The instance is not shut down (running, changing state, or another power-on is in flight).');
    default:
      return vscode.l10n.t('The platform refused the power-on for a reason that waiting does not mend.');
  }
}

/** The refusal when another power-on of the instance is in flight: here, or a `gpu-rent` in a terminal (its pid). */
export function busyWords(name: string, h: PowerLockHolder): string {
  const since = h.since > 0 ? beijingDateTime(Math.floor(h.since / 1000)) : '?';
  const what = forNotification(h.what.slice(0, 60), { max: 60 }).text;
  return h.pid ? vscode.l10n.t('{0} is already being started by {1} (pid {2}) since {3} Beijing time: nothing sent.', name, what, h.pid, since) : vscode.l10n.t('{0} is already being started by {1} since {2} Beijing time: nothing sent.', name, what, since);
}

export async function powerOnWhenFree(ctx: CommandContext, mon: PlatformMonitor, arg: unknown): Promise<string | undefined> {
  const scripted = isScripted(arg) ? parseArgs(Args, arg) : undefined;
  const inst = await pickInstance(ctx, scripted ?? arg, linkedStopped);
  if (!inst) return undefined;
  const link = await mon.link(inst);
  if (!link || !inst.platformRef) throw new UserError(vscode.l10n.t('{0} is not linked to a connected platform account.', inst.name));
  const { account, connector } = link;
  if (!can(account.kind, 'powerOn:gpu')) throw new UserError(vscode.l10n.t('{0} offers no such action through its API: do it in the platform’s console.', platformName(account.kind)));
  if (!mon.powerAllowed(account.id)) throw powerActionsOff(account);
  const seen = mon.observations.get(inst.id)?.state ?? currentState(inst.intervals);
  if (seen !== 'stopped') throw new UserError(vscode.l10n.t('{0} is not shut down ({1}): there is nothing to wait for.', inst.name, platformStateLabel(seen as never)));
  const ref = inst.platformRef.ref;
  const price = mon.observations.get(inst.id)?.priceFenPerHour ?? (can(account.kind, 'price') ? await connector.price(ref).then((p) => p?.fenPerHour, () => undefined) : undefined) ?? inst.pricing.hourlyRate;
  let waitS = scripted?.waitSeconds ?? DEFAULT_WAIT_S;
  if (!scripted) {
    const choices = [1800, 3600, 3 * 3600, 8 * 3600].map((s) => ({ label: vscode.l10n.t('Wait up to {0}', formatDuration(s, vscode.l10n)), s }));
    const pick = await vscode.window.showQuickPick(choices, { placeHolder: vscode.l10n.t('How long may GPU Rent keep trying to start {0}?', inst.name) });
    if (!pick) return undefined;
    waitS = pick.s;
    const go = vscode.l10n.t('Start When Free');
    const msg = vscode.l10n.t('Start {0} on {1} when a card is free? GPU Rent tries every 15 s at first, then less often (at most every 5 minutes), for up to {2}. Once it starts it bills {3}.', inst.name, account.label, formatDuration(waitS, vscode.l10n), formatRate(price, vscode.l10n));
    if ((await showWarning(msg, { modal: true }, go)) !== go) return undefined;
  }
  const envMin = Number(process.env.GPU_RENT_WAIT_MIN_INTERVAL_MS);
  ctx.log.info(`[${inst.id}] waiting for a card on ${account.id}/${ref} for up to ${waitS} s`);
  const countdown = new Countdown();
  return withNotificationProgress({ title: vscode.l10n.t('{0}: waiting for a free card…', inst.name), cancellable: true }, async (progress, token) => {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    abort.signal.addEventListener('abort', () => countdown.stop());
    try {
      const outcome = await waitForGpu({
        connector: unlockedConnector(connector),
        ref,
        lockKey: powerLockKey(account.id, ref),
        locks: mon.powerLocks,
        maxWaitMs: waitS * 1000,
        signal: abort.signal,
        ...(envMin > 0 ? { minIntervalMs: envMin, maxIntervalMs: envMin * 8 } : {}),
        onTry: (r) => {
          countdown.stop();
          if (!r.failure) return;
          const why = r.failure.kind === 'rateLimited' ? vscode.l10n.t('rate-limited, slowing down') : r.failure.kind === 'noStock' || r.failure.kind === 'noGpuOnHost' ? vscode.l10n.t('no free card') : vscode.l10n.t('no answer');
          if (r.nextInMs === undefined) return progress.report({ message: why });
          // "next try in N s" counts down each second until the next try (issue 41 bug 9).
          const line = (left: number) => vscode.l10n.t('waited {0} · try {1}: {2}; next try in {3} s', formatDuration(r.waitedMs / 1000, vscode.l10n), r.attempt, why, left);
          countdown.start(r.nextInMs, (left) => progress.report({ message: line(left) }));
        },
      });
      const waited = (ms: number) => formatDuration(ms / 1000, vscode.l10n);
      switch (outcome.kind) {
        case 'busy':
          throw new UserError(busyWords(inst.name, outcome.holder));
        case 'cancelled':
          ctx.log.info(`[${inst.id}] stopped waiting for a card after ${Math.round(outcome.waitedMs / 1000)} s (${outcome.attempts} tries)`);
          if (outcome.inFlight) void showWarning(vscode.l10n.t('Stopped waiting for {0} after {1}; a power-on was on its way and may still start it: the view follows its state.', inst.name, waited(outcome.waitedMs)));
          else void showInfo(vscode.l10n.t('Stopped waiting for {0} after {1}: it is still shut down.', inst.name, waited(outcome.waitedMs)));
          void mon.pollNow(true);
          return undefined;
        case 'gaveUp':
          throw new UserError(vscode.l10n.t('No free card for {0} within {1} ({2} tries; last: {3}). It is still shut down: try later, another region, or clone it to a host with a free card in the console.', inst.name, waited(outcome.waitedMs), outcome.attempts, platformErrorText(new PlatformError(outcome.last))));
        case 'refused':
          throw new UserError(`${adviceText(outcome.advice)} ${platformErrorText(new PlatformError(outcome.failure))}`);
        case 'started':
          break;
      }
      progress.report({ message: vscode.l10n.t('a card was free after {0}: starting…', waited(outcome.waitedMs)) });
      const r = await waitForState(connector, ref, TARGET.powerOnGpu, { deadlineMs: SETTLE_MS, intervalMs: 2000, signal: abort.signal, onProgress: (p) => progress.report({ message: platformStateLabel(p.state) }) }).catch((e: unknown) => {
        ctx.log.warn(`[${inst.id}] state after the start could not be read: ${platformErrorText(e)}`);
        return { settled: false as const, last: undefined };
      });
      if (r.last) await mon.observe(inst.id, account, r.last);
      if (r.settled) await mon.refreshLogin(inst.id, account, connector);
      ctx.refresh('power', inst.id);
      if (r.settled) void showInfo(vscode.l10n.t('{0} is up: a card was free after {1} of waiting.', inst.name, waited(outcome.waitedMs)));
      else void showWarning(vscode.l10n.t('{0} was started after {1} of waiting but is not running yet (last seen: {2}); the panel keeps following it.', inst.name, waited(outcome.waitedMs), r.last ? platformStateLabel(r.last.state) : '?'));
      return r.last?.state;
    } finally {
      sub.dispose();
      countdown.stop();
    }
  });
}

