// The power actions a run's end action (and the idle guard's "switch to no-GPU mode now") can
// call through the platform, for an instance linked to an account whose power actions are
// enabled: undefined otherwise (then the caller powers off from the box, or only advises).
// No-GPU mode from a running box is a shut-down, then a no-GPU start (AutoDL console token).
import type { PowerActions } from '../../app/runs/endAction';
import { PlatformError } from '../../app/platforms/errors';
import { TARGET, waitForState } from '../../app/platforms/settle';
import type { Instance } from '../../core/instances';
import { afterPowerOff, powerOffModeFor } from '../../core/platforms/billing';
import { can } from '../../core/platforms/types';
import type { PlatformMonitor } from '../monitors/platforms';
import type { PowerFacts } from '../../core/guards/powerOffer';

const DEADLINE_MS = 5 * 60_000;
const EVERY_MS = 3000;

/**
 * The linked account's platform and whether its power actions are allowed: known also when they
 * are off (then platformPowerActions is undefined), so a read-only account is named as such.
 */
export function platformAccountFacts(mon: Pick<PlatformMonitor, 'accounts' | 'powerAllowed'>, inst: Instance): PowerFacts['account'] {
  const account = inst.platformRef ? mon.accounts.get(inst.platformRef.account) : undefined;
  return account ? { kind: account.kind, powerAllowed: mon.powerAllowed(account.id) } : undefined;
}

export function platformPowerActions(mon: PlatformMonitor, inst: Instance): PowerActions | undefined {
  const account = inst.platformRef ? mon.accounts.get(inst.platformRef.account) : undefined;
  if (!account || !mon.powerAllowed(account.id) || !can(account.kind, 'powerOff:keep')) return undefined;
  const linked = async (i: Instance) => {
    const l = await mon.link(i);
    if (!l || !i.platformRef) throw new PlatformError({ platform: account.kind, kind: 'notFound', code: 'NotLinked', message: i.name });
    return { ...l, ref: i.platformRef.ref };
  };
  const settle = async (i: Instance, l: Awaited<ReturnType<typeof linked>>, targets: typeof TARGET.powerOff) => {
    const r = await waitForState(l.connector, l.ref, targets, { deadlineMs: DEADLINE_MS, intervalMs: EVERY_MS });
    if (r.last) await mon.observe(i.id, l.account, r.last);
    if (!r.settled) throw new PlatformError({ platform: account.kind, kind: 'timeout', code: 'NotSettled', message: r.last?.rawState ?? '' });
    return r.last;
  };
  // 阿里云/腾讯云: economical mode (StopCharging / STOP_CHARGING), read back once stopped: a stop
  // that keeps billing compute is not reported as a power-off that saved anything.
  const mode = can(account.kind, 'powerOff:stopCharging') ? powerOffModeFor(account.kind) : 'keep';
  return {
    kind: account.kind,
    powerOff: async (i) => {
      const l = await linked(i);
      await l.connector.powerOff(l.ref, mode);
      const last = await settle(i, l, TARGET.powerOff);
      const after = afterPowerOff(account.kind, mode, { ...last, billing: last?.billing });
      if (after.compute === 'bills') throw new PlatformError({ platform: account.kind, kind: 'other', code: 'StillBilling', message: 'stopped in keep-charging mode: compute still bills as if it ran (economical mode is not offered for this instance); release it or stop it in the console to stop compute billing' });
    },
    noGpu: async (i) => {
      if (!can(account.kind, 'powerOn:noGpu')) throw new PlatformError({ platform: account.kind, kind: 'notSupported', code: 'NotSupported', message: 'no-GPU start' });
      const l = await linked(i);
      const now = await l.connector.get(l.ref);
      if (now.state === 'noGpu') return;
      if (now.state !== 'stopped') {
        await l.connector.powerOff(l.ref, mode);
        await settle(i, l, TARGET.powerOff);
      }
      await l.connector.powerOn(l.ref, 'noGpu');
      await settle(i, l, TARGET.powerOnNoGpu);
      await mon.refreshLogin(i.id, l.account, l.connector);
    },
  };
}
