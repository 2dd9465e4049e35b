// What a run's end, the idle guard and the power menus may offer for one instance, computed
// from facts instead of hopes: the linked account's connector and its declared capabilities
// (AutoDL's developer API has no no-GPU start), whether the login can power the box off itself
// (root, or `sudo -n` allowed), and the prerequisites the action needs when it fires (sync
// folders). An action that cannot happen is refused with a code the front end words; one whose
// prerequisite is missing is offered with `needs`, so it is asked for when the run starts.
import { PLATFORM_DESCRIPTORS } from '../platforms/descriptors';
import { can, type PlatformKind } from '../platforms/types';
import type { EndAction } from '../progress';
import type { IdleActionKind } from './actions';

/** What the login can do on the box: root, a password-less sudo, nothing, or not probed. */
export type BoxPower = 'root' | 'sudo' | 'none' | 'unknown';

export interface PowerFacts {
  /** The platform account the instance is linked to, if any, and whether its power actions are allowed. */
  account?: { kind: PlatformKind; powerAllowed: boolean } | undefined;
  boxPower: BoxPower;
  /** The checkpoint folders for the final sync are set. */
  syncFolders: boolean;
}

/** Who performs a power action: the platform's API, the box itself, or the user in the platform's console. */
export type PowerVia = 'connector' | 'box' | 'console';

export type RefusalCode =
  /** No-GPU mode needs a platform account's API; none is linked. */
  | 'noGpuNeedsAccount'
  /** The linked account's API has no no-GPU start (AutoDL's developer API). */
  | 'platformCannotNoGpu'
  /** The linked account is read-only (power actions not allowed). */
  | 'accountReadOnly'
  /** The login is not root and `sudo -n` is not allowed, and no account can power it off. */
  | 'boxCannotPowerOff'
  /** Whether the login can power the box off was not found out. */
  | 'boxPowerUnknown';

export interface OfferedEndAction {
  action: EndAction;
  /** Who performs the power step (null: none). */
  via: 'connector' | 'box' | null;
  /** What must be set before the run starts. */
  needs: 'syncFolders'[];
}

export interface RefusedEndAction {
  action: EndAction;
  reason: RefusalCode;
}

export interface EndActionChoices {
  offered: OfferedEndAction[];
  refused: RefusedEndAction[];
}

const accountCan = (f: PowerFacts, cap: 'powerOn:noGpu' | 'powerOff:keep'): boolean => !!f.account && f.account.powerAllowed && can(f.account.kind, cap);

/** Whether the box's own login can power it off (with `shutdown`, or `sudo -n shutdown`). */
export const boxCanPowerOff = (p: BoxPower): boolean => p === 'root' || p === 'sudo';

function noGpuRoute(f: PowerFacts): { via: 'connector' } | { reason: RefusalCode } {
  if (accountCan(f, 'powerOn:noGpu')) return { via: 'connector' };
  if (!f.account) return { reason: 'noGpuNeedsAccount' };
  if (!can(f.account.kind, 'powerOn:noGpu')) return { reason: 'platformCannotNoGpu' };
  return { reason: 'accountReadOnly' };
}

function powerOffRoute(f: PowerFacts): { via: 'connector' | 'box' } | { reason: RefusalCode } {
  if (accountCan(f, 'powerOff:keep')) return { via: 'connector' };
  if (boxCanPowerOff(f.boxPower)) return { via: 'box' };
  if (f.boxPower === 'unknown') return { reason: 'boxPowerUnknown' };
  return { reason: f.account && !f.account.powerAllowed && can(f.account.kind, 'powerOff:keep') ? 'accountReadOnly' : 'boxCannotPowerOff' };
}

/** The run's end actions for these facts: what may be chosen (with what it still needs), and what may not and why. */
export function endActionChoices(f: PowerFacts): EndActionChoices {
  const needs: 'syncFolders'[] = f.syncFolders ? [] : ['syncFolders'];
  const offered: OfferedEndAction[] = [
    { action: 'nothing', via: null, needs: [] },
    { action: 'sync', via: null, needs },
  ];
  const refused: RefusedEndAction[] = [];
  const noGpu = noGpuRoute(f);
  if ('via' in noGpu) offered.push({ action: 'sync-then-no-gpu', via: noGpu.via, needs });
  else refused.push({ action: 'sync-then-no-gpu', reason: noGpu.reason });
  const off = powerOffRoute(f);
  if ('via' in off) offered.push({ action: 'sync-then-power-off', via: off.via, needs });
  else refused.push({ action: 'sync-then-power-off', reason: off.reason });
  return { offered, refused };
}

/** The one end action asked for, checked: offered (with its route and needs) or refused with the reason. */
export function checkEndAction(action: EndAction, f: PowerFacts): OfferedEndAction | RefusedEndAction {
  const c = endActionChoices(f);
  return c.offered.find((o) => o.action === action) ?? c.refused.find((r) => r.action === action)!;
}

export const isRefused = (x: OfferedEndAction | RefusedEndAction): x is RefusedEndAction => 'reason' in x;

/**
 * How each idle-guard action would be carried out. No-GPU mode and a stop go through the
 * account's API where it can, else a stop from the box where the login can; otherwise the
 * user does it in the platform's console (the notice says so: it is not a button that fails).
 * A release always goes through the release flow (its checkpoint check first).
 */
export function idleActionRoute(action: IdleActionKind, f: PowerFacts): PowerVia | 'releaseFlow' {
  if (action === 'release') return 'releaseFlow';
  if (action === 'noGpuMode') return accountCan(f, 'powerOn:noGpu') ? 'connector' : 'console';
  if (accountCan(f, 'powerOff:keep')) return 'connector';
  return boxCanPowerOff(f.boxPower) ? 'box' : 'console';
}

/**
 * Why an idle-guard action goes to the console: the linked account could do it but is read-only
 * (allow its power actions), or nothing here has an API for it.
 */
export function consoleReason(action: 'noGpuMode' | 'stop', f: PowerFacts): 'accountReadOnly' | 'noApi' {
  const cap = action === 'noGpuMode' ? 'powerOn:noGpu' : 'powerOff:keep';
  return f.account && !f.account.powerAllowed && can(f.account.kind, cap) ? 'accountReadOnly' : 'noApi';
}

/** After a power action that did not happen: what the user can still do, best first. */
export function nextBestActions(f: Pick<PowerFacts, 'account'>, failedVia: 'connector' | 'box'): ('powerOffThroughAccount' | 'releaseGuard' | 'console')[] {
  const out: ('powerOffThroughAccount' | 'releaseGuard' | 'console')[] = [];
  if (failedVia === 'box' && accountCan({ ...f, boxPower: 'none', syncFolders: true }, 'powerOff:keep')) out.push('powerOffThroughAccount');
  out.push('releaseGuard', 'console');
  return out;
}

/**
 * Platforms whose API releases only a stopped instance (AutoDL's developer API; 阿里云's
 * DeleteInstance with Force=false, which its connector refuses to send otherwise): release is
 * power off → stopped → release.
 */
export function releaseNeedsStopped(kind: PlatformKind): boolean {
  return PLATFORM_DESCRIPTORS[kind].releaseNeedsStopped;
}
