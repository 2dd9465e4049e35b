// 阿里云 / 腾讯云 creates against the local platform server (create-bodies.json shapes, sourced in
// SOURCES.md): what each RunInstances sets so the box can be reached (public bandwidth billed by
// traffic, the user's key imported as the login key pair, a security group that opens SSH only),
// the network pieces the preview checks before anything bills, a spot create that keeps the data
// disk and says what a reclaim does, and a sold-out zone that offers the zones that sell the type.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeConnector, type Endpoints } from '../../src/app/platforms/accounts';
import { createInstance, previewCreate, type CreatePreview } from '../../src/app/platforms/create';
import { isRefusal, type CreateRefusal } from '../../src/core/platforms/create';
import { PlatformServer } from '../support/platform-server';
import { runCliAsync } from '../support/cli';

const now = () => Math.floor(Date.now() / 1000);
const opts = { timeoutMs: 3000, now };

function preview(p: CreatePreview | CreateRefusal): CreatePreview {
  assert.ok(!isRefusal(p), `refused: ${JSON.stringify(p)}`);
  return p;
}
function refusal(p: CreatePreview | CreateRefusal): CreateRefusal {
  assert.ok(isRefusal(p), `not refused: ${JSON.stringify(p)}`);
  return p;
}
const aliForm = (q: { query: Record<string, string>; body: string }) => ({ ...q.query, ...Object.fromEntries(new URLSearchParams(q.body)) });

describe('cloud creates you can reach (local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let ep: Endpoints;
  let keyDir: string;
  let rsa: string;
  let ed: string;
  before(async () => {
    keyDir = await mkdtemp(join(tmpdir(), 'gpu-rent-key-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '2048', '-N', '', '-f', join(keyDir, 'id_rsa')]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keyDir, 'id_ed25519')]);
    rsa = join(keyDir, 'id_rsa.pub');
    ed = join(keyDir, 'id_ed25519.pub');
  });
  after(() => rm(keyDir, { recursive: true, force: true }));
  beforeEach(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 100;
    ep = s.endpoints;
  });
  afterEach(() => s.close());
  const tc = () => makeConnector({ kind: 'tencent-cvm', region: ['ap-guangzhou'] }, { secretId: s.creds.tencentSecretId, secretKey: 'k' }, ep, opts);
  const ali = () => makeConnector({ kind: 'aliyun-ecs', region: ['cn-hangzhou'] }, { accessKeyId: s.creds.aliyunKeyId, accessKeySecret: 'k' }, ep, opts);
  const aliInput = () => ({ card: 'ecs.gn7i-c8g1.2xlarge', gpus: 1, name: 'ecs-net', image: 'ubuntu_22_04_x64_20G_alibase_20240130.vhd', vSwitchId: 'vsw-test', sshKeyPath: ed });

  it('阿里云: bandwidth by traffic (10 Mbit/s unless asked), the key imported as KeyPairName, an SSH-only group made in the vSwitch’s VPC; the create waits for the public IP and hands over the login', async () => {
    const c = ali();
    const p = preview(await previewCreate(c, { ...aliInput(), bandwidthMbps: 20 }));
    assert.strictEqual(p.request.InternetMaxBandwidthOut, 20);
    assert.strictEqual(p.request.InternetChargeType, 'PayByTraffic');
    assert.match(String(p.request.KeyPairName), /^gpu_rent_[0-9a-f]{12}$/);
    assert.deepStrictEqual(p.cloud?.group, { make: 'gpu-rent-ssh-only', vpcId: 'vpc-test' });
    assert.strictEqual(p.cloud?.bandwidthPrice, undefined, 'no per-GB figure from DescribePrice: shown as ?');
    // The preview made nothing.
    assert.strictEqual(s.sent('aliyun', 'ImportKeyPair').length + s.sent('aliyun', 'CreateSecurityGroup').length + s.sent('aliyun', 'RunInstances').length, 0);
    const o = await createInstance(c, p, { settleMs: 5000, intervalMs: 50 });
    assert.ok(o.status === 'created' && o.settled && o.login, JSON.stringify(o));
    assert.ok(o.login.host && o.login.port === 22 && o.login.user === 'root', JSON.stringify(o.login));
    const run = aliForm(s.sent('aliyun', 'RunInstances')[0]!);
    assert.strictEqual(run.InternetMaxBandwidthOut, '20');
    assert.strictEqual(run.InternetChargeType, 'PayByTraffic');
    assert.strictEqual(run.KeyPairName, p.request.KeyPairName);
    assert.strictEqual(run.VSwitchId, 'vsw-test');
    assert.strictEqual(run.SecurityGroupId, 'sg-made1');
    const imported = aliForm(s.sent('aliyun', 'ImportKeyPair')[0]!);
    assert.match(imported.PublicKeyBody ?? '', /^ssh-ed25519 AAAA[^\s]+$/, 'the key line, without its comment');
    assert.deepStrictEqual(s.cloudNet.aliyunGroups.get('sg-made1'), { name: 'gpu-rent-ssh-only', vpcId: 'vpc-test', rules: ['tcp 22/22 0.0.0.0/0 accept'] });
    // A second create reuses the key pair and the group: nothing imported or made twice.
    const p2 = preview(await previewCreate(c, { ...aliInput(), name: 'ecs-net-2' }));
    assert.strictEqual(p2.request.InternetMaxBandwidthOut, 10, 'the stated default');
    assert.deepStrictEqual(p2.cloud?.group, { id: 'sg-made1', made: 'reused' });
    assert.strictEqual(p2.cloud?.key.exists, true);
    await createInstance(c, p2, { settleMs: 0, intervalMs: 50 });
    assert.strictEqual(s.sent('aliyun', 'ImportKeyPair').length, 1);
    assert.strictEqual(s.sent('aliyun', 'CreateSecurityGroup').length, 1);
  });

  it('阿里云: the preview refuses before anything bills without a vSwitch, with one not found, or with a security group of another VPC; preview and create send the same request', async () => {
    const c = ali();
    const { vSwitchId: _v, ...noVsw } = aliInput();
    assert.deepStrictEqual(refusal(await previewCreate(c, noVsw)).detail, { missing: 'vSwitch', platform: 'aliyun-ecs' });
    assert.strictEqual(refusal(await previewCreate(c, { ...aliInput(), vSwitchId: 'vsw-gone' })).detail.given, 'vsw-gone');
    s.cloudNet.aliyunGroups.set('sg-other', { name: 'x', vpcId: 'vpc-other', rules: [] });
    assert.match(String(refusal(await previewCreate(c, { ...aliInput(), securityGroupId: 'sg-other' })).detail.note), /vpc-other/);
    assert.strictEqual(refusal(await previewCreate(c, { ...aliInput(), securityGroupId: 'sg-nope' })).code, 'networkMissing');
    assert.strictEqual(refusal(await previewCreate(c, { ...aliInput(), sshKeyPath: join(keyDir, 'none.pub') })).code, 'badPublicKey');
    assert.strictEqual(s.sent('aliyun', 'RunInstances').length, 0);
    // The user's group: used as given, none made.
    s.cloudNet.aliyunGroups.set('sg-mine', { name: 'mine', vpcId: 'vpc-test', rules: [] });
    const p = preview(await previewCreate(c, { ...aliInput(), securityGroupId: 'sg-mine' }));
    await createInstance(c, p, { settleMs: 0, intervalMs: 50 });
    const run = aliForm(s.sent('aliyun', 'RunInstances')[0]!);
    for (const k of ['RegionId', 'InstanceType', 'ImageId', 'InstanceName', 'SecurityGroupId', 'VSwitchId', 'KeyPairName', 'InternetChargeType', 'ClientToken']) assert.strictEqual(run[k], String(p.request[k]), k);
    assert.strictEqual(s.sent('aliyun', 'CreateSecurityGroup').length, 0);
  });

  it('阿里云 spot: the data disk outlives a reclaim, SpotInterruptionBehavior is the user’s choice (Stop by default), and the preview says what a reclaim does to each disk', async () => {
    const c = ali();
    const p = preview(await previewCreate(c, { ...aliInput(), diskGb: 200, spot: { maxPriceFen: 500 } }));
    assert.deepStrictEqual(p.request.DataDisk, [{ Size: 200, Category: 'cloud_essd', DeleteWithInstance: false }]);
    assert.strictEqual(p.request.SpotInterruptionBehavior, 'Stop');
    assert.deepStrictEqual(p.reclaim, { behavior: 'stop', disks: [{ disk: 'system', fate: 'kept' }, { disk: 'data', fate: 'kept' }], afterwards: 'stoppedStorage' });
    await createInstance(c, p, { settleMs: 0, intervalMs: 50 });
    const run = aliForm(s.sent('aliyun', 'RunInstances')[0]!);
    assert.strictEqual(run.SpotInterruptionBehavior, 'Stop');
    assert.strictEqual(run['DataDisk.1.DeleteWithInstance'], 'false');
    const t = preview(await previewCreate(c, { ...aliInput(), name: 'ecs-t', diskGb: 200, spot: { maxPriceFen: 500 }, spotInterruption: 'terminate' }));
    assert.strictEqual(t.request.SpotInterruptionBehavior, 'Terminate');
    assert.deepStrictEqual(t.reclaim, { behavior: 'terminate', disks: [{ disk: 'system', fate: 'released' }, { disk: 'data', fate: 'kept' }], afterwards: 'detachedDisk' });
    // Pay-as-you-go: the disk goes with the instance on release (nothing left billing), no reclaim.
    const payg = preview(await previewCreate(c, { ...aliInput(), name: 'ecs-p', diskGb: 200 }));
    assert.deepStrictEqual(payg.request.DataDisk, [{ Size: 200, Category: 'cloud_essd', DeleteWithInstance: true }]);
    assert.strictEqual(payg.reclaim, undefined);
    assert.strictEqual(refusal(await previewCreate(c, { ...aliInput(), name: 'ecs-x', spotInterruption: 'stop' })).code, 'spotStopNotOffered');
  });

  it('腾讯云: InternetAccessible by traffic with its per-GB price, the RSA key imported → LoginSettings.KeyIds, the named security group, the default VPC; spot keeps the data disk', async () => {
    const c = tc();
    const input = { card: 'GN7.2XLARGE32', gpus: 1, name: 'cvm-net', image: 'img-pi0ii46r', region: 'ap-guangzhou-3', securityGroupId: 'sg-ssh', sshKeyPath: rsa, diskGb: 100, spot: { maxPriceFen: 300 } };
    assert.deepStrictEqual(refusal(await previewCreate(c, { ...input, securityGroupId: 'sg-gone' })).detail.missing, 'securityGroup');
    assert.strictEqual(refusal(await previewCreate(c, { ...input, vpcId: 'vpc-1' })).detail.missing, 'subnet');
    assert.strictEqual(refusal(await previewCreate(c, { ...input, sshKeyPath: ed })).code, 'badPublicKey', '腾讯云 imports RSA keys only');
    assert.strictEqual(refusal(await previewCreate(c, { ...input, spotInterruption: 'stop' })).code, 'spotStopNotOffered');
    const p = preview(await previewCreate(c, input));
    assert.deepStrictEqual(p.request.InternetAccessible, { InternetChargeType: 'TRAFFIC_POSTPAID_BY_HOUR', InternetMaxBandwidthOut: 10, PublicIpAssigned: true });
    assert.deepStrictEqual(p.request.VirtualPrivateCloud, { VpcId: 'DEFAULT', SubnetId: 'DEFAULT' });
    assert.deepStrictEqual(p.request.SecurityGroupIds, ['sg-ssh']);
    assert.deepStrictEqual(p.request.DataDisks, [{ DiskSize: 100, DiskType: 'CLOUD_PREMIUM', DeleteWithInstance: false }]);
    assert.deepStrictEqual(p.cloud?.bandwidthPrice, { fen: 80, unit: 'GB' });
    assert.deepStrictEqual(p.reclaim, { behavior: 'terminate', disks: [{ disk: 'system', fate: 'released' }, { disk: 'data', fate: 'kept' }], afterwards: 'detachedDisk' });
    assert.strictEqual(s.sent('tencent', 'ImportKeyPair').length, 0);
    const o = await createInstance(c, p, { settleMs: 5000, intervalMs: 50 });
    assert.ok(o.status === 'created' && o.login, JSON.stringify(o));
    const sent = JSON.parse(s.sent('tencent', 'RunInstances')[0]!.body) as Record<string, unknown>;
    assert.deepStrictEqual(sent.LoginSettings, { KeyIds: ['skey-made1'] });
    assert.deepStrictEqual(sent.InternetAccessible, p.request.InternetAccessible);
    assert.match(String((JSON.parse(s.sent('tencent', 'ImportKeyPair')[0]!.body) as { PublicKey: string }).PublicKey), /^ssh-rsa AAAA\S+$/);
  });

  it('gpu-rent create (built CLI): the preview says the bandwidth and its price (? where none), the login key, the SSH-only group, the network and what a reclaim does; a missing vSwitch is refused (exit 1)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'gpu-rent-cc-'));
    try {
      const env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_ALIYUN_ENDPOINT: s.url, ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'x', ALIBABA_CLOUD_REGION_ID: 'cn-hangzhou' };
      const args = ['create', '--account', 'env-aliyun-ecs', '--card', 'ecs.gn7i-c8g1.2xlarge', '--image', 'ubuntu_22_04_x64_20G_alibase_20240130.vhd', '--region', 'cn-hangzhou', '--name', 'cli-net'];
      const r = await runCliAsync([...args, '--vswitch', 'vsw-test', '--ssh-key', ed, '--disk-gb', '100', '--spot', '--max-price', '5', '--spot-reclaim', 'terminate', '--bandwidth', '5'], env);
      assert.strictEqual(r.code, 2, r.stderr);
      assert.match(r.stderr, /bandwidth public 5 Mbit\/s, billed by traffic \?\/GB/);
      assert.match(r.stderr, /login +key pair gpu_rent_[0-9a-f]{12} \(.*id_ed25519\.pub, imported at create\)/);
      assert.match(r.stderr, /sec\.group gpu-rent-ssh-only: made at create, SSH \(TCP 22\) in only/);
      assert.match(r.stderr, /reclaim +terminate: system disk released, data disk kept; then the data disk bills on its own, ¥300\.00\/day/);
      assert.doesNotMatch(r.stderr + r.stdout, /AAAA/, 'the key itself is never printed');
      const refused = await runCliAsync([...args, '--ssh-key', ed], env);
      assert.strictEqual(refused.code, 1);
      assert.match(refused.stderr, /refused, nothing created: no vSwitch \(--vswitch\)/);
      assert.strictEqual(s.sent('aliyun', 'RunInstances').length, 0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('腾讯云 tiered prices: the hourly price in force is the step for the hours since CreatedTime (96 h, 360 h), in the list the tree and the burn rate read', async () => {
    s.tieredPrices = true;
    s.add({ platform: 'tencent', id: 'ins-long', name: 'long', state: 'RUNNING', chargeType: 'POSTPAID_BY_HOUR' });
    const created = Date.parse('2026-11-20T02:00:00Z') / 1000; // tencent-instance.json CreatedTime
    const at = (h: number) => makeConnector({ kind: 'tencent-cvm', region: ['ap-guangzhou'] }, { secretId: s.creds.tencentSecretId, secretKey: 'k' }, ep, { timeoutMs: 3000, now: () => created + h * 3600 });
    assert.strictEqual((await at(10).price('ins-long'))?.fenPerHour, 868, 'UnitPriceDiscount for (0, 96) h');
    assert.strictEqual((await at(100).price('ins-long'))?.fenPerHour, 651, 'UnitPriceDiscountSecondStep for (96, 360) h');
    assert.strictEqual((await at(400).price('ins-long'))?.fenPerHour, 434, 'UnitPriceDiscountThirdStep beyond 360 h');
    // The preview of a create says the steps.
    const p = preview(await previewCreate(at(0), { card: 'GN7.2XLARGE32', gpus: 1, name: 'cvm-steps', image: 'img-pi0ii46r', region: 'ap-guangzhou-3', sshKeyPath: rsa }));
    assert.deepStrictEqual([p.priceFenPerHour, p.priceSteps], [868, { first: 868, second: 651, third: 434 }]);
    s.tieredPrices = false;
    assert.strictEqual((await at(400).price('ins-long'))?.fenPerHour, 868, 'no steps sent: one price for all hours');
  });

  it('腾讯云 without a named group: one that opens SSH (TCP 22) only is made at create (VPC CreateSecurityGroupWithPolicies) and reused after, never the project default group', async () => {
    const c = tc();
    const input = { card: 'GN7.2XLARGE32', gpus: 1, name: 'cvm-sg', image: 'img-pi0ii46r', region: 'ap-guangzhou-3', sshKeyPath: rsa };
    const p = preview(await previewCreate(c, input));
    assert.deepStrictEqual(p.cloud?.group, { make: 'gpu-rent-ssh-only', vpcId: '' });
    assert.strictEqual(s.sent('tencent', 'CreateSecurityGroupWithPolicies').length, 0, 'the preview makes nothing');
    await createInstance(c, p, { settleMs: 0, intervalMs: 50 });
    assert.deepStrictEqual(s.cloudNet.tencentGroups.get('sg-tcmade1'), { name: 'gpu-rent-ssh-only', ingress: ['TCP 22 0.0.0.0/0 ACCEPT'], egress: ['ALL all 0.0.0.0/0 ACCEPT'] });
    assert.deepStrictEqual((JSON.parse(s.sent('tencent', 'RunInstances')[0]!.body) as { SecurityGroupIds: string[] }).SecurityGroupIds, ['sg-tcmade1']);
    const again = preview(await previewCreate(c, { ...input, name: 'cvm-sg-2' }));
    assert.deepStrictEqual(again.cloud?.group, { id: 'sg-tcmade1', made: 'reused' });
    await createInstance(c, again, { settleMs: 0, intervalMs: 50 });
    assert.strictEqual(s.sent('tencent', 'CreateSecurityGroupWithPolicies').length, 1);
  });

  it('a sold-out zone: the preview names the zones that sell the type, with their prices, and nothing is created in another zone', async () => {
    s.stock.tencent['ap-guangzhou'] = [
      { Zone: 'ap-guangzhou-3', InstanceType: 'GN7.2XLARGE32', Status: 'SOLD_OUT', Price: { UnitPriceDiscount: 8.68, ChargeUnit: 'HOUR' }, GpuCount: 1 },
      { Zone: 'ap-guangzhou-4', InstanceType: 'GN7.2XLARGE32', Status: 'SELL', Price: { UnitPriceDiscount: 9.1, ChargeUnit: 'HOUR' }, GpuCount: 1 },
      { Zone: 'ap-guangzhou-6', InstanceType: 'GN7.2XLARGE32', Status: 'SELL', Price: { UnitPriceDiscount: 8.9, ChargeUnit: 'HOUR' }, GpuCount: 1 },
    ];
    const r = refusal(await previewCreate(tc(), { card: 'GN7.2XLARGE32', gpus: 1, name: 'cvm-z', image: 'img-pi0ii46r', region: 'ap-guangzhou-3', securityGroupId: 'sg-ssh', sshKeyPath: rsa }));
    assert.strictEqual(r.code, 'noStock');
    assert.strictEqual(r.detail.zone, 'ap-guangzhou-3');
    assert.strictEqual(r.detail.zones, 'ap-guangzhou-6 ¥8.90/h, ap-guangzhou-4 ¥9.10/h');
    assert.strictEqual(s.sent('tencent', 'RunInstances').length, 0);
    // 阿里云: the vSwitch's zone sold out; the stock read has no price (?).
    s.stock.aliyun['cn-hangzhou'] = [
      { ZoneId: 'cn-hangzhou-i', RegionId: 'cn-hangzhou', Status: 'Available', AvailableResources: { AvailableResource: [{ Type: 'InstanceType', SupportedResources: { SupportedResource: [{ Value: 'ecs.gn7i-c8g1.2xlarge', Status: 'SoldOut', StatusCategory: 'WithoutStock' }] } }] } },
      { ZoneId: 'cn-hangzhou-k', RegionId: 'cn-hangzhou', Status: 'Available', AvailableResources: { AvailableResource: [{ Type: 'InstanceType', SupportedResources: { SupportedResource: [{ Value: 'ecs.gn7i-c8g1.2xlarge', Status: 'Available', StatusCategory: 'WithStock' }] } }] } },
    ];
    const a = refusal(await previewCreate(ali(), aliInput()));
    assert.strictEqual(a.detail.zones, 'cn-hangzhou-k ?/h');
    assert.strictEqual(s.sent('aliyun', 'RunInstances').length, 0);
  });
});
