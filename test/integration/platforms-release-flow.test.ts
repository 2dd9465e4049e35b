// Release on Platform's order against the local platform server (AutoDL's developer API releases
// only stopped instances): power off → confirmed stopped → the "before release" step (stop the sync
// watches, "about to release") → release. A power-off that fails or never settles stops the flow
// before that step: the instance still exists and keeps its watches.
import * as assert from 'node:assert';
import { makeConnector, type Endpoints } from '../../src/app/platforms/accounts';
import { PlatformError } from '../../src/app/platforms/errors';
import { releaseThroughPlatform } from '../../src/app/platforms/releaseFlow';
import { PlatformServer } from '../support/platform-server';

const now = () => Math.floor(Date.now() / 1000);

describe('release through a platform: power off first, then "about to release", then release', function () {
  this.timeout(30000);
  let s: PlatformServer;
  let ep: Endpoints;
  beforeEach(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
    ep = s.endpoints;
  });
  afterEach(() => s.close());
  const pro = () => makeConnector({ kind: 'autodl-pro' }, { token: s.creds.autodlPro }, ep, { timeoutMs: 5000, now });
  const OFF = '/api/v1/dev/instance/pro/power_off';
  const RELEASE = '/api/v1/dev/instance/pro/release';

  it('running AutoDL Pro: the power-off is sent and seen stopped before "about to release" runs, the release after it', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-r', name: 'r', state: 'running' });
    const events: string[] = [];
    const r = await releaseThroughPlatform(pro(), 'pro-r', {
      stopFirst: true,
      deadlineMs: 5000,
      intervalMs: 50,
      onStep: (step) => events.includes(step) || events.push(step),
      beforeRelease: async () => {
        events.push(`beforeRelease(off sent ${s.sent('autodl-pro', OFF).length}, state ${s.instances.get('pro-r')?.state}, release sent ${s.sent('autodl-pro', RELEASE).length})`);
      },
    });
    assert.strictEqual(r.kind, 'sent');
    assert.deepStrictEqual(events, ['poweringOff', 'waitingStopped', 'beforeRelease(off sent 1, state shutdown, release sent 0)', 'releasing']);
    assert.strictEqual(s.sent('autodl-pro', RELEASE).length, 1);
    assert.strictEqual(s.instances.get('pro-r')?.state, 'releasing');
  });

  it('a refused power-off: "about to release" never runs, no release is sent, the instance still exists and runs', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-f', name: 'f', state: 'running' });
    s.fault({ platform: 'autodl-pro', on: OFF, error: 'recordNotFound' });
    let before = 0;
    const r = await releaseThroughPlatform(pro(), 'pro-f', { stopFirst: true, deadlineMs: 2000, intervalMs: 50, beforeRelease: async () => void before++ });
    assert.strictEqual(r.kind, 'powerOffFailed');
    assert.ok(r.kind === 'powerOffFailed' && r.error instanceof PlatformError);
    assert.strictEqual(before, 0, 'the watches were not stopped, "about to release" not fired');
    assert.strictEqual(s.sent('autodl-pro', RELEASE).length, 0);
    assert.strictEqual(s.instances.get('pro-f')?.state, 'running');
  });

  it('a power-off accepted but never carried out: the flow ends at the deadline before "about to release"', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-i', name: 'i', state: 'running' });
    s.powerOffIgnored = true;
    let before = 0;
    const r = await releaseThroughPlatform(pro(), 'pro-i', { stopFirst: true, deadlineMs: 600, intervalMs: 100, beforeRelease: async () => void before++ });
    assert.strictEqual(r.kind, 'notStopped');
    assert.strictEqual(r.kind === 'notStopped' && r.last?.state, 'running');
    assert.strictEqual(before, 0);
    assert.strictEqual(s.sent('autodl-pro', RELEASE).length, 0);
  });

  it('already stopped: no power-off, "about to release" then the release', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 's', state: 'shutdown' });
    const order: string[] = [];
    const r = await releaseThroughPlatform(pro(), 'pro-s', { stopFirst: false, deadlineMs: 2000, intervalMs: 50, beforeRelease: async () => void order.push(`before, release sent ${s.sent('autodl-pro', RELEASE).length}`) });
    assert.strictEqual(r.kind, 'sent');
    assert.deepStrictEqual(order, ['before, release sent 0']);
    assert.strictEqual(s.sent('autodl-pro', OFF).length, 0);
    assert.strictEqual(s.sent('autodl-pro', RELEASE).length, 1);
  });
});
