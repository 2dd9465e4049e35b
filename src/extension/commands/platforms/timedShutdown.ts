// Set Timed Shutdown…: the platform's own timed shutdown of a running instance (AutoDL console
// token), which runs while this computer sleeps. In 1, 3 or 8 hours, at a Beijing time, or
// cancelled; sent once through app/platforms/timedShutdown.ts and read back from the platform (a
// read-back that names another minute, or none, is said as a warning, never as armed).
import * as vscode from 'vscode';
import { z } from 'zod';
import { armTimedShutdown, canArmTimer, type ArmResult } from '../../../app/platforms/timedShutdown';
import { beijingDateTime, currentState } from '../../../core/spend';
import { MAX_TIMER_DAYS, parseBeijingMinute } from '../../../core/platforms/timedShutdown';
import { parseDuration } from '../../../core/task/fields';
import type { Instance } from '../../../core/instances';
import type { PlatformMonitor } from '../../monitors/platforms';
import { showInfo, showWarning } from '../../notify';
import type { CommandContext } from '../../services/context';
import { UserError } from '../../words/errors';
import { parseArgs, pickInstance } from '../pick';
import { isScripted } from '../registry';
import { powerActionsOff } from '../../services/allowPower';
import { platformErrorText, platformName } from '../../words/platforms';

const TimedShutdownArgs = z.strictObject({
  id: z.string().min(1).max(64),
  /** "3h", "90m" from now. */
  in: z.string().min(1).max(32).optional(),
  /** A Beijing time "YYYY-MM-DD HH:MM". */
  at: z.string().min(1).max(32).optional(),
  cancel: z.literal(true).optional(),
});

const running = (i: Instance): boolean => !!i.platformRef && ['running', 'noGpu', 'spot'].includes(currentState(i.intervals) ?? '');

/** The words for a sent or refused timer; `ok` when read back as asked. */
function resultText(r: ArmResult, name: string, at: number | null, kind: string): { ok: boolean; text: string } {
  if (r.kind === 'refused') {
    if (r.problem === 'notSupported') return { ok: false, text: vscode.l10n.t('{0} has no timed-shutdown request in its API (only AutoDL’s console token does): set it in the platform’s console.', kind) };
    if (r.problem === 'past') return { ok: false, text: vscode.l10n.t('{0} (Beijing) is not at least a minute from now: nothing sent.', at === null ? '?' : beijingDateTime(at)) };
    return { ok: false, text: vscode.l10n.t('{0} (Beijing) is more than {1} days ahead: nothing sent.', at === null ? '?' : beijingDateTime(at), MAX_TIMER_DAYS) };
  }
  const seen = r.seenAt !== undefined ? beijingDateTime(r.seenAt) : '?';
  if (at === null) return r.verdict === 'confirmed' ? { ok: true, text: vscode.l10n.t('The timed shutdown of {0} is cancelled (read back from the platform).', name) } : { ok: false, text: vscode.l10n.t('Cancel sent for {0}, but the platform still shows a timed shutdown at {1} (Beijing): check it in the console.', name, seen) };
  const when = beijingDateTime(at);
  if (r.verdict === 'confirmed') return { ok: true, text: vscode.l10n.t('{0} shuts down at {1} (Beijing), by the platform itself: read back from the platform, it happens even while this computer sleeps.', name, when) };
  if (r.verdict === 'notShown') return { ok: false, text: vscode.l10n.t('A timed shutdown of {0} was sent for {1} (Beijing), but the platform does not show it: it may NOT be armed. Check it in the console.', name, when) };
  return { ok: false, text: vscode.l10n.t('A timed shutdown of {0} was sent for {1} (Beijing), but the platform shows {2}: fix it in the console.', name, when, seen) };
}

/** When the user (or the scripted argument) asks for: epoch seconds, null to cancel, undefined when dismissed. */
async function askWhen(inst: Instance, armed: number | undefined, now: number): Promise<number | null | undefined> {
  type Pick = vscode.QuickPickItem & { in?: number; at?: true; cancel?: true };
  const items: Pick[] = [
    { label: vscode.l10n.t('In 1 hour'), in: 3600 },
    { label: vscode.l10n.t('In 3 hours'), in: 3 * 3600 },
    { label: vscode.l10n.t('In 8 hours'), in: 8 * 3600 },
    { label: vscode.l10n.t('At a Beijing time…'), at: true },
    ...(armed !== undefined ? [{ label: vscode.l10n.t('Cancel the timed shutdown'), description: vscode.l10n.t('armed for {0} (Beijing)', beijingDateTime(armed)), cancel: true as const }] : []),
  ];
  const pick = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('When should the platform shut {0} down?', inst.name) });
  if (!pick) return undefined;
  if (pick.cancel) return null;
  if (pick.in !== undefined) return now + pick.in;
  const text = await vscode.window.showInputBox({
    prompt: vscode.l10n.t('Beijing time, YYYY-MM-DD HH:MM'),
    value: beijingDateTime(now + 3600),
    validateInput: (v) => (parseBeijingMinute(v) === undefined ? vscode.l10n.t('A Beijing time such as {0}', beijingDateTime(now + 3600)) : undefined),
  });
  return text === undefined ? undefined : (parseBeijingMinute(text) ?? undefined);
}

export async function setTimedShutdown(ctx: CommandContext, mon: PlatformMonitor, arg: unknown): Promise<string | undefined> {
  const scripted = isScripted(arg) ? parseArgs(TimedShutdownArgs, arg) : undefined;
  const inst = await pickInstance(ctx, scripted ?? arg, running);
  if (!inst) return undefined;
  const link = await mon.link(inst);
  if (!link) throw new UserError(vscode.l10n.t('{0} is not linked to a connected platform account.', inst.name));
  const { account, connector } = link;
  const kind = platformName(account.kind);
  if (!canArmTimer(connector)) throw new UserError(resultText({ kind: 'refused', problem: 'notSupported' }, inst.name, null, kind).text);
  if (!mon.powerAllowed(account.id)) throw powerActionsOff(account);
  const now = ctx.now();
  const armed = mon.observations.get(inst.id)?.platformTimer;
  let at: number | null | undefined;
  if (scripted) {
    if ([scripted.in !== undefined, scripted.at !== undefined, scripted.cancel === true].filter(Boolean).length !== 1) throw new UserError('give one of in, at or cancel');
    if (scripted.cancel) at = null;
    else if (scripted.in !== undefined) {
      const s = parseDuration(scripted.in);
      if (s === undefined || s <= 0) throw new UserError(`in: "${scripted.in}" is not a duration (90m, 3h)`);
      at = now + s;
    } else {
      at = parseBeijingMinute(scripted.at!);
      if (at === undefined) throw new UserError(`at: "${scripted.at}" is not a Beijing time YYYY-MM-DD HH:MM`);
    }
  } else at = await askWhen(inst, armed?.action === 'shutdown' ? armed.at : undefined, now);
  if (at === undefined) return undefined;
  ctx.log.info(`[${inst.id}] timed shutdown on ${account.id}/${inst.platformRef!.ref}: ${at === null ? 'cancel' : beijingDateTime(at)}`);
  let r: ArmResult;
  try {
    r = await armTimedShutdown(connector, inst.platformRef!.ref, at, now);
  } catch (e) {
    throw new UserError(platformErrorText(e));
  }
  if (r.kind === 'sent' && r.after) await mon.observe(inst.id, account, r.after);
  ctx.refresh('power', inst.id);
  const said = resultText(r, inst.name, at, kind);
  if (!said.ok) {
    if (scripted) throw new UserError(said.text);
    void showWarning(said.text);
    return undefined;
  }
  if (!scripted) void showInfo(said.text);
  return at === null ? 'cancelled' : beijingDateTime(at);
}
