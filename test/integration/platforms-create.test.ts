// Creating an instance against the local platform server (the platforms' real shapes): the
// preview creates nothing, a create adds the instance (its login, for AutoDL Pro, pointing at a
// real loopback sshd), a lost create answer is found by name and never sent twice, each refusal
// comes before anything is created; then the built CLI end to end, host key pinned on first contact.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeConnector, type Endpoints } from '../../src/app/platforms/accounts';
import { createInstance, previewCreate, type CreatePreview } from '../../src/app/platforms/create';
import { isRefusal, type CreateRefusal } from '../../src/core/platforms/create';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import { startSshd, type TestSshd } from '../support/sshd';

const now = () => Math.floor(Date.now() / 1000);
const opts = { timeoutMs: 3000, now };
const CREATE = '/api/v1/dev/instance/pro/create';

function preview(p: CreatePreview | CreateRefusal): CreatePreview {
  assert.ok(!isRefusal(p), `refused: ${JSON.stringify(p)}`);
  return p;
}
function refusal(p: CreatePreview | CreateRefusal): CreateRefusal {
  assert.ok(isRefusal(p), `not refused: ${JSON.stringify(p)}`);
  return p;
}

const run = runCliAsync;

describe('create an instance (local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let ep: Endpoints;
  beforeEach(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
    ep = s.endpoints;
  });
  afterEach(() => s.close());
  const pro = () => makeConnector({ kind: 'autodl-pro' }, { token: s.creds.autodlPro }, ep, opts);
  const tc = () => makeConnector({ kind: 'tencent-cvm', region: ['ap-guangzhou'] }, { secretId: s.creds.tencentSecretId, secretKey: 'k' }, ep, opts);
  const ali = () => makeConnector({ kind: 'aliyun-ecs', region: ['cn-hangzhou'] }, { accessKeyId: s.creds.aliyunKeyId, accessKeySecret: 'k' }, ep, opts);
  // The clouds' creates import the user's key as the login (cloudCreate.ts): a key made here by ssh-keygen.
  let keyDir: string;
  let sshKeyPath: string;
  before(async () => {
    keyDir = await mkdtemp(join(tmpdir(), 'gpu-rent-key-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '2048', '-N', '', '-f', join(keyDir, 'id_rsa')]);
    sshKeyPath = join(keyDir, 'id_rsa.pub');
  });
  after(() => rm(keyDir, { recursive: true, force: true }));
  const proInput = { card: 'PRO6000-96G', gpus: 1, name: 'train-a', image: 'base-image-12be412037', torch: '2.1.0+cu121', diskGb: 50 };

  describe('AutoDL Pro', () => {
    it('a preview reads only: the page’s body (spec id, cuda_v_from from the torch wheel), the balance, no create sent', async () => {
      const p = preview(await previewCreate(pro(), proInput));
      assert.deepStrictEqual(p.request, { req_gpu_amount: 1, expand_system_disk_by_gb: 50, gpu_spec_uuid: 'pro6000-p', image_uuid: 'base-image-12be412037', cuda_v_from: 121, instance_name: 'train-a' });
      assert.deepStrictEqual(p.cuda, { cuda: '12.1', from: 'torch' });
      assert.strictEqual(p.priceFenPerHour, undefined, 'AutoDL documents no price before a create');
      assert.strictEqual(p.storageSource, 'catalog');
      assert.strictEqual(p.balanceFen, 12345);
      assert.strictEqual(s.sent('autodl-pro', CREATE).length, 0);
      assert.strictEqual(s.instances.size, 0);
    });

    it('a create sends the body once; the instance runs and gives its login', async () => {
      const c = pro();
      const p = preview(await previewCreate(c, { ...proInput, region: 'westDC3' }));
      const o = await createInstance(c, p, { settleMs: 5000, intervalMs: 50 });
      assert.strictEqual(o.status, 'created');
      assert.ok(o.status === 'created' && o.settled && !o.recovered);
      const sent = s.sent('autodl-pro', CREATE);
      assert.strictEqual(sent.length, 1);
      assert.deepStrictEqual(JSON.parse(sent[0]!.body).data_center_list, ['westDC3']);
      const made = [...s.instances.values()][0]!;
      assert.strictEqual(made.name, 'train-a');
      assert.strictEqual(made.specId, 'pro6000-p');
      if (o.status === 'created') {
        assert.strictEqual(o.ref, made.id);
        assert.deepStrictEqual(o.login, { host: '127.0.0.1', port: 40022, user: 'root', password: 'pw-created' });
      }
      assert.ok((await c.list()).some((x) => x.ref === made.id && x.state === 'running'), 'listed');
    });

    it('a lost create answer is found by name; a second run finds it by name and sends nothing', async () => {
      const c = pro();
      s.loseReply.add(CREATE);
      const lines: string[] = [];
      const o = await createInstance(c, preview(await previewCreate(c, proInput)), { settleMs: 3000, intervalMs: 50, onProgress: (l) => lines.push(l) });
      assert.strictEqual(o.status, 'created', JSON.stringify(o));
      assert.ok(o.status === 'created' && o.recovered);
      assert.ok(lines.some((l) => /answer was lost/.test(l)), lines.join('\n'));
      assert.strictEqual(s.instances.size, 1);
      // Again with the same name: the name check answers, nothing is sent.
      const again = preview(await previewCreate(c, proInput));
      assert.ok(again.existing);
      const o2 = await createInstance(c, again, { settleMs: 0, intervalMs: 50 });
      assert.ok(o2.status === 'created' && o2.ref === [...s.instances.keys()][0]);
      assert.strictEqual(s.sent('autodl-pro', CREATE).length, 1, 'never sent twice');
      assert.strictEqual(s.instances.size, 1);
    });

    it('a lost answer with nothing made is "unknown", never "failed"', async () => {
      const c = pro();
      s.fault({ platform: 'autodl-pro', on: CREATE, status: 502, error: 'none' });
      const o = await createInstance(c, preview(await previewCreate(c, proInput)), { settleMs: 0, intervalMs: 20, findAttempts: 2 });
      assert.strictEqual(o.status, 'unknown');
      assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/list').length, 3, 'the preview’s list and two looks by name');
    });

    it('refusals: unknown card, CUDA no host meets, balance, real name, no stock under the bound; nothing created', async () => {
      assert.strictEqual(refusal(await previewCreate(pro(), { ...proInput, card: 'A100' })).code, 'unknownCard');
      assert.strictEqual(refusal(await previewCreate(pro(), { ...proInput, torch: undefined, cudaMin: '99.9' })).code, 'cudaUnmet');
      assert.strictEqual(refusal(await previewCreate(pro(), { ...proInput, image: 'not an image' })).code, 'imageNotFound');
      s.balances.autodlPro = 0;
      assert.strictEqual(refusal(await previewCreate(pro(), proInput)).code, 'balanceTooLow');
      s.balances.autodlPro = 123450;
      s.fault({ platform: 'autodl-pro', on: CREATE, error: 'realName' });
      const c = pro();
      const r1 = await createInstance(c, preview(await previewCreate(c, proInput)), { settleMs: 0, intervalMs: 20 });
      assert.ok(r1.status === 'refused' && r1.refusal.code === 'realName' && r1.refusal.detail.platformCode === 'TORealName', JSON.stringify(r1));
      s.fault({ platform: 'autodl-pro', on: CREATE, error: 'noStock' });
      const r2 = await createInstance(c, preview(await previewCreate(c, proInput)), { settleMs: 0, intervalMs: 20 });
      assert.ok(r2.status === 'refused' && r2.refusal.code === 'cudaUnmet' && r2.refusal.detail.cuda === '12.1', JSON.stringify(r2));
      assert.strictEqual(s.instances.size, 0);
    });
  });

  describe('腾讯云 RunInstances', () => {
    const tcInput = { card: 'GN7.2XLARGE32', gpus: 1, name: 'cvm-a', image: 'img-pi0ii46r', region: 'ap-guangzhou-3', diskGb: 100, securityGroupId: 'sg-1', get sshKeyPath() { return sshKeyPath; } };

    it('previews with the price inquiry and the image check; creates with ClientToken; spot with a max price; auto release', async () => {
      const c = tc();
      const p = preview(await previewCreate(c, { ...tcInput, spot: { maxPriceFen: 300 }, autoReleaseHours: 24 }));
      assert.strictEqual(p.request.InstanceChargeType, 'SPOTPAID');
      assert.deepStrictEqual(p.request.InstanceMarketOptions, { MarketType: 'spot', SpotOptions: { MaxPrice: '3.00', SpotInstanceType: 'one-time' } });
      assert.strictEqual((p.request.ActionTimer as { TimerAction: string }).TimerAction, 'TerminateInstances');
      assert.ok(typeof p.priceFenPerHour === 'number');
      assert.strictEqual(s.sent('tencent', 'RunInstances').length, 0);
      const o = await createInstance(c, p, { settleMs: 3000, intervalMs: 50 });
      assert.ok(o.status === 'created' && o.settled, JSON.stringify(o));
      const sent = JSON.parse(s.sent('tencent', 'RunInstances')[0]!.body) as Record<string, unknown>;
      assert.strictEqual(sent.ClientToken, 'gpu-rent-cvm-a');
      assert.strictEqual(s.sent('tencent', 'RunInstances')[0]!.region, 'ap-guangzhou');
    });

    it('a lost RunInstances answer is found by name', async () => {
      const c = tc();
      s.loseReply.add('RunInstances');
      const o = await createInstance(c, preview(await previewCreate(c, tcInput)), { settleMs: 0, intervalMs: 50 });
      assert.ok(o.status === 'created' && o.recovered, JSON.stringify(o));
      assert.strictEqual(s.instances.size, 1);
    });

    it('refusals: image not found, zone of a region the account does not read, quota', async () => {
      assert.strictEqual(refusal(await previewCreate(tc(), { ...tcInput, image: 'img-missing' })).code, 'imageNotFound');
      assert.strictEqual(refusal(await previewCreate(tc(), { ...tcInput, region: 'ap-beijing-3' })).code, 'unknownRegion');
      s.fault({ platform: 'tencent', on: 'RunInstances', error: 'tencentQuota' });
      const c = tc();
      const r = await createInstance(c, preview(await previewCreate(c, tcInput)), { settleMs: 0, intervalMs: 20 });
      assert.ok(r.status === 'refused' && r.refusal.code === 'quotaExceeded' && r.refusal.detail.platformCode === 'LimitExceeded.InstanceQuota', JSON.stringify(r));
      s.balances.tencent = 1;
      assert.strictEqual(refusal(await previewCreate(tc(), tcInput)).code, 'balanceTooLow');
      assert.strictEqual(s.instances.size, 0);
    });
  });

  describe('阿里云 RunInstances', () => {
    it('previews (DescribeImages, DescribePrice for the type and the disk), creates pay-as-you-go with ClientToken and AutoReleaseTime', async () => {
      const c = ali();
      s.cloudNet.aliyunVSwitches.set('vsw-1', { vpcId: 'vpc-1', zone: 'cn-hangzhou-i' });
      s.cloudNet.aliyunGroups.set('sg-1', { name: 'mine', vpcId: 'vpc-1', rules: [] });
      const p = preview(await previewCreate(c, { card: 'ecs.gn7i-c8g1.2xlarge', gpus: 1, name: 'ecs-a', image: 'ubuntu_22_04_x64_20G_alibase_20240130.vhd', diskGb: 100, autoReleaseHours: 12, vSwitchId: 'vsw-1', securityGroupId: 'sg-1', sshKeyPath }));
      assert.strictEqual(p.priceFenPerHour, 1250);
      assert.strictEqual(p.storageSource, 'platform');
      assert.strictEqual(p.storageFenPerDay, 1250 * 24);
      const o = await createInstance(c, p, { settleMs: 3000, intervalMs: 50 });
      assert.ok(o.status === 'created' && o.settled, JSON.stringify(o));
      const q = s.sent('aliyun', 'RunInstances')[0]!;
      const form = new URLSearchParams(q.body);
      const all = { ...q.query, ...Object.fromEntries(form) };
      assert.strictEqual(all.ClientToken, 'gpu-rent-ecs-a');
      assert.strictEqual(all.InstanceChargeType, 'PostPaid');
      assert.strictEqual(all.VSwitchId, 'vsw-1');
      assert.match(all.AutoReleaseTime ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/);
      const imgMissing = refusal(await previewCreate(ali(), { card: 'ecs.gn7i-c8g1.2xlarge', gpus: 1, name: 'ecs-b', image: 'missing_image', vSwitchId: 'vsw-1', sshKeyPath }));
      assert.strictEqual(imgMissing.code, 'imageNotFound');
    });
  });

  describe('gpu-rent create (built CLI, loopback sshd)', () => {
    let sshd: TestSshd;
    let home: string;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      sshd = await startSshd();
    });
    after(() => sshd.stop());
    beforeEach(async () => {
      home = await mkdtemp(join(tmpdir(), 'gpu-rent-create-'));
      env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '100', GPU_RENT_KNOWN_HOSTS: join(home, 'known_hosts') };
      s.createLogin = { sshPort: sshd.port, password: sshd.password, user: sshd.user };
    });
    afterEach(() => rm(home, { recursive: true, force: true }));
    const base = ['create', '--account', 'env-autodl-pro', '--image', 'base-image-12be412037'];
    const args = [...base, '--card', '5090', '--torch', 'cu121', '--name', 'cli-a'];

    it('without --yes shows what it would create and creates nothing (exit 2)', async () => {
      const r = await run([...args, '--json'], env);
      assert.strictEqual(r.code, 2, r.stderr);
      assert.match(r.stderr, /spec 5090-p/);
      assert.match(r.stderr, /CUDA\s+≥ 12\.1 \(what your PyTorch needs\)/);
      assert.match(r.stderr, /not quoted by AutoDL before a create/);
      assert.match(r.stderr, /nothing created; add --yes/);
      const j = JSON.parse(r.stdout) as { preview: boolean; request: { cuda_v_from: number } };
      assert.strictEqual(j.preview, true);
      assert.strictEqual(j.request.cuda_v_from, 121);
      assert.strictEqual(s.sent('autodl-pro', CREATE).length, 0);
      assert.strictEqual(s.instances.size, 0);
    });

    it('with --yes creates it, gives its login, pins its host key on first contact, and gpu-rent instances lists it', async () => {
      const r = await run([...args, '--yes', '--json'], env);
      assert.strictEqual(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout) as { created: boolean; ref: string; login: { port: number; user: string }; hostKey?: string };
      assert.strictEqual(j.created, true);
      assert.strictEqual(j.login.port, sshd.port);
      assert.strictEqual(j.login.user, sshd.user);
      assert.match(r.stderr, /host key pinned on first contact: SHA256:/);
      assert.match(await readFile(join(home, 'known_hosts'), 'utf8'), new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshd.port} ssh-`, 'm'));
      const list = await run(['instances', '--json'], env);
      const rows = JSON.parse(list.stdout) as { ref: string; name: string; ssh?: { port: number } }[];
      assert.ok(rows.some((x) => x.ref === j.ref && x.name === 'cli-a' && x.ssh?.port === sshd.port), list.stdout);
      // The same command again: found by name, nothing sent, exit 0.
      const again = await run([...args, '--yes', '--json', '--no-pin'], env);
      assert.strictEqual(again.code, 0, again.stderr);
      assert.match(again.stderr, /already exists/);
      assert.strictEqual((JSON.parse(again.stdout) as { existing: string }).existing, j.ref);
      assert.strictEqual(s.sent('autodl-pro', CREATE).length, 1);
    });

    it('a lost answer is found by name (exit 0); refusals say what to do and exit 1 with nothing created', async () => {
      s.loseReply.add(CREATE);
      const lost = await run([...args, '--yes', '--no-pin'], env);
      assert.strictEqual(lost.code, 0, lost.stderr);
      assert.match(lost.stderr, /answer was lost/);
      assert.match(lost.stdout, /created \(found by name\)/);
      s.instances.clear();
      s.fault({ platform: 'autodl-pro', on: CREATE, error: 'realName' });
      const rn = await run([...base, '--card', '5090', '--name', 'cli-b', '--yes', '--json'], env);
      assert.strictEqual(rn.code, 1);
      assert.match(rn.stderr, /not real-name verified.*TORealName.*finish the verification/);
      assert.strictEqual((JSON.parse(rn.stdout) as { error: { code: string } }).error.code, 'realName');
      const card = await run([...base, '--card', 'A100', '--yes'], env);
      assert.strictEqual(card.code, 1);
      assert.match(card.stderr, /unknown card "A100".*AutoDL Pro offers/);
      const cuda = await run([...base, '--card', '5090', '--name', 'cli-c', '--cuda-min', '20.0', '--yes'], env);
      assert.strictEqual(cuda.code, 1);
      assert.match(cuda.stderr, /no host offers CUDA ≥ 20\.0/);
      assert.strictEqual(s.instances.size, 0);
    });
  });
});
