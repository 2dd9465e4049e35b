// What the tree shows from the platforms: the balance in a group's description (with a warning
// when it covers less than a day at the current burn rate), an instance's platform state and
// the price read from the platform with its time, and contextValue parts for the menus
// (`:api`, `:pon`, `:poff`, `:prel`), so the menus offer only what the connector declares.
import * as vscode from 'vscode';
import type { Instance } from '../../core/instances';
import { formatCny } from '../../core/money';
import { can, MAX_INSTANCES_PER_ACCOUNT } from '../../core/platforms/types';
import type { Observation, PlatformFacts } from '../monitors/platforms';
import { beijingText } from '../words/guardText';
import { releaseDay } from '../../core/platforms/clock';
import { formatDuration, formatRate, platformStateLine } from './present';
import { platformStateLabel } from '../words/platforms';

export function platformGroupText(f: PlatformFacts, platform: string, now: number): { description: string; tooltip: string; warning: boolean } | undefined {
  const b = f.balanceOf(platform);
  const errors = f.errorsOf(platform);
  const balanceErrors = f.balanceErrorsOf(platform);
  if (!b && !errors.length && !balanceErrors.length && !f.cutOf(platform).length) return undefined;
  const parts: string[] = [];
  const tip: string[] = [];
  if (b) {
    parts.push(vscode.l10n.t('balance {0}', formatCny(b.fen)));
    tip.push(vscode.l10n.t('Balance {0}, read {1} ago', formatCny(b.fen), formatDuration(now - b.readAt, vscode.l10n)));
    if (b.low) tip.push(vscode.l10n.t('The balance covers less than a day at the current burn rate.'));
  }
  if (!b && balanceErrors.length) parts.push(vscode.l10n.t('balance ?'));
  for (const e of balanceErrors) tip.push(vscode.l10n.t('The balance could not be read: {0}', e));
  if (errors.length) parts.push(vscode.l10n.t('platform unreachable'));
  tip.push(...errors);
  const cut = f.cutOf(platform);
  if (cut.length) tip.push(vscode.l10n.t('{0}: only the first {1} instances are read from one account.', cut.join(', '), MAX_INSTANCES_PER_ACCOUNT));
  return { description: parts.join(' · '), tooltip: tip.join('\n'), warning: !!b?.low || errors.length > 0 };
}

export function platformContext(f: PlatformFacts, inst: Instance): string {
  const a = inst.platformRef ? f.accounts.get(inst.platformRef.account) : undefined;
  if (!a) return '';
  let s = ':api';
  if (can(a.kind, 'powerOn:gpu') || can(a.kind, 'powerOn:noGpu')) s += ':pon';
  if (can(a.kind, 'powerOff:keep') || can(a.kind, 'powerOff:stopCharging')) s += ':poff';
  if (can(a.kind, 'release')) s += ':prel';
  if (f.pendingLogins.has(inst.id)) s += ':newlogin';
  return s;
}

export function platformInstanceText(f: PlatformFacts, inst: Instance, now: number): { description: string; tooltip: string } | undefined {
  const o = f.observations.get(inst.id);
  const pending = f.pendingLogins.get(inst.id);
  if (!o && !pending) return undefined;
  const tip: string[] = [];
  const parts: string[] = [];
  if (o) {
    const price = o.priceFenPerHour !== undefined ? formatRate(o.priceFenPerHour, vscode.l10n) : '';
    tip.push(platformStateLine(platformStateLabel(o.state), o.state, o.rawState, formatDuration(now - o.readAt, vscode.l10n), vscode.l10n));
    if (price && o.priceReadAt !== undefined) tip.push(vscode.l10n.t('Price on the platform: {0}, read {1} ago', price, formatDuration(now - o.priceReadAt, vscode.l10n)));
    if (o.state === 'starting' || o.state === 'stopping' || o.state === 'releasing') parts.push(platformStateLabel(o.state));
    if (o.region) {
      parts.push(o.region);
      tip.push(vscode.l10n.t('Region: {0}', o.region));
    }
    const release = releaseDayText(o, now);
    if (release) {
      parts.push(release.description);
      tip.push(release.tooltip);
    }
    const timer = platformTimerText(o, now);
    if (timer) {
      parts.push(timer.description);
      tip.push(timer.tooltip);
    }
  }
  if (pending) {
    // The stored login (and its password) stays until the user confirms the new one.
    parts.push(vscode.l10n.t('the platform reports a new login: confirm'));
    tip.push(vscode.l10n.t('The platform reports a new login, {0}; the stored one, {1}, is kept until you confirm. The stored password is not sent to a new host.', `${pending.user}@${pending.host}:${pending.port}`, `${inst.login.user}@${inst.login.host}:${inst.login.port}`));
  }
  return { description: parts.join(' · '), tooltip: tip.join('\n\n') };
}

/** A timer the platform keeps itself, armed in its console and run while this computer sleeps; nothing once its time has passed. */
export function platformTimerText(o: Pick<Observation, 'platformTimer'>, now: number): { description: string; tooltip: string } | undefined {
  const t = o.platformTimer;
  if (!t || t.at <= now) return undefined;
  const at = beijingText(t.at);
  if (t.action === 'shutdown') return { description: vscode.l10n.t('timed shutdown {0}', at), tooltip: vscode.l10n.t('A timed shutdown is armed on the platform for {0} (Beijing time): the platform shuts it down then, whether or not this computer is awake.', at) };
  return { description: vscode.l10n.t('auto-release {0}', at), tooltip: vscode.l10n.t('An automatic RELEASE is armed on the platform for {0} (Beijing time): the platform deletes the instance and its disks then. Change it in the console if that is not what you want.', at) };
}

/**
 * The release day of a stopped instance by the platform's clock (AutoDL release_at, or
 * stopped_at + 15 days), Beijing time; nothing for a running one or where the platform gave no clock.
 */
export function releaseDayText(o: Pick<Observation, 'state' | 'releaseAt' | 'stoppedAt'>, now: number): { description: string; tooltip: string; soon: boolean } | undefined {
  const r = releaseDay(o, now);
  if (!r) return undefined;
  const day = beijingText(r.releaseAt).slice(0, 10);
  const since = r.stoppedAt !== undefined ? vscode.l10n.t('Shut down since {0} (Beijing time, the platform’s clock).', beijingText(r.stoppedAt)) + ' ' : '';
  if (r.passed) {
    return { description: vscode.l10n.t('release day {0} passed', day), tooltip: since + vscode.l10n.t('The platform’s release day, {0} (Beijing time), has passed: it has probably been released with its data.', beijingText(r.releaseAt)), soon: true };
  }
  return {
    description: r.soon ? vscode.l10n.t('released on {0}: soon', day) : vscode.l10n.t('released on {0}', day),
    tooltip: since + vscode.l10n.t('The platform releases it, data and all, on {0} (Beijing time): {1} left. Starting it before then (in no-GPU mode where the platform offers one) starts the clock again.', beijingText(r.releaseAt), formatDuration(r.secondsLeft, vscode.l10n)),
    soon: r.soon,
  };
}
