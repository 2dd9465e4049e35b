// Issue 22 (defects left): the facts the end-of-run, idle-guard and still-billing paths decide from
// are built by one function, from the linked account as it is — a read-only account (its power
// actions not allowed in gpuRent.platforms.powerActions) is named as such, not hidden as "no account".
import { strict as assert } from 'node:assert';
import { createInstance, type Instance } from '../../src/core/instances';
import { checkEndAction, consoleReason, idleActionRoute, isRefused, nextBestActions } from '../../src/core/guards/powerOffer';
import type { Account } from '../../src/app/platforms/accounts';
import { platformAccountFacts, platformPowerActions } from '../../src/extension/services/endOfRunPower';
import { powerFactsOf } from '../../src/extension/services/powerFacts';
import type { PlatformMonitor } from '../../src/extension/monitors/platforms';

function setup(kind: Account['kind'], allowed: string[]) {
  const account = { id: 'acc1', kind, label: 'my account' } as Account;
  // The monitor's two members these functions read: its accounts and the powerActions setting.
  const mon = { accounts: { get: (id: string) => (id === account.id ? account : undefined) }, powerAllowed: (id: string) => allowed.includes(id) } as unknown as PlatformMonitor;
  // As extension.ts wires the context.
  const ctx = { platformPower: (i: Instance) => platformPowerActions(mon, i), platformAccount: (i: Instance) => platformAccountFacts(mon, i) };
  const base = createInstance({ name: 'box', host: '127.0.0.1', port: 22, user: 'u', platform: 'autodl', pricing: { hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 0 } } as never, 'stopped', 0);
  const inst: Instance = { ...base, platformRef: { account: account.id, ref: 'i-1' } };
  return { mon, ctx, inst };
}

describe('extension: power facts from the linked account (read-only included)', () => {
  it('a read-only AutoDL Pro account with a non-root login: refused as read-only (allow power actions), not "no way to power off"', () => {
    const { ctx, inst } = setup('autodl-pro', []);
    assert.equal(ctx.platformPower(inst), undefined, 'no power actions while they are not allowed');
    const facts = powerFactsOf(ctx, inst, 'none');
    assert.deepEqual(facts.account, { kind: 'autodl-pro', powerAllowed: false });
    const c = checkEndAction('sync-then-power-off', facts);
    assert.ok(isRefused(c));
    assert.equal(c.reason, 'accountReadOnly');
    assert.equal(idleActionRoute('stop', facts), 'console');
    assert.deepEqual(nextBestActions(facts, 'box'), ['releaseGuard', 'console']);
    assert.equal(consoleReason('stop', facts), 'accountReadOnly', 'the idle notice says: allow power actions');
    assert.equal(consoleReason('noGpuMode', facts), 'noApi', 'AutoDL Pro has no no-GPU start, read-only or not');
  });
  it('the same account with power actions allowed: powered off through it', () => {
    const { ctx, inst } = setup('autodl-pro', ['acc1']);
    assert.ok(ctx.platformPower(inst));
    const facts = powerFactsOf(ctx, inst, 'none');
    const c = checkEndAction('sync-then-power-off', facts);
    assert.ok(!isRefused(c));
    assert.equal(c.via, 'connector');
    assert.equal(idleActionRoute('stop', facts), 'connector');
    assert.deepEqual(nextBestActions(facts, 'box'), ['powerOffThroughAccount', 'releaseGuard', 'console']);
  });
  it('a read-only AutoDL console account: no-GPU mode refused as read-only too', () => {
    const { ctx, inst } = setup('autodl-web', []);
    const c = checkEndAction('sync-then-no-gpu', powerFactsOf(ctx, inst, 'root'));
    assert.ok(isRefused(c));
    assert.equal(c.reason, 'accountReadOnly');
  });
  it('an instance not linked to an account: no account in the facts', () => {
    const { ctx, inst } = setup('autodl-pro', ['acc1']);
    const { platformRef: _, ...unlinked } = inst;
    const facts = powerFactsOf(ctx, unlinked as Instance, 'none');
    assert.equal(facts.account, undefined);
    assert.equal(consoleReason('stop', facts), 'noApi');
    assert.equal((checkEndAction('sync-then-power-off', facts) as { reason: string }).reason, 'boxCannotPowerOff');
  });
});
