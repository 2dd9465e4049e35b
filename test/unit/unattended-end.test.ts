// What the box may do by itself when the run ends while the laptop is away (core/task/unattended.ts).
import { strict as assert } from 'node:assert';
import { unattendedEnd } from '../../src/core/task/unattended';
import { PLATFORM_DESCRIPTORS } from '../../src/core/platforms/descriptors';

const of = (k: keyof typeof PLATFORM_DESCRIPTORS) => ({ keepChargingStopBills: PLATFORM_DESCRIPTORS[k].keepChargingStopBills, insideShutdownIsStop: PLATFORM_DESCRIPTORS[k].insideShutdownIsStop === true });
const AUTODL = of('autodl-pro');
const cloud = of;

describe('unattended end: only a shutdown that stops the meter, by a login allowed to', () => {
  it('AutoDL as root (or sudo -n) powers itself off; no-GPU and release are left for the laptop', () => {
    assert.deepEqual(unattendedEnd({ platform: AUTODL, power: 'root', end: 'power-off' }), { powerOff: true, why: 'autodl-shutdown', laterOnLaptop: null });
    assert.deepEqual(unattendedEnd({ platform: AUTODL, power: 'sudo', end: 'no-gpu' }), { powerOff: true, why: 'autodl-shutdown', laterOnLaptop: 'no-gpu' });
    assert.deepEqual(unattendedEnd({ platform: AUTODL, power: 'root', end: 'release' }), { powerOff: true, why: 'autodl-shutdown', laterOnLaptop: 'release' });
  });
  it('阿里云 and 腾讯云 never pretend: a shutdown from inside keeps billing', () => {
    for (const k of ['aliyun-ecs', 'tencent-cvm'] as const) assert.deepEqual(unattendedEnd({ platform: cloud(k), power: 'root', end: 'power-off' }), { powerOff: false, why: 'cloud-keeps-billing', laterOnLaptop: 'power-off' });
  });
  it('a login that cannot shut down, end: none, end_unattended: none, an unknown platform: nothing', () => {
    assert.equal(unattendedEnd({ platform: AUTODL, power: 'none', end: 'power-off' }).why, 'not-root');
    assert.equal(unattendedEnd({ platform: null, power: 'unknown', end: 'power-off' }).why, 'not-root');
    assert.equal(unattendedEnd({ platform: AUTODL, power: 'root', end: 'none' }).why, 'task-keeps-running');
    assert.deepEqual(unattendedEnd({ platform: AUTODL, power: 'root', end: 'power-off', chosen: 'none' }), { powerOff: false, why: 'chosen-none', laterOnLaptop: 'power-off' });
    assert.equal(unattendedEnd({ platform: { keepChargingStopBills: false, insideShutdownIsStop: false }, power: 'root', end: 'power-off' }).why, 'platform-unknown');
  });
  it('an SSH login as root does what the task asked', () => {
    assert.deepEqual(unattendedEnd({ platform: null, power: 'root', end: 'power-off' }), { powerOff: true, why: 'ssh-power-off', laterOnLaptop: null });
  });
});
