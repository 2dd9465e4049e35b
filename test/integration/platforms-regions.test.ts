// 阿里云 / 腾讯云 through their official SDKs against the local platform server (issue 18.2,
// 18.5): a spot instance is priced at the spot price (DescribeSpotPriceHistory, the SPOTPAID
// inquiry), never the on-demand quote; a prepaid one has no hourly price (compute paid ahead);
// an account reads every region it has instances in (DescribeRegions, or the user's list),
// at most REGION_PARALLEL regions at once, and each row says its region.
import * as assert from 'node:assert';
import { makeConnector, type Endpoints } from '../../src/app/platforms/accounts';
import { PlatformError } from '../../src/app/platforms/errors';
import { RegionsFailed } from '../../src/app/platforms/regions';
import { REGION_PARALLEL } from '../../src/core/platforms/regions';
import { PlatformServer } from '../support/platform-server';

const now = () => Math.floor(Date.now() / 1000);
const opts = { timeoutMs: 5000, now };

describe('cloud prices by billing mode and every region (local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let ep: Endpoints;
  before(async () => {
    s = await PlatformServer.start();
    ep = { aliyun: s.url, tencent: s.url };
  });
  after(() => s.close());
  beforeEach(() => {
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    s.replyDelayMs = 0;
    s.maxInFlight = 0;
  });

  describe('阿里云 ECS', () => {
    const ali = (region?: string | string[]) => makeConnector({ kind: 'aliyun-ecs', ...(region ? { region } : {}) }, { accessKeyId: s.creds.aliyunKeyId, accessKeySecret: 'secret-value' }, ep, opts);

    it('a spot instance is priced from DescribeSpotPriceHistory for its type and zone, not DescribePrice', async () => {
      s.add({ platform: 'aliyun', id: 'i-spot', name: 'spot', state: 'Running', spotStrategy: 'SpotAsPriceGo' });
      const c = ali('cn-hangzhou');
      const [row] = await c.list();
      assert.strictEqual(row!.billing, 'spot');
      assert.strictEqual((await c.price('i-spot'))!.fenPerHour, 250, 'SpotPrice 2.5 yuan/h, not the on-demand TradePrice 12.5');
      const q = s.sent('aliyun', 'DescribeSpotPriceHistory');
      assert.strictEqual(q.length, 1);
      assert.deepStrictEqual([q[0]!.query.RegionId, q[0]!.query.InstanceType, q[0]!.query.ZoneId, q[0]!.query.NetworkType], ['cn-hangzhou', 'ecs.gn7i-c8g1.2xlarge', 'cn-hangzhou-i', 'vpc']);
      assert.strictEqual(s.sent('aliyun', 'DescribePrice').length, 0, 'no on-demand quote for a spot instance');
    });

    it('a prepaid instance has no hourly price and nothing is asked; a pay-as-you-go one gets its DescribePrice quote', async () => {
      s.add({ platform: 'aliyun', id: 'i-pre', name: 'monthly', state: 'Running', chargeType: 'PrePaid' });
      s.add({ platform: 'aliyun', id: 'i-payg', name: 'hourly', state: 'Running' });
      const c = ali('cn-hangzhou');
      const rows = await c.list();
      assert.deepStrictEqual(rows.map((r) => [r.ref, r.billing]).sort(), [['i-payg', 'postpaid'], ['i-pre', 'prepaid']]);
      assert.strictEqual(await c.price('i-pre'), undefined);
      assert.strictEqual(s.sent('aliyun', 'DescribePrice').length + s.sent('aliyun', 'DescribeSpotPriceHistory').length, 0);
      assert.strictEqual((await c.price('i-payg'))!.fenPerHour, 1250);
    });

    it('with no region chosen, every region DescribeRegions names is read and each row says its region; power actions reach an instance elsewhere', async () => {
      s.add({ platform: 'aliyun', id: 'i-hz', name: 'hangzhou', state: 'Running' });
      s.add({ platform: 'aliyun', id: 'i-bj', name: 'beijing', state: 'Running', region: 'cn-beijing' });
      // One home region only (the old form) does not see Beijing.
      assert.deepStrictEqual((await ali('cn-hangzhou').list()).map((r) => r.ref), ['i-hz']);
      s.requests.length = 0;
      const c = ali();
      const rows = await c.list();
      assert.deepStrictEqual(rows.map((r) => [r.ref, r.region]).sort(), [['i-bj', 'cn-beijing'], ['i-hz', 'cn-hangzhou']]);
      assert.strictEqual(s.sent('aliyun', 'DescribeRegions').length, 1);
      assert.deepStrictEqual(s.sent('aliyun', 'DescribeInstances').map((r) => r.region).sort(), ['cn-beijing', 'cn-hangzhou']);
      // The same connector asks DescribeRegions once.
      await c.list();
      assert.strictEqual(s.sent('aliyun', 'DescribeRegions').length, 1);
      assert.strictEqual((await c.get('i-bj')).region, 'cn-beijing');
      assert.strictEqual((await c.price('i-bj'))!.fenPerHour, 1250);
      assert.strictEqual(s.sent('aliyun', 'DescribePrice').at(-1)!.query.RegionId, 'cn-beijing', 'priced in its own region');
      // A fresh connector finds an instance it has not listed by asking each region.
      const fresh = ali('all');
      assert.strictEqual((await fresh.get('i-bj')).region, 'cn-beijing');
      await assert.rejects(fresh.get('i-none'), (e: unknown) => e instanceof PlatformError && e.failure.kind === 'notFound');
    });

    it('reads at most REGION_PARALLEL regions at once, and a region that fails fails the read, named', async () => {
      const regions = Array.from({ length: 10 }, (_, k) => `cn-test-${k}`);
      for (const [k, r] of regions.entries()) s.add({ platform: 'aliyun', id: `i-r${k}`, name: `r${k}`, state: 'Running', region: r });
      s.replyDelayMs = 80;
      const rows = await ali(regions).list();
      assert.strictEqual(rows.length, 10);
      assert.deepStrictEqual(rows.map((r) => r.region), regions, 'in the order chosen');
      assert.ok(s.maxInFlight >= 2 && s.maxInFlight <= REGION_PARALLEL, `at most ${REGION_PARALLEL} at once, saw ${s.maxInFlight}`);
      s.replyDelayMs = 0;
      s.fault({ platform: 'aliyun', on: 'DescribeInstances', error: 'throttling', status: 429 });
      await assert.rejects(ali(['cn-test-0', 'cn-test-1']).list(), (e: unknown) => e instanceof PlatformError && e.failure.kind === 'rateLimited' && /^cn-test-\d: /.test(e.failure.message));
      // The failing region is named and the other's instances still come with the failure (RegionsFailed); a caller that does not know it sees a failed read.
      s.fault({ platform: 'aliyun', on: 'DescribeInstances', error: 'throttling', status: 429 });
      const e = await ali(['cn-test-0', 'cn-test-1']).list().then(() => undefined, (x: unknown) => x);
      assert.ok(e instanceof RegionsFailed, String(e));
      assert.strictEqual(e.failed.length, 1);
      assert.deepStrictEqual(e.instances.map((i) => i.region), ['cn-test-0', 'cn-test-1'].filter((r) => r !== e.failed[0]!.region));
      assert.match(e.failure.message, /; the other 1 region\(s\) listed$/);
      // Every region failed: the failure itself, no partial list.
      s.fault({ platform: 'aliyun', on: 'DescribeInstances', error: 'throttling', status: 429, times: 2 });
      await assert.rejects(ali(['cn-test-0', 'cn-test-1']).list(), (x: unknown) => x instanceof PlatformError && !(x instanceof RegionsFailed));
    });
  });

  describe('腾讯云 CVM', () => {
    const tc = (region?: string | string[]) => makeConnector({ kind: 'tencent-cvm', ...(region ? { region } : {}) }, { secretId: s.creds.tencentSecretId, secretKey: 'secret-key-value' }, ep, opts);

    it('a SPOTPAID instance is priced by the SPOTPAID inquiry; a PREPAID one has no hourly price and nothing is asked', async () => {
      s.add({ platform: 'tencent', id: 'ins-spot', name: 'spot', state: 'RUNNING', chargeType: 'SPOTPAID' });
      s.add({ platform: 'tencent', id: 'ins-pre', name: 'monthly', state: 'RUNNING', chargeType: 'PREPAID' });
      const c = tc('ap-guangzhou');
      const rows = await c.list();
      assert.deepStrictEqual(rows.map((r) => [r.ref, r.billing]).sort(), [['ins-pre', 'prepaid'], ['ins-spot', 'spot']]);
      assert.strictEqual((await c.price('ins-spot'))!.fenPerHour, 174, 'UnitPriceDiscount 1.74 yuan/h of the spot inquiry, not the on-demand 8.68');
      const q = JSON.parse(s.sent('tencent', 'InquiryPriceRunInstances')[0]!.body) as Record<string, unknown>;
      assert.strictEqual(q.InstanceChargeType, 'SPOTPAID');
      assert.strictEqual((q.InstanceMarketOptions as { MarketType?: string }).MarketType, 'spot');
      assert.strictEqual(await c.price('ins-pre'), undefined);
      assert.strictEqual(s.sent('tencent', 'InquiryPriceRunInstances').length, 1, 'nothing asked for the prepaid one');
    });

    it('with no region chosen, every region is read (signed for that region); a stop goes to the instance’s own region', async () => {
      s.add({ platform: 'tencent', id: 'ins-gz', name: 'guangzhou', state: 'RUNNING' });
      s.add({ platform: 'tencent', id: 'ins-sh', name: 'shanghai', state: 'RUNNING', region: 'ap-shanghai' });
      const c = tc();
      const rows = await c.list();
      assert.deepStrictEqual(rows.map((r) => [r.ref, r.region]).sort(), [['ins-gz', 'ap-guangzhou'], ['ins-sh', 'ap-shanghai']]);
      assert.strictEqual(s.sent('tencent', 'DescribeRegions').length, 1);
      await c.powerOff('ins-sh', 'stopCharging');
      const stop = s.sent('tencent', 'StopInstances');
      assert.deepStrictEqual(stop.map((r) => r.region), ['ap-shanghai']);
      assert.strictEqual(s.instances.get('ins-sh')!.state, 'STOPPING', 'the Shanghai instance got it');
      // A chosen list reads only those.
      s.requests.length = 0;
      assert.deepStrictEqual((await tc(['ap-shanghai']).list()).map((r) => r.ref), ['ins-sh']);
      assert.strictEqual(s.sent('tencent', 'DescribeRegions').length, 0);
    });
  });
});
