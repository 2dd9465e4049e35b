// Issue 22.1: what a run's end, the idle guard and a failed power-off may offer, from facts.
import { strict as assert } from 'node:assert';
import { checkEndAction, endActionChoices, idleActionRoute, isRefused, nextBestActions, releaseNeedsStopped, type PowerFacts } from '../../src/core/guards/powerOffer';

const actions = (f: PowerFacts) => endActionChoices(f).offered.map((o) => `${o.action}${o.via ? `@${o.via}` : ''}`);
const refused = (f: PowerFacts) => Object.fromEntries(endActionChoices(f).refused.map((r) => [r.action, r.reason]));

describe('core: end actions offered only when they can happen', () => {
  it('AutoDL Pro (developer API, power allowed): no "sync then no-GPU mode" — its API cannot start without a GPU', () => {
    const f: PowerFacts = { account: { kind: 'autodl-pro', powerAllowed: true }, boxPower: 'root', syncFolders: true };
    assert.deepEqual(actions(f), ['nothing', 'sync', 'sync-then-power-off@connector']);
    assert.deepEqual(refused(f), { 'sync-then-no-gpu': 'platformCannotNoGpu' });
  });
  it('AutoDL console token: no-GPU mode through the account', () => {
    assert.deepEqual(actions({ account: { kind: 'autodl-web', powerAllowed: true }, boxPower: 'none', syncFolders: true }), ['nothing', 'sync', 'sync-then-no-gpu@connector', 'sync-then-power-off@connector']);
  });
  it('no account: power-off from the box for root or a password-less sudo, never for a plain non-root login', () => {
    assert.deepEqual(actions({ boxPower: 'root', syncFolders: true }), ['nothing', 'sync', 'sync-then-power-off@box']);
    assert.deepEqual(actions({ boxPower: 'sudo', syncFolders: true }), ['nothing', 'sync', 'sync-then-power-off@box']);
    const nonRoot: PowerFacts = { boxPower: 'none', syncFolders: true };
    assert.deepEqual(actions(nonRoot), ['nothing', 'sync']);
    assert.deepEqual(refused(nonRoot), { 'sync-then-no-gpu': 'noGpuNeedsAccount', 'sync-then-power-off': 'boxCannotPowerOff' });
    assert.equal(refused({ boxPower: 'unknown', syncFolders: true })['sync-then-power-off'], 'boxPowerUnknown');
  });
  it('a read-only account does not power off; the box does where its login can, else it is refused as read-only', () => {
    assert.deepEqual(actions({ account: { kind: 'aliyun-ecs', powerAllowed: false }, boxPower: 'root', syncFolders: true }), ['nothing', 'sync', 'sync-then-power-off@box']);
    assert.deepEqual(refused({ account: { kind: 'aliyun-ecs', powerAllowed: false }, boxPower: 'none', syncFolders: true }), { 'sync-then-no-gpu': 'platformCannotNoGpu', 'sync-then-power-off': 'accountReadOnly' });
    assert.equal(refused({ account: { kind: 'autodl-web', powerAllowed: false }, boxPower: 'none', syncFolders: true })['sync-then-no-gpu'], 'accountReadOnly');
  });
  it('missing sync folders are a prerequisite of every sync action (asked for at the start), not of "nothing"', () => {
    const c = endActionChoices({ boxPower: 'root', syncFolders: false });
    assert.deepEqual(c.offered.map((o) => [o.action, o.needs]), [['nothing', []], ['sync', ['syncFolders']], ['sync-then-power-off', ['syncFolders']]]);
    const one = checkEndAction('sync-then-power-off', { boxPower: 'none', syncFolders: false });
    assert.ok(isRefused(one));
    assert.equal(one.reason, 'boxCannotPowerOff');
    assert.ok(!isRefused(checkEndAction('sync', { boxPower: 'none', syncFolders: false })));
  });
});

describe('core: release of a running instance', () => {
  it('AutoDL Pro and 阿里云 (DeleteInstance, Force=false) release only a stopped instance: power off first; 腾讯云 terminates a running one', () => {
    assert.equal(releaseNeedsStopped('autodl-pro'), true);
    assert.equal(releaseNeedsStopped('aliyun-ecs'), true);
    assert.equal(releaseNeedsStopped('tencent-cvm'), false);
  });
});

describe('core: idle-guard routes and the next-best action after a failed power-off', () => {
  it('no-GPU mode through the account only where its API can; else the console, never a button that fails', () => {
    assert.equal(idleActionRoute('noGpuMode', { account: { kind: 'autodl-pro', powerAllowed: true }, boxPower: 'root', syncFolders: true }), 'console');
    assert.equal(idleActionRoute('noGpuMode', { account: { kind: 'autodl-web', powerAllowed: true }, boxPower: 'root', syncFolders: true }), 'connector');
    assert.equal(idleActionRoute('stop', { account: { kind: 'autodl-pro', powerAllowed: true }, boxPower: 'none', syncFolders: true }), 'connector');
    assert.equal(idleActionRoute('stop', { boxPower: 'sudo', syncFolders: true }), 'box');
    assert.equal(idleActionRoute('stop', { boxPower: 'none', syncFolders: true }), 'console');
    assert.equal(idleActionRoute('release', { boxPower: 'none', syncFolders: false }), 'releaseFlow');
  });
  it('a box that did not power off itself: the account first where one can, then the release guard and the console', () => {
    assert.deepEqual(nextBestActions({ account: { kind: 'tencent-cvm', powerAllowed: true } }, 'box'), ['powerOffThroughAccount', 'releaseGuard', 'console']);
    assert.deepEqual(nextBestActions({ account: { kind: 'tencent-cvm', powerAllowed: false } }, 'box'), ['releaseGuard', 'console']);
    assert.deepEqual(nextBestActions({ account: { kind: 'tencent-cvm', powerAllowed: true } }, 'connector'), ['releaseGuard', 'console']);
  });
});
