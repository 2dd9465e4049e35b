// The pure platform code: each platform's JSON (the shapes in test/fixtures/platforms) mapped to
// instance facts, amounts converted once to fen, error classification, matching and the
// observed-state, balance and SSH-inference rules.
import * as assert from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTODL_BASE_IMAGE_CUDA, AUTODL_SPEC_CARDS, autodlBalance, autodlInstance, autodlLogin, autodlPage, autodlState, autodlTime, envelopeOf, parseSshCommand, withAutodlSnapshot } from '../../src/core/platforms/autodl';
import { aliyunBalance, aliyunBilling, aliyunInstance, aliyunPrice, aliyunRegions, aliyunSpotPrice } from '../../src/core/platforms/aliyun';
import { tencentBalance, tencentBilling, tencentInstance, tencentPrice, tencentRegions } from '../../src/core/platforms/tencent';
import { accountIdentity, afterPowerOff, powerOffModeFor } from '../../src/core/platforms/billing';
import { classifyFailure } from '../../src/core/platforms/errors';
import { fenOf, liToFen, yuanTextToFen } from '../../src/core/platforms/money';
import { balanceLow, billedState, inferState, matchStored, observedChange, runwayHours } from '../../src/core/platforms/reconcile';
import { can, CONNECTOR_CAPABILITIES } from '../../src/core/platforms/types';

const FIX = join(__dirname, '..', 'fixtures', 'platforms');
const fixture = (f: string) => JSON.parse(readFileSync(join(FIX, f), 'utf8')) as Record<string, unknown>;

describe('platform mapping (pure)', () => {
  it('converts each platform’s minor unit to fen once: AutoDL ¥/1000, 阿里云 yuan text, 腾讯云 fen', () => {
    assert.strictEqual(liToFen(2580), 258);
    assert.strictEqual(liToFen(1), 0);
    assert.strictEqual(liToFen(5), 1, 'half a fen rounds up');
    assert.strictEqual(liToFen('abc'), undefined);
    assert.strictEqual(yuanTextToFen('1,234.56'), 123456);
    assert.strictEqual(yuanTextToFen('0.005'), 1);
    assert.strictEqual(yuanTextToFen(12.5), 1250);
    assert.strictEqual(yuanTextToFen('-3.10'), -310);
    assert.strictEqual(yuanTextToFen('1e9'), undefined);
    assert.strictEqual(fenOf(98765), 98765);
    assert.strictEqual(fenOf(1e20), undefined);
  });

  it('maps a documented AutoDL Pro list row: state, spec id → card from the appendix, no price, no login; the snapshot adds card, price and login', () => {
    const doc = fixture('autodl-pro-doc-examples.json') as { list: { response: { data: { list: unknown[] } } }; snapshot: { response: { data: unknown } }; gpu_spec_ids: Record<string, string> };
    const row = doc.list.response.data.list[0] as Record<string, unknown>;
    const p = autodlInstance(row, 1000)!;
    assert.deepStrictEqual([p.ref, p.name, p.state, p.card, p.gpuCount, p.region, p.billing], ['pro-76576c61fdf1', 'zqAPI创建', 'running', 'PRO6000-96G', 1, '内蒙C区', 'postpaid']);
    assert.strictEqual(p.priceFenPerHour, undefined, 'a list row carries no price');
    assert.strictEqual(p.ssh, undefined, 'a list row carries no login');
    // Every spec id of the appendix names its card.
    for (const [card, id] of Object.entries(doc.gpu_spec_ids)) assert.strictEqual(AUTODL_SPEC_CARDS[id], card);
    // The appendix in full (4090D included) and its base images' CUDA, as the clients that read the page quote it.
    const appendix = fixture('autodl-pro-appendix.json') as { gpu_spec_ids: { card: string; gpu_spec_uuid: string }[]; base_images: { image_uuid: string; image: string }[] };
    assert.deepStrictEqual(AUTODL_SPEC_CARDS, Object.fromEntries(appendix.gpu_spec_ids.map((r) => [r.gpu_spec_uuid, r.card])));
    assert.deepStrictEqual(AUTODL_BASE_IMAGE_CUDA, Object.fromEntries(appendix.base_images.map((r) => [r.image_uuid, /^cuda(?:gl)?(\d+\.\d+)/.exec(r.image)![1]])));
    const snap = doc.snapshot.response.data;
    const full = withAutodlSnapshot(p, snap, 2000);
    assert.deepStrictEqual([full.state, full.card, full.priceFenPerHour, full.priceReadAt], ['running', 'NVIDIA RTX PRO 6000', 197, 2000], 'payg_price 1970 (¥/1000 per hour, after discount) is ¥1.97/h');
    assert.deepStrictEqual(full.ssh, { host: 'connect.xxx.autodl.com', port: 34222, user: 'root' });
    assert.deepStrictEqual(autodlLogin(snap), { host: 'connect.xxx.autodl.com', port: 34222, user: 'root', password: 'jbeOXgTWUxq+' });
    assert.strictEqual(withAutodlSnapshot(p, {}, 3).card, 'PRO6000-96G', 'no snapshot: the appendix card stays');
    assert.deepStrictEqual(['creating', 'starting', 'running', 'shutting_down', 'shutdown', 'releasing', 'released', 'weird'].map((s) => autodlState(s)), ['starting', 'starting', 'running', 'stopping', 'stopped', 'releasing', 'released', 'unknown']);
    assert.deepStrictEqual(['sys_volume_creating', 'power_off', 'shutdown_by_starting_error', 'shutdown_by_running_error', 'removing', 'removed'].map((s) => autodlState(s)), ['starting', 'stopped', 'stopped', 'stopped', 'releasing', 'released'], 'the words public clients report');
    assert.strictEqual(autodlInstance({ uuid: '../etc' }, 1), undefined, 'an id that is not one is dropped');
    assert.strictEqual(autodlBalance((fixture('autodl-envelopes.json').wallet as { data: unknown }).data), 2929, 'assets 29290 is ¥29.29');
    assert.strictEqual(autodlBalance({ assets: 29290, blocked_asset: 1000 }), 2929, 'no source says what blocked_asset is: assets is the balance, nothing subtracted');
    assert.strictEqual(autodlPage({ list: [row, row], max_page: 3 }, 1, 100).maxPage, 3);
  });

  it('takes the release clock from the platform: Pro stopped_at + 15 days, the console’s own release_at (Beijing time)', () => {
    const doc = fixture('autodl-pro-doc-examples.json') as { list: { response: { data: { list: Record<string, unknown>[] } } } };
    const row = doc.list.response.data.list[0]!;
    assert.strictEqual(autodlTime(row.stopped_at), undefined, '{Valid: false} is no time');
    assert.strictEqual(autodlTime(row.started_at), Date.parse('2025-12-15T17:31:05+08:00') / 1000);
    const stopped = autodlInstance({ ...row, status: 'shutdown', stopped_at: { Time: '2026-04-08T00:13:29+08:00', Valid: true } }, 1)!;
    assert.strictEqual(stopped.stoppedAt, Date.parse('2026-04-08T00:13:29+08:00') / 1000);
    assert.strictEqual(stopped.releaseAt, Date.parse('2026-04-23T00:13:29+08:00') / 1000, 'as public keepers compute it: stopped_at + 15 days');
    assert.strictEqual(autodlInstance(row, 1)!.releaseAt, undefined, 'a running instance has no release day');
    const web = autodlInstance(fixture('autodl-web-list-row.json'), 1)!;
    assert.deepStrictEqual([web.ref, web.name, web.state, web.card, web.region], ['iid-1', 'alpha', 'stopped', 'RTX 3080 Ti', '北京A区']);
    assert.strictEqual(web.releaseAt, Date.parse('2026-04-08T10:00:00+08:00') / 1000, 'the console’s release_at wins over stopped_at + 15 days');
    assert.strictEqual(web.ssh, undefined, 'that source shows no login fields');
    // The captured console row (another source) carries the login: its ssh_command is redacted ("xxx"), so proxy_host + ssh_port.
    const cap = autodlInstance(fixture('autodl-web-list-row-capture.json'), 1)!;
    assert.deepStrictEqual([cap.ref, cap.state, cap.card, cap.gpuCount, cap.region, cap.ssh], ['2dee4c9145-b0f2fdc8', 'stopped', 'RTX 3090', 1, '北京A区', { host: 'xx', port: 39451, user: 'root' }]);
    assert.deepStrictEqual(autodlLogin(fixture('autodl-web-list-row-capture.json')), { host: 'xx', port: 39451, user: 'root', password: 'SRfVpAGh+7xr' });
    assert.strictEqual(autodlInstance({ ...fixture('autodl-web-list-row.json'), status: 'running', start_mode: 'non_gpu' }, 1)!.state, 'noGpu');
    assert.strictEqual(autodlTime('2026-13-01 00:00:00'), undefined);
    assert.strictEqual(autodlTime('0001-01-01T00:00:00Z'), undefined);
    assert.strictEqual(autodlTime('2026-05-09T00:00:00+08:00'), Date.parse('2026-05-09T00:00:00+08:00') / 1000);
    const ws = withAutodlSnapshot(web, fixture('autodl-web-snapshot.json'), 5);
    assert.deepStrictEqual([ws.card, ws.priceFenPerHour], ['RTX 4090', 954], 'the console snapshot: payg_price 9536 → ¥9.54/h');
  });

  it('parses SSH login commands in both orders and refuses what is not one', () => {
    assert.deepStrictEqual(parseSshCommand('ssh -p 12345 root@region-1.example'), { host: 'region-1.example', port: 12345, user: 'root' });
    assert.deepStrictEqual(parseSshCommand('ssh root@10.0.0.2 -p 2200'), { host: '10.0.0.2', port: 2200, user: 'root' });
    assert.strictEqual(parseSshCommand('ssh -p 99999 root@h'), undefined);
    assert.strictEqual(parseSshCommand('rm -rf /'), undefined);
    assert.strictEqual(parseSshCommand(42), undefined);
  });

  it('reads the AutoDL envelope, bounding the text', () => {
    const e = envelopeOf({ code: 'AuthorizeFailed', msg: 'x'.repeat(5000), data: null })!;
    assert.strictEqual(e.code, 'AuthorizeFailed');
    assert.ok(e.msg.length <= 301);
    assert.strictEqual(envelopeOf('nope'), undefined);
  });

  it('maps 阿里云 and 腾讯云 rows, StopCharging / STOP_CHARGING, prices and balances', () => {
    const a = aliyunInstance({ ...fixture('aliyun-instance.json'), Status: 'Stopped', StoppedMode: 'StopCharging' })!;
    assert.deepStrictEqual([a.ref, a.state, a.stopCharging, a.card, a.ssh?.host], ['i-bp1a2b3c4d5e6f7g8h9', 'stopped', true, 'NVIDIA A10', '127.0.0.1']);
    const ali = fixture('aliyun-bodies.json');
    assert.strictEqual(aliyunPrice(ali.describePrice), 1250);
    assert.strictEqual(aliyunBalance(ali.queryAccountBalance), 123456);
    const t = tencentInstance({ ...fixture('tencent-instance.json'), InstanceState: 'STOPPED', StopChargingMode: 'STOP_CHARGING' })!;
    assert.deepStrictEqual([t.ref, t.state, t.stopCharging, t.card, t.region], ['ins-1a2b3c4d', 'stopped', true, 'NVIDIA T4', 'ap-guangzhou-3']);
    const tc = fixture('tencent-bodies.json');
    assert.strictEqual(tencentPrice(tc.inquiryPrice), 868);
    assert.strictEqual(tencentBalance(tc.describeAccountBalance), 98765);
  });

  it('reads the billing mode the clouds state: InstanceChargeType and SpotStrategy; spot prices and regions', () => {
    assert.strictEqual(aliyunInstance(fixture('aliyun-instance.json'))!.billing, 'postpaid');
    assert.deepStrictEqual([aliyunBilling('PrePaid', 'NoSpot'), aliyunBilling('PostPaid', 'SpotAsPriceGo'), aliyunBilling('PostPaid', 'SpotWithPriceLimit'), aliyunBilling('PostPaid', 'NoSpot'), aliyunBilling(undefined, undefined)], ['prepaid', 'spot', 'spot', 'postpaid', undefined]);
    assert.strictEqual(tencentInstance(fixture('tencent-instance.json'))!.billing, 'postpaid');
    assert.deepStrictEqual([tencentBilling('PREPAID'), tencentBilling('SPOTPAID'), tencentBilling('POSTPAID_BY_HOUR'), tencentBilling('CDHPAID')], ['prepaid', 'spot', 'postpaid', undefined]);
    const ali = fixture('aliyun-bodies.json');
    assert.strictEqual(aliyunSpotPrice(ali.describeSpotPriceHistory), 250);
    assert.strictEqual(aliyunSpotPrice({}), undefined);
    assert.deepStrictEqual(aliyunRegions(ali.describeRegions), ['cn-hangzhou', 'cn-beijing']);
    const tc = fixture('tencent-bodies.json');
    assert.strictEqual(tencentPrice(tc.inquiryPriceSpot), 174);
    assert.deepStrictEqual(tencentRegions(tc.describeRegions), ['ap-guangzhou', 'ap-shanghai']);
  });

  it('classifies errors by the platform’s code, then its words, then the HTTP status', () => {
    assert.strictEqual(classifyFailure('autodl-web', 'AuthorizeFailed', '登录过期').kind, 'tokenExpired');
    assert.strictEqual(classifyFailure('autodl-pro', 'Whatever', '余额不足，请充值').kind, 'insufficientBalance');
    assert.strictEqual(classifyFailure('autodl-pro', 'X', '主机GPU库存不足').kind, 'noStock');
    assert.strictEqual(classifyFailure('autodl-pro', 'X', '请先完成实名认证').kind, 'realName');
    const env = fixture('autodl-envelopes.json') as Record<string, { code: string; msg: string }>;
    const kind = (n: string) => classifyFailure('autodl-pro', env[n]!.code, env[n]!.msg).kind;
    assert.deepStrictEqual(['noStock', 'noFreeGpuOnHost', 'realName', 'authorizeFailed', 'recordNotFound', 'insufficientBalance', 'noAccess'].map(kind), ['noStock', 'noGpuOnHost', 'realName', 'tokenExpired', 'notFound', 'insufficientBalance', 'auth'], 'InternalError 当前算力规格暂无库存 is no stock, not a server fault');
    assert.strictEqual(classifyFailure('aliyun-ecs', 'OperationDenied.NoStock', '').kind, 'noStock');
    assert.strictEqual(classifyFailure('aliyun-ecs', 'InvalidAccessKeyId.NotFound', '').kind, 'auth');
    assert.strictEqual(classifyFailure('tencent-cvm', 'RequestLimitExceeded', '').kind, 'rateLimited');
    assert.strictEqual(classifyFailure('tencent-cvm', 'InternalError', 'x', 429).kind, 'rateLimited');
    assert.strictEqual(classifyFailure('autodl-pro', '', '', 502).kind, 'server');
    const f = classifyFailure('aliyun-ecs', 'Odd.Code', 'its own words');
    assert.deepStrictEqual([f.kind, f.code, f.message], ['other', 'Odd.Code', 'its own words']);
  });

  it('declares capabilities: no-GPU start only through the AutoDL console token, stop-charging only on 阿里云/腾讯云, no release on the console token', () => {
    assert.ok(can('autodl-web', 'powerOn:noGpu') && !can('autodl-pro', 'powerOn:noGpu'));
    assert.ok(can('aliyun-ecs', 'powerOff:stopCharging') && can('tencent-cvm', 'powerOff:stopCharging') && !can('autodl-pro', 'powerOff:stopCharging'));
    assert.ok(!can('autodl-web', 'release') && can('autodl-pro', 'release'));
    for (const caps of Object.values(CONNECTOR_CAPABILITIES)) assert.ok(caps.includes('list') && caps.includes('get'));
  });

  it('matches by platform id first, then SSH host:port, never one stored entry twice', () => {
    const stored = [
      { id: 'a', login: { host: '10.0.0.1', port: 22 } },
      { id: 'b', login: { host: '10.0.0.2', port: 22 }, platformRef: { account: 'acc', ref: 'ins-2' } },
    ];
    const p = (ref: string, host?: string) => ({ ref, name: ref, state: 'running' as const, rawState: 'RUNNING', ...(host ? { ssh: { host, port: 22, user: 'root' } } : {}) });
    assert.strictEqual(matchStored(stored, 'acc', p('ins-2', '10.9.9.9'))?.id, 'b');
    assert.strictEqual(matchStored(stored, 'acc', p('ins-1', '10.0.0.1'))?.id, 'a');
    assert.strictEqual(matchStored(stored, 'acc', p('ins-3', '10.0.0.1'), new Set(['a'])), undefined);
    assert.strictEqual(matchStored(stored, 'other', p('ins-2')), undefined);
  });

  it('records a change only when the platform arrives in a billing state; spot stays spot', () => {
    assert.strictEqual(observedChange('stopping', 'running'), undefined);
    assert.strictEqual(observedChange('stopped', 'running'), 'stopped');
    assert.strictEqual(observedChange('running', 'spot'), undefined);
    assert.strictEqual(observedChange('noGpu', 'running'), 'noGpu');
    assert.strictEqual(observedChange('running', 'released'), undefined);
  });

  it('a keep-charging stop on 阿里云/腾讯云 still bills as running; StopCharging and AutoDL shut-downs do not', () => {
    assert.strictEqual(billedState('aliyun-ecs', { state: 'stopped' }), 'running');
    assert.strictEqual(billedState('tencent-cvm', { state: 'stopped', stopCharging: true }), 'stopped');
    assert.strictEqual(billedState('autodl-pro', { state: 'stopped' }), 'stopped');
    assert.strictEqual(observedChange(billedState('aliyun-ecs', { state: 'stopped' }), 'running'), undefined);
  });

  it('one key for two regions, or one token twice, is one billing account; says what still bills after a power-off', () => {
    assert.strictEqual(accountIdentity('aliyun-ecs', { accessKeyId: 'LTAI1', accessKeySecret: 'a' }), accountIdentity('aliyun-ecs', { accessKeyId: 'LTAI1', accessKeySecret: 'a' }));
    assert.notStrictEqual(accountIdentity('tencent-cvm', { secretId: 'A' }), accountIdentity('tencent-cvm', { secretId: 'B' }));
    assert.strictEqual(accountIdentity('autodl-pro', { token: 'tok' }), accountIdentity('autodl-pro', { token: 'tok' }));
    assert.ok(!accountIdentity('autodl-pro', { token: 'secret-token-value' }).includes('secret-token-value'), 'no secret in the identity');
    // AutoDL tokens are JWTs naming the account's uid (a public client decodes the developer token so): one uid, one account, whatever the kind.
    const jwt = (payload: object) => ['{"alg":"HS256"}', JSON.stringify(payload)].map((x) => Buffer.from(x).toString('base64url')).join('.') + '.sig';
    assert.strictEqual(accountIdentity('autodl-pro', { token: jwt({ uid: 230135, uuid: 'a' }) }), accountIdentity('autodl-web', { token: jwt({ uid: 230135, uuid: 'b' }) }));
    assert.notStrictEqual(accountIdentity('autodl-pro', { token: jwt({ uid: 230135 }) }), accountIdentity('autodl-web', { token: jwt({ uid: 230136 }) }));
    assert.notStrictEqual(accountIdentity('autodl-pro', { token: jwt({ sub: 'x' }) }), accountIdentity('autodl-web', { token: jwt({ sub: 'x' }) }), 'no uid: each token its own account');
    assert.notStrictEqual(accountIdentity('autodl-pro', { token: 'a.%%%.c' }), accountIdentity('autodl-web', { token: 'a.%%%.c' }), 'not a JWT: by kind and fingerprint');
    assert.strictEqual(powerOffModeFor('aliyun-ecs'), 'stopCharging');
    assert.strictEqual(powerOffModeFor('tencent-cvm', true), 'keep');
    assert.strictEqual(powerOffModeFor('autodl-pro'), 'keep');
    assert.deepStrictEqual(afterPowerOff('tencent-cvm', 'stopCharging', { stopCharging: false }), { compute: 'bills', disks: true, publicIp: true, refused: true });
    assert.strictEqual(afterPowerOff('aliyun-ecs', 'stopCharging', { stopCharging: true }).compute, 'stops');
    assert.strictEqual(afterPowerOff('aliyun-ecs', 'stopCharging', { billing: 'prepaid' }).compute, 'prepaid');
    assert.deepStrictEqual(afterPowerOff('autodl-pro', 'keep', {}), { compute: 'stops', disks: true, publicIp: false, refused: false });
  });

  it('warns when the balance covers less than a day at the burn rate', () => {
    assert.strictEqual(runwayHours(1000, 0), Infinity);
    assert.ok(balanceLow(2300, 100));
    assert.ok(!balanceLow(2400, 100));
  });

  it('infers from SSH and only proposes: GPUs → running, none → no-GPU, N misses after being up → stopped?', () => {
    let m = { misses: 0, wasUp: false };
    assert.strictEqual(inferState(m, { reachable: true, gpuCount: 0 }, 'running').propose, 'noGpu');
    assert.strictEqual(inferState(m, { reachable: true, gpuCount: 2 }, 'stopped').propose, 'running');
    assert.strictEqual(inferState(m, { reachable: true, gpuCount: 2 }, 'running').propose, undefined);
    m = inferState(m, { reachable: true, gpuCount: 1 }, 'running').memory;
    const proposals: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      const r = inferState(m, { reachable: false }, 'running', 3);
      m = r.memory;
      proposals.push(r.propose);
    }
    assert.deepStrictEqual(proposals, [undefined, undefined, 'stopped?', undefined], 'asked once, at the third miss');
    assert.strictEqual(inferState({ misses: 2, wasUp: false }, { reachable: false }, 'running', 3).propose, undefined, 'never seen up: no proposal');
  });
});
