// The clouds' create facts in pure terms (src/core/platforms/cloudCreate.ts): 腾讯云's tiered steps
// (cvm_models.d.ts ItemPrice), public keys, key pair names, reclaim fates, notice times.
import { strict as assert } from 'node:assert';
import { isoNoticeTime, keyPairName, keyTypeAccepted, parsePublicKey, spotReclaimFate, stepAt, steppedCost, tencentNoticeTime, tencentPriceSteps, zonesWithStock } from '../../src/core/platforms/cloudCreate';
import tc from '../fixtures/platforms/tencent-bodies.json';

describe('cloud create facts', () => {
  it('腾讯云 steps from ItemPrice: (0, 96) h, (96, 360) h, beyond; a run across them costs each part at its own step', () => {
    const steps = tencentPriceSteps(tc.inquiryPriceSteps.Price.InstancePrice)!;
    assert.deepStrictEqual(steps, { first: 868, second: 651, third: 434 });
    assert.deepStrictEqual([0, 95.9, 96, 359, 360, 5000].map((h) => stepAt(steps, h)), [868, 868, 651, 651, 434, 434]);
    // 400 h from the start: 96 × 8.68 + 264 × 6.51 + 40 × 4.34 (not 400 × 8.68).
    assert.strictEqual(steppedCost(steps, 0, 400), 96 * 868 + 264 * 651 + 40 * 434);
    assert.strictEqual(steppedCost(steps, 350, 370), 10 * 651 + 10 * 434);
    assert.deepStrictEqual(tencentPriceSteps(tc.inquiryPrice.Price.InstancePrice), { first: 868 });
    assert.strictEqual(steppedCost({ first: 868 }, 0, 400), 400 * 868);
  });

  it('public keys: one OpenSSH line, the comment dropped; 腾讯云 takes RSA only; names fit KeyName (25, letters digits _)', () => {
    const body = 'AAAAC3NzaC1lZDI1NTE5AAAAIHhpZ2ZfZmFrZV9rZXlfYm9keV9mb3JfdGVzdHM';
    assert.deepStrictEqual(parsePublicKey(`# mine\nssh-ed25519 ${body} me@laptop\n`), { type: 'ssh-ed25519', body });
    assert.strictEqual(parsePublicKey('-----BEGIN OPENSSH PRIVATE KEY-----'), undefined);
    assert.strictEqual(parsePublicKey(`ssh-dss ${body}`), undefined);
    assert.strictEqual(keyTypeAccepted('tencent-cvm', 'ssh-ed25519'), false);
    assert.strictEqual(keyTypeAccepted('aliyun-ecs', 'ssh-ed25519'), true);
    const n = keyPairName('0123456789abcdef0123');
    assert.strictEqual(n, 'gpu_rent_0123456789ab');
    assert.ok(/^[A-Za-z0-9_]{1,25}$/.test(n));
  });

  it('what a spot reclaim does to each disk', () => {
    assert.deepStrictEqual(spotReclaimFate('aliyun-ecs', 'stop', true).disks, [{ disk: 'system', fate: 'kept' }, { disk: 'data', fate: 'kept' }]);
    assert.strictEqual(spotReclaimFate('aliyun-ecs', 'terminate', false).afterwards, 'nothing');
    assert.strictEqual(spotReclaimFate('tencent-cvm', 'stop', true).behavior, 'terminate', '腾讯云 releases a reclaimed spot instance');
  });

  it('notice times: 阿里云 ISO UTC, 腾讯云 UTC+8 (the page’s "2018-08-18 12:05:33")', () => {
    assert.strictEqual(isoNoticeTime('2015-01-05T18:02:00Z'), Date.UTC(2015, 0, 5, 18, 2) / 1000);
    assert.strictEqual(tencentNoticeTime('2018-08-18 12:05:33'), Date.UTC(2018, 7, 18, 4, 5, 33) / 1000);
    assert.strictEqual(tencentNoticeTime('2018-13-18 12:05:33'), undefined);
    assert.strictEqual(isoNoticeTime('soon'), undefined);
  });

  it('zones that sell a type, cheapest first, the asked zone left out', () => {
    const row = (zone: string, status: 'free' | 'soldOut', fen?: number) => ({ card: 'T', instanceType: 'T', region: 'r', zone, status, ...(fen !== undefined ? { priceFenPerHour: fen } : {}), source: 'tencent-DescribeZoneInstanceConfigInfos' as const, readAt: 0 });
    assert.deepStrictEqual(zonesWithStock([row('a', 'soldOut', 1), row('b', 'free', 900), row('c', 'free', 800), row('d', 'free')], 'T', 'a').map((z) => z.zone), ['c', 'b', 'd']);
  });
});
