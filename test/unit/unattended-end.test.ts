// What the box may do by itself when the run ends while the laptop is away (core/task/unattended.ts).
import { strict as assert } from 'node:assert';
import { unattendedEnd } from '../../src/core/task/unattended';

describe('unattended end: only a shutdown that stops the meter, by a login allowed to', () => {
  it('AutoDL as root (or sudo -n) powers itself off; no-GPU and release are left for the laptop', () => {
    assert.deepEqual(unattendedEnd({ platformKind: 'autodl-pro', power: 'root', end: 'power-off' }), { powerOff: true, why: 'autodl-shutdown', laterOnLaptop: null });
    assert.deepEqual(unattendedEnd({ platformKind: 'autodl-web', power: 'sudo', end: 'no-gpu' }), { powerOff: true, why: 'autodl-shutdown', laterOnLaptop: 'no-gpu' });
    assert.deepEqual(unattendedEnd({ platformKind: 'autodl-pro', power: 'root', end: 'release' }), { powerOff: true, why: 'autodl-shutdown', laterOnLaptop: 'release' });
  });
  it('阿里云 and 腾讯云 never pretend: a shutdown from inside keeps billing', () => {
    for (const k of ['aliyun-ecs', 'tencent-cvm']) assert.deepEqual(unattendedEnd({ platformKind: k, power: 'root', end: 'power-off' }), { powerOff: false, why: 'cloud-keeps-billing', laterOnLaptop: 'power-off' });
  });
  it('a login that cannot shut down, end: none, end_unattended: none, an unknown platform: nothing', () => {
    assert.equal(unattendedEnd({ platformKind: 'autodl-pro', power: 'none', end: 'power-off' }).why, 'not-root');
    assert.equal(unattendedEnd({ platformKind: null, power: 'unknown', end: 'power-off' }).why, 'not-root');
    assert.equal(unattendedEnd({ platformKind: 'autodl-pro', power: 'root', end: 'none' }).why, 'task-keeps-running');
    assert.deepEqual(unattendedEnd({ platformKind: 'autodl-pro', power: 'root', end: 'power-off', chosen: 'none' }), { powerOff: false, why: 'chosen-none', laterOnLaptop: 'power-off' });
    assert.equal(unattendedEnd({ platformKind: 'someday-cloud', power: 'root', end: 'power-off' }).why, 'platform-unknown');
  });
  it('an SSH login as root does what the task asked', () => {
    assert.deepEqual(unattendedEnd({ platformKind: null, power: 'root', end: 'power-off' }), { powerOff: true, why: 'ssh-power-off', laterOnLaptop: null });
  });
});
