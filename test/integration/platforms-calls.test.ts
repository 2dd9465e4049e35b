// Requests per refresh, counted by the local platform server: one refresh is what the platform
// monitor does for an account (list; each running instance without a listed price asked for its
// price, at most hourly; each new instance's login), through the real connector and
// applyPlatformList on a real in-memory store. A refresh reads each thing once.
import * as assert from 'node:assert';
import { builtinCatalog } from '../../src/core/catalog';
import { can, type Connector, type PlatformInstance } from '../../src/core/platforms/types';
import { makeConnector, type Endpoints } from '../../src/app/platforms/accounts';
import { loadSdks } from '../../src/app/platforms/loadSdks';
import { applyPlatformList, type ApplyDeps, type Observation } from '../../src/extension/monitors/platformApply';
import { InstanceStore } from '../../src/extension/store';
import { MemoryMemento, MemorySecrets } from '../support/memory-store';
import { PlatformServer, type FakePlatform } from '../support/platform-server';

const now = () => Math.floor(Date.now() / 1000);

/** One refresh of one account, as monitors/platforms.ts pollAccount → apply → withPrice does it. */
async function refresh(c: Connector, account: { id: string; kind: Connector['kind'] }, store: InstanceStore, observations: Map<string, Observation>): Promise<void> {
  const priceOf = async (_id: string, p: PlatformInstance) => {
    if (p.priceFenPerHour !== undefined || p.state !== 'running' || p.billing === 'prepaid' || !can(c.kind, 'price')) return p;
    const price = await c.price(p.ref).catch(() => undefined);
    return price ? { ...p, priceFenPerHour: price.fenPerHour, priceReadAt: price.readAt } : p;
  };
  const d: ApplyDeps = { store, now, catalog: () => builtinCatalog(), log: { info: () => undefined }, invalidate: () => undefined, observations, priceOf };
  await applyPlatformList(d, account, c, await c.list());
}

describe('platform calls per refresh (counted by the platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let ep: Endpoints;
  beforeEach(async () => {
    s = await PlatformServer.start();
    ep = s.endpoints;
  });
  afterEach(() => s.close());
  const fresh = () => ({ store: new InstanceStore(new MemoryMemento(), new MemorySecrets(), now), observations: new Map<string, Observation>() });
  /** The list's DescribeInstances: one page per region read (DescribeRegions' answer), each region once. */
  const onePerRegion = (p: FakePlatform) => {
    const regions = s.sent(p, 'DescribeInstances').map((r) => r.region);
    assert.strictEqual(new Set(regions).size, regions.length, `a region read twice: ${regions.join(', ')}`);
    return regions.length;
  };
  const counts = (p: FakePlatform) => {
    const m: Record<string, number> = {};
    for (const r of s.sent(p)) m[r.action || r.path] = (m[r.action || r.path] ?? 0) + 1;
    return m;
  };

  it('AutoDL console: 5 new instances are listed once, not once more per instance for its login', async () => {
    for (let n = 0; n < 5; n++) s.add({ platform: 'autodl-web', id: `web-${n}`, name: `w${n}`, state: 'running' });
    const { store, observations } = fresh();
    await refresh(makeConnector({ kind: 'autodl-web' }, { token: s.creds.autodlWeb }, ep, { timeoutMs: 5000, now }), { id: 'web', kind: 'autodl-web' }, store, observations);
    // The console's list row has the login but no price: each running one's price from its snapshot.
    assert.deepStrictEqual(counts('autodl-web'), { '/api/v1/instance': 1, '/api/v1/instance/snapshot': 5 });
    assert.strictEqual(store.list().length, 5);
    assert.ok(store.list().every((i) => i.login.host !== 'invalid'), 'every new instance has its login');
  });

  it('AutoDL Pro: each new instance’s snapshot is read once per refresh (card, price and login from the same read)', async () => {
    for (let n = 0; n < 5; n++) s.add({ platform: 'autodl-pro', id: `pro-${n}`, name: `p${n}`, state: n < 3 ? 'running' : 'shutdown' });
    const { store, observations } = fresh();
    const snapshots = new Map();
    const c = () => makeConnector({ kind: 'autodl-pro' }, { token: s.creds.autodlPro }, ep, { timeoutMs: 5000, now, snapshots });
    await refresh(c(), { id: 'pro', kind: 'autodl-pro' }, store, observations);
    assert.deepStrictEqual(counts('autodl-pro'), { '/api/v1/dev/instance/pro/list': 1, '/api/v1/dev/instance/pro/snapshot': 5 });
    assert.ok(store.list().every((i) => i.login.host === '127.0.0.1'), 'every new instance has its login from its snapshot');
    s.requests.length = 0;
    await refresh(c(), { id: 'pro', kind: 'autodl-pro' }, store, observations);
    assert.deepStrictEqual(counts('autodl-pro'), { '/api/v1/dev/instance/pro/list': 1 }, 'nothing changed: the list only');
  });

  it('阿里云: the price of a listed pay-as-you-go instance reuses the listed row (no second DescribeInstances)', async () => {
    for (let n = 0; n < 3; n++) s.add({ platform: 'aliyun', id: `i-ali${n}`, name: `a${n}`, state: 'Running' });
    const { store, observations } = fresh();
    await refresh(makeConnector({ kind: 'aliyun-ecs' }, { accessKeyId: s.creds.aliyunKeyId, accessKeySecret: 'secret' }, ep, { timeoutMs: 5000, now }), { id: 'ali', kind: 'aliyun-ecs' }, store, observations);
    const m = counts('aliyun');
    assert.strictEqual(m.DescribeInstances, onePerRegion('aliyun'), JSON.stringify(m));
    assert.ok((m.DescribePrice ?? 0) + (m.DescribeSpotPriceHistory ?? 0) === 3, JSON.stringify(m));
    assert.ok(store.list().every((i) => i.pricing.hourlyRate > 0), 'each priced');
  });

  it('腾讯云: the price reuses the listed row, and one SDK client per region serves the whole refresh', async () => {
    for (let n = 0; n < 3; n++) s.add({ platform: 'tencent', id: `ins-tc${n}`, name: `t${n}`, state: 'RUNNING' });
    const { store, observations } = fresh();
    const sdk = loadSdks().cvm.v20170312;
    const Real = sdk.Client;
    let built = 0;
    // Counts constructions; the class and its requests are the SDK's own.
    (sdk as { Client: unknown }).Client = class extends Real {
      constructor(...a: ConstructorParameters<typeof Real>) {
        super(...a);
        built++;
      }
    };
    try {
      await refresh(makeConnector({ kind: 'tencent-cvm' }, { secretId: s.creds.tencentSecretId, secretKey: 'secret' }, ep, { timeoutMs: 5000, now }), { id: 'tc', kind: 'tencent-cvm' }, store, observations);
    } finally {
      (sdk as { Client: unknown }).Client = Real;
    }
    const m = counts('tencent');
    assert.strictEqual(m.DescribeInstances, onePerRegion('tencent'), JSON.stringify(m));
    assert.strictEqual(m.InquiryPriceRunInstances, 3, JSON.stringify(m));
    const regions = new Set(s.sent('tencent').map((r) => r.region)).size;
    assert.strictEqual(built, regions, `SDK clients built: ${built} for ${regions} regions, ${s.sent('tencent').length} requests`);
    assert.ok(store.list().every((i) => i.pricing.hourlyRate > 0), 'each priced');
  });
});
