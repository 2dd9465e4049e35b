// The four connectors against the local platform server (no network): state over time,
// paging, prices and balances in fen, errors with the platform's own code, the GET-with-body
// quirk, power actions sent once, and the official SDKs signing with the configured key.
import * as assert from 'node:assert';
import { makeConnector, type Endpoints } from '../../src/app/platforms/accounts';
import type { SnapshotCache } from '../../src/app/platforms/autodl';
import { PlatformError } from '../../src/app/platforms/errors';
import { TARGET, waitForState } from '../../src/app/platforms/settle';
import { PlatformServer } from '../support/platform-server';

const now = () => Math.floor(Date.now() / 1000);
const opts = { timeoutMs: 5000, now };

async function rejects(p: Promise<unknown>, kind: string, code?: RegExp): Promise<PlatformError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof PlatformError, `not a PlatformError: ${String(e)}`);
    assert.strictEqual(e.failure.kind, kind, e.message);
    if (code) assert.match(e.failure.code, code);
    return e;
  }
  assert.fail('did not reject');
}

describe('platform connectors against the local server', function () {
  this.timeout(30000);
  let s: PlatformServer;
  let ep: Endpoints;
  beforeEach(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
    ep = s.endpoints;
  });
  afterEach(() => s.close());

  describe('AutoDL Pro (developer token)', () => {
    const pro = () => makeConnector({ kind: 'autodl-pro' }, { token: s.creds.autodlPro }, ep, opts);

    it('lists every page, then reads each instance’s snapshot (query form) for card, price and login, once, again only when its state changes', async () => {
      for (let n = 0; n < 130; n++) s.add({ platform: 'autodl-pro', id: `pro-${String(n).padStart(4, '0')}`, name: `box ${n}`, state: n === 0 ? 'running' : 'shutdown', ...(n === 1 ? { stoppedAt: '2026-04-08T00:13:29+08:00' } : {}) });
      const snapshots: SnapshotCache = new Map();
      const c = () => makeConnector({ kind: 'autodl-pro' }, { token: s.creds.autodlPro }, ep, { ...opts, snapshots });
      const list = await c().list();
      assert.strictEqual(list.length, 130);
      assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/list').length, 2, 'two pages of 100');
      const snaps = s.sent('autodl-pro', '/api/v1/dev/instance/pro/snapshot');
      assert.strictEqual(snaps.length, 130, 'one snapshot per instance');
      for (const r of snaps) assert.ok(r.body === '' && r.query.instance_uuid, 'the query form, no JSON body: one request each');
      const first = list.find((i) => i.ref === 'pro-0000')!;
      assert.deepStrictEqual([first.state, first.card, first.priceFenPerHour, first.billing], ['running', 'NVIDIA RTX PRO 6000', 197, 'postpaid'], 'the documented snapshot: payg_price 1970 ¥/1000 = 197 fen per hour');
      assert.deepStrictEqual(first.ssh, { host: '127.0.0.1', port: 40022, user: 'root' });
      const stopped = list.find((i) => i.ref === 'pro-0001')!;
      assert.strictEqual(stopped.state, 'stopped');
      assert.deepStrictEqual(stopped.ssh, { host: '127.0.0.1', port: 40022, user: 'root' }, 'a shut-down instance has its login too (from its snapshot)');
      assert.strictEqual(stopped.releaseAt, Date.parse('2026-04-23T00:13:29+08:00') / 1000, "the platform's stopped_at + 15 days");
      for (const r of s.sent('autodl-pro')) assert.strictEqual(r.authorization, s.creds.autodlPro, 'the token without "Bearer"');
      s.requests.length = 0;
      await c().list();
      assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/snapshot').length, 0, 'the next poll reads no snapshot: nothing changed');
      s.instances.get('pro-0002')!.state = 'running';
      s.requests.length = 0;
      await c().list();
      assert.deepStrictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/snapshot').map((r) => r.query.instance_uuid), ['pro-0002'], 'only the instance whose state changed');
    });

    it('a snapshot that cannot be read leaves the row: the card from the documented spec id, no price, no login', async () => {
      s.add({ platform: 'autodl-pro', id: 'pro-n', name: 'n', state: 'running', specId: 'v-48g', noSnapshot: true });
      const [p] = await pro().list();
      assert.deepStrictEqual([p!.card, p!.priceFenPerHour, p!.ssh], ['4090-48G', undefined, undefined]);
    });

    it('powers off and on: stopping → stopped, starting → running, a new port and password after the restart, each action sent once', async () => {
      s.add({ platform: 'autodl-pro', id: 'pro-a', name: 'a', state: 'running' });
      const c = pro();
      await c.powerOff('pro-a', 'keep');
      assert.strictEqual((await c.get('pro-a')).state, 'stopping');
      const seen: string[] = [];
      const off = await waitForState(c, 'pro-a', TARGET.powerOff, { deadlineMs: 5000, intervalMs: 50, onProgress: (p) => seen.push(p.state) });
      assert.ok(off.settled);
      assert.strictEqual(seen.at(-1), 'stopped');
      const before = await c.sshLogin('pro-a');
      await c.powerOn('pro-a', 'gpu');
      assert.strictEqual((await c.get('pro-a')).state, 'starting');
      assert.ok((await waitForState(c, 'pro-a', TARGET.powerOnGpu, { deadlineMs: 5000, intervalMs: 50 })).settled);
      const after = await c.sshLogin('pro-a');
      assert.notStrictEqual(after!.port, before!.port);
      assert.strictEqual(after!.password, `pw-${after!.port}`);
      assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 1);
      assert.deepStrictEqual(JSON.parse(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on')[0]!.body), { instance_uuid: 'pro-a', payload: 'gpu' });
      assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_off').length, 1);
    });

    it('reads state with the query form first (pro/status); the JSON-body form only if the query is refused', async () => {
      s.add({ platform: 'autodl-pro', id: 'pro-q', name: 'q', state: 'running' });
      assert.strictEqual((await pro().get('pro-q')).state, 'running');
      const st = s.sent('autodl-pro', '/api/v1/dev/instance/pro/status');
      assert.deepStrictEqual([st.length, st[0]!.method, st[0]!.body, st[0]!.query.instance_uuid], [1, 'GET', '', 'pro-q']);
      s.refuseQuery = true;
      s.refuseGetBody = false;
      s.requests.length = 0;
      assert.strictEqual((await pro().get('pro-q')).state, 'running');
      const again = s.sent('autodl-pro', '/api/v1/dev/instance/pro/status');
      assert.strictEqual(again.length, 2);
      assert.deepStrictEqual(JSON.parse(again[1]!.body), { instance_uuid: 'pro-q' });
    });

    it('reads the balance in fen; no stock (InternalError 当前算力规格暂无库存) is no stock, said with the ways out; a refused power-on is not retried', async () => {
      s.add({ platform: 'autodl-pro', id: 'pro-b', name: 'b', state: 'shutdown' });
      assert.strictEqual((await pro().balance()).fen, 12345);
      s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'noStock' });
      const e = await rejects(pro().powerOn('pro-b', 'gpu'), 'noStock', /InternalError/);
      assert.match(e.message, /暂无库存/);
      assert.match(e.message, /try again later|another/);
      assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 1);
      s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'realName' });
      assert.match((await rejects(pro().powerOn('pro-b', 'gpu'), 'realName', /TORealName/)).message, /real-name verification/);
      s.balances.autodlPro = 0;
      await rejects(pro().powerOn('pro-b', 'gpu'), 'insufficientBalance', /InsufficientBalance/);
      await rejects(pro().powerOn('pro-b', 'noGpu'), 'notSupported');
    });

    it('a refused token, a 429 and a 5xx are typed; an unreachable API fails within the deadline', async () => {
      await rejects(makeConnector({ kind: 'autodl-pro' }, { token: 'wrong' }, ep, opts).list(), 'tokenExpired', /AuthorizeFailed/);
      s.fault({ platform: 'autodl-pro', error: 'serverError', status: 429 });
      await rejects(pro().list(), 'rateLimited');
      s.fault({ platform: 'autodl-pro', error: 'serverError', status: 503 });
      await rejects(pro().list(), 'server');
      const t0 = Date.now();
      await rejects(makeConnector({ kind: 'autodl-pro' }, { token: 't' }, { autodlApi: 'http://127.0.0.1:9' }, { timeoutMs: 2000, now }).list(), 'network');
      assert.ok(Date.now() - t0 < 2500);
    });

    it('releases a shut-down instance and sees it released; a running one is not sent a release: shut down first', async () => {
      s.add({ platform: 'autodl-pro', id: 'pro-r', name: 'r', state: 'shutdown' });
      const c = pro();
      await c.release('pro-r');
      assert.ok((await waitForState(c, 'pro-r', TARGET.release, { deadlineMs: 5000, intervalMs: 50 })).settled);
      s.add({ platform: 'autodl-pro', id: 'pro-up', name: 'up', state: 'running' });
      const e = await rejects(c.release('pro-up'), 'invalidState', /NotShutDown/);
      assert.match(e.message, /shut it down first/);
      assert.deepStrictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/release').map((r) => JSON.parse(r.body).instance_uuid), ['pro-r'], 'nothing sent for the running one');
    });
  });

  describe('AutoDL console token (experimental)', () => {
    const web = (token = s.creds.autodlWeb) => makeConnector({ kind: 'autodl-web' }, { token }, ep, opts);

    it('starts in no-GPU mode (payload non_gpu) and reports it as no-GPU; the wallet in fen', async () => {
      s.add({ platform: 'autodl-web', id: 'w1', name: 'w', state: 'shutdown' });
      const c = web();
      assert.ok(c.capabilities.includes('powerOn:noGpu'));
      await c.powerOn('w1', 'noGpu');
      assert.deepStrictEqual(JSON.parse(s.sent('autodl-web', '/api/v1/instance/power_on')[0]!.body), { instance_uuid: 'w1', payload: 'non_gpu' });
      const r = await waitForState(c, 'w1', TARGET.powerOnNoGpu, { deadlineMs: 5000, intervalMs: 50 });
      assert.strictEqual(r.last!.state, 'noGpu');
      assert.strictEqual((await c.balance()).fen, 8800);
      assert.strictEqual(s.sent('autodl-web', '/api/v1/instance/snapshot').length, 0, 'state from the list: no snapshot read');
      assert.ok(s.sent('autodl-web', '/api/v1/instance').length >= 2);
      const login = await c.sshLogin('w1');
      assert.deepStrictEqual(login, { host: '127.0.0.1', port: 40023, user: 'root', password: 'pw-40023' }, 'the login from the list row');
      assert.strictEqual((await c.price('w1'))?.fenPerHour, 954, 'the price from the console snapshot');
    });

    it('no free GPU on the host (InstanceError 该主机空闲GPU不足) says so with the ways out; the release day is the console’s release_at', async () => {
      s.add({ platform: 'autodl-web', id: 'w3', name: 'w', state: 'shutdown', noFreeGpu: true, stoppedAt: '2026-04-01T10:00:00+08:00', releaseAt: '2026-04-16 10:00:00' });
      const e = await rejects(web().powerOn('w3', 'gpu'), 'noGpuOnHost', /InstanceError/);
      assert.match(e.message, /no free GPU/);
      assert.match(e.message, /clone|migrate/);
      assert.match(e.message, /no-GPU/);
      const [p] = await web().list();
      assert.strictEqual(p!.releaseAt, Date.parse('2026-04-16T10:00:00+08:00') / 1000);
      assert.strictEqual(p!.stoppedAt, Date.parse('2026-04-01T10:00:00+08:00') / 1000);
    });

    it('an expired console token is AuthorizeFailed with the hint to paste a new one', async () => {
      const e = await rejects(web('expired').list(), 'tokenExpired', /AuthorizeFailed/);
      assert.match(e.message, /paste a new one/);
      await rejects(web().release('x'), 'notSupported');
    });

    it('实名认证 required is named', async () => {
      s.add({ platform: 'autodl-web', id: 'w2', name: 'w', state: 'shutdown' });
      s.fault({ platform: 'autodl-web', on: '/api/v1/instance/power_on', error: 'realName' });
      const e = await rejects(web().powerOn('w2', 'gpu'), 'realName');
      assert.match(e.message, /实名认证/);
    });
  });

  describe('阿里云 ECS (official SDK)', () => {
    const ali = (id = s.creds.aliyunKeyId) => makeConnector({ kind: 'aliyun-ecs', region: 'cn-hangzhou' }, { accessKeyId: id, accessKeySecret: 'secret-value' }, ep, opts);

    it('signs with the configured AccessKeyId, pages DescribeInstances, stops with StoppedMode=StopCharging and starts again', async () => {
      for (let n = 0; n < 105; n++) s.add({ platform: 'aliyun', id: `i-${String(n).padStart(4, '0')}`, name: `e${n}`, state: 'Running' });
      const c = ali();
      const list = await c.list();
      assert.strictEqual(list.length, 105);
      assert.strictEqual(s.sent('aliyun', 'DescribeInstances').length, 2);
      for (const r of s.sent('aliyun')) {
        assert.match(r.authorization, /^ACS3-HMAC-SHA256 Credential=LTAI-test-key-id,/);
        assert.ok(!r.authorization.includes('secret-value') && !r.body.includes('secret-value') && !JSON.stringify(r.query).includes('secret-value'));
      }
      assert.strictEqual(list[0]!.card, 'NVIDIA A10');
      await c.powerOff('i-0000', 'stopCharging');
      assert.strictEqual(s.sent('aliyun', 'StopInstance')[0]!.query.StoppedMode, 'StopCharging');
      const off = await waitForState(c, 'i-0000', TARGET.powerOff, { deadlineMs: 5000, intervalMs: 50 });
      assert.strictEqual(off.last!.state, 'stopped');
      assert.strictEqual(off.last!.stopCharging, true);
      await c.powerOn('i-0000', 'gpu');
      assert.ok((await waitForState(c, 'i-0000', TARGET.powerOnGpu, { deadlineMs: 5000, intervalMs: 50 })).settled);
      assert.strictEqual(s.sent('aliyun', 'StartInstance').length, 1);
    });

    it('price from DescribePrice and the BSS balance ("1,234.56" yuan) in fen; deletes a stopped instance', async () => {
      s.add({ platform: 'aliyun', id: 'i-p', name: 'p', state: 'Stopped' });
      const c = ali();
      assert.strictEqual((await c.price('i-p'))!.fenPerHour, 1250);
      assert.strictEqual((await c.balance()).fen, 123456);
      await c.release('i-p');
      assert.ok((await waitForState(c, 'i-p', TARGET.release, { deadlineMs: 5000, intervalMs: 50 })).settled);
    });

    it('names 阿里云’s codes: a wrong key, no stock, not enough balance, throttling', async () => {
      s.add({ platform: 'aliyun', id: 'i-e', name: 'e', state: 'Stopped' });
      await rejects(ali('LTAI-other').list(), 'auth', /InvalidAccessKeyId/);
      s.fault({ platform: 'aliyun', on: 'StartInstance', error: 'noStock', status: 403 });
      await rejects(ali().powerOn('i-e', 'gpu'), 'noStock', /OperationDenied\.NoStock/);
      assert.strictEqual(s.sent('aliyun', 'StartInstance').length, 1, 'a refused start is not retried');
      s.fault({ platform: 'aliyun', on: 'StartInstance', error: 'notEnoughBalance', status: 403 });
      await rejects(ali().powerOn('i-e', 'gpu'), 'insufficientBalance');
      s.fault({ platform: 'aliyun', error: 'throttling', status: 429 });
      await rejects(ali().list(), 'rateLimited');
    });
  });

  describe('腾讯云 CVM (official SDK)', () => {
    const tc = (id = s.creds.tencentSecretId) => makeConnector({ kind: 'tencent-cvm', region: 'ap-guangzhou' }, { secretId: id, secretKey: 'secret-key-value' }, ep, opts);

    it('signs TC3 with the configured SecretId, pages, stops with STOP_CHARGING, terminates', async () => {
      for (let n = 0; n < 101; n++) s.add({ platform: 'tencent', id: `ins-${String(n).padStart(4, '0')}`, name: `t${n}`, state: 'RUNNING' });
      const c = tc();
      assert.strictEqual((await c.list()).length, 101);
      assert.strictEqual(s.sent('tencent', 'DescribeInstances').length, 2);
      for (const r of s.sent('tencent')) {
        assert.match(r.authorization, /^TC3-HMAC-SHA256 Credential=AKID-test-secret-id\//);
        assert.ok(!r.authorization.includes('secret-key-value') && !r.body.includes('secret-key-value'));
      }
      await c.powerOff('ins-0000', 'stopCharging');
      assert.strictEqual(JSON.parse(s.sent('tencent', 'StopInstances')[0]!.body).StoppedMode, 'STOP_CHARGING');
      const off = await waitForState(c, 'ins-0000', TARGET.powerOff, { deadlineMs: 5000, intervalMs: 50 });
      assert.strictEqual(off.last!.stopCharging, true);
      await c.release('ins-0000');
      assert.ok((await waitForState(c, 'ins-0000', TARGET.release, { deadlineMs: 5000, intervalMs: 50 })).settled);
    });

    it('price from InquiryPriceRunInstances and the balance in fen from billing', async () => {
      s.add({ platform: 'tencent', id: 'ins-p', name: 'p', state: 'RUNNING' });
      assert.strictEqual((await tc().price('ins-p'))!.fenPerHour, 868);
      assert.strictEqual((await tc().balance()).fen, 98765);
      assert.strictEqual(s.sent('tencent', 'DescribeAccountBalance').length, 1);
    });

    it('names 腾讯云’s codes: AuthFailure, 库存不足, 余额不足, RequestLimitExceeded, a 5xx', async () => {
      s.add({ platform: 'tencent', id: 'ins-e', name: 'e', state: 'STOPPED' });
      await rejects(tc('AKID-other').list(), 'auth', /AuthFailure/);
      s.fault({ platform: 'tencent', on: 'StartInstances', error: 'noStock' });
      await rejects(tc().powerOn('ins-e', 'gpu'), 'noStock', /ResourceInsufficient/);
      s.fault({ platform: 'tencent', on: 'StartInstances', error: 'insufficientBalance' });
      await rejects(tc().powerOn('ins-e', 'gpu'), 'insufficientBalance');
      assert.strictEqual(s.sent('tencent', 'StartInstances').length, 2, 'each refused start sent once');
      s.fault({ platform: 'tencent', error: 'rateLimited' });
      await rejects(tc().list(), 'rateLimited');
    });
  });
});
