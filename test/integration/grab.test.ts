// gpu-rent grab: the built CLI against the local platform server (stock-bodies.json's gpu_stock and
// DescribeZoneInstanceConfigInfos shapes, the Pro create of autodl-pro-doc-examples.json) and the
// message-channel stub. A card free (acts once, says so on the channel), sold out then free (keeps
// watching, then acts), a price above the limit (never acts, says why), a rate-limit reply (backs
// off), Ctrl-C, never two grabs for one target.
import * as assert from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import { startNotifyStub, type NotifyStub } from '../support/notify-stub';
import { until } from '../support/timing';
import { startSshd, type TestSshd } from '../support/sshd';
import stockBodies from '../fixtures/platforms/stock-bodies.json';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: NodeJS.ProcessEnv): { p: ChildProcess; done: Promise<Run> } {
  const p = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  p.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Run>((resolve, reject) => {
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : -2), stdout, stderr }));
  });
  return { p, done };
}
const run = (args: string[], env: NodeJS.ProcessEnv) => start(args, env).done;

const STOCK = '/api/v1/dev/machine/region/gpu_stock';
const CREATE = '/api/v1/dev/instance/pro/create';
const KEY = 'wecom-key-grab-7';

describe('gpu-rent grab (built CLI, local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let stub: NotifyStub;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 100;
    stub = await startNotifyStub({ wecomKey: KEY, dingtalkToken: 'dt', dingtalkSecret: 'SECx' });
  });
  after(async () => {
    await s.close();
    await stub.close();
  });
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-grab-'));
    // The watch's floor lowered from a minute to 40 ms for the test (the backoff's shape is unit-tested at full scale).
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_TENCENT_ENDPOINT: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '50', GPU_RENT_WAIT_MIN_INTERVAL_MS: '40' };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    s.stock.autodl = {};
    delete s.stock.autodlOther;
    s.stock.tencent = {};
    stub.requests.length = 0;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  // --no-pin: the created login's port has no sshd but in the first case (pinning there is tested once).
  const create = ['grab', '--card', '4090D', '--regions', 'westDC2', '--then', 'create', '--image', 'base-image-12be412037', '--no-pin', '--yes'];
  const createPinning = create.filter((a) => a !== '--no-pin');

  it('a card free: creates once (the spec and data center of the free row), pins its host key, says so on the channel; the same grab again sends nothing new', async () => {
    // Synthetic counts in the fixture's gpu_stock shape: a pool card a source maps to a Pro spec.
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 2, total_gpu_num: 8 } }] };
    // The created instance's login is the loopback sshd: its key is pinned on first contact.
    const sshd: TestSshd = await startSshd();
    s.createLogin = { sshPort: sshd.port, password: sshd.password, user: sshd.user };
    const known = join(home, 'known_hosts');
    env.GPU_RENT_KNOWN_HOSTS = known;
    try {
      await cardFree(sshd, known);
    } finally {
      s.createLogin = { sshPort: 40022, password: 'pw-created' };
      await sshd.stop();
    }
  });

  async function cardFree(sshd: TestSshd, known: string): Promise<void> {
    const add = await run(['notify', 'add', 'phone', '--kind', 'wecom'], { ...env, GPU_RENT_NOTIFY_SECRET: `${stub.base}/cgi-bin/webhook/send?key=${KEY}` });
    assert.strictEqual(add.code, 0, add.stderr);
    const r = await run([...createPinning, '--notify', 'phone', '--json'], env);
    assert.strictEqual(r.code, 0, r.stderr);
    const sent = s.sent('autodl-pro', CREATE);
    assert.strictEqual(sent.length, 1, 'one create');
    const body = JSON.parse(sent[0]!.body) as Record<string, unknown>;
    assert.deepStrictEqual([body.gpu_spec_uuid, body.data_center_list, body.req_gpu_amount, body.instance_name], ['4090D', ['westDC2'], 1, 'grab-4090d-x1']);
    const doc = JSON.parse(r.stdout) as { outcome: string; name: string; rounds: number; settled: boolean; notified: { channel: string; status: string }[] };
    assert.deepStrictEqual([doc.outcome, doc.name, doc.rounds, doc.settled], ['grabbed', 'grab-4090d-x1', 1, true]);
    assert.deepStrictEqual(doc.notified, [{ channel: 'phone', status: 'sent' }]);
    assert.match(r.stderr, /RTX 4090D is free on env-autodl-pro: creating grab-4090d-x1 in westDC2/);
    assert.strictEqual(stub.requests.length, 1);
    assert.match(JSON.stringify(stub.requests[0]!.body), /grabbed a RTX 4090D for grab-4090d-x1/);
    assert.match(r.stderr, /host key pinned on first contact: SHA256:/);
    assert.match(await readFile(known, 'utf8'), new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshd.port} ssh-`, 'm'));
    // Again: the name is there, nothing is created twice.
    const again = await run(create, env);
    assert.strictEqual(again.code, 0, again.stderr);
    assert.match(again.stderr, /already exists/);
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 1);
    assert.deepStrictEqual(await readdir(join(home, 'locks')), [], 'the lock is released');
  }

  it('sold out: keeps watching (one read per round), then creates when the card frees up', async () => {
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 0, total_gpu_num: 8 } }] };
    const w = start(create, env);
    await until('three sold-out rounds', () => s.sent('autodl-pro', STOCK).length >= 3);
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 0, 'nothing sent while sold out');
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 1, total_gpu_num: 8 } }] };
    const r = await w.done;
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /round 1 \(waited \d+ s\): RTX 4090D is sold out; next read in/);
    assert.match(r.stderr, /grabbed RTX 4090D after .* \(\d+ rounds\): grab-4090d-x1 was created; it runs/);
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 1);
    assert.ok(s.sent('autodl-pro', STOCK).every((q) => (JSON.parse(q.body) as { region_sign: string }).region_sign === 'westDC2'), 'only the region allowed is read');
  });

  it('a platform blip while acting (the create preview\'s list answers 502) is watched through: the next round creates', async () => {
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 2, total_gpu_num: 8 } }] };
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/list', error: 'upstream', status: 502 });
    const r = await run(create, env);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /round 1 \(waited \d+ s\): the platform did not answer while acting \(.*\): watching on; next read in/);
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 1);
  });

  it('a price above the limit: never acts, says why; a price the platform does not say is never taken under a limit', async () => {
    // 腾讯云 DescribeZoneInstanceConfigInfos: GN7.2XLARGE32 on sale at 8.68 yuan/h (stock-bodies.json).
    const tc = { ...env, TENCENTCLOUD_SECRET_ID: s.creds.tencentSecretId, TENCENTCLOUD_SECRET_KEY: 'tc-secret', TENCENTCLOUD_REGION: 'ap-guangzhou' };
    const r = await run(['grab', '--card', 'GN7.2XLARGE32', '--regions', 'ap-guangzhou', '--max-price', '5', '--account', 'env-tencent-cvm', '--then', 'create', '--image', 'img-x', '--wait', '4', '--yes'], tc);
    assert.strictEqual(r.code, 1, r.stderr);
    assert.match(r.stderr, /GN7\.2XLARGE32 \(GPU计算型GN7\) in ap-guangzhou-3 is free at ¥8\.68\/h, above your limit of ¥5\.00\/h: not taken/);
    assert.match(r.stderr, /no card within the limits after \d+ s \(\d+ rounds\); last: .*above your limit.*; nothing was done/);
    assert.ok(s.sent('tencent', 'DescribeZoneInstanceConfigInfos').length >= 2, 'it kept watching');
    assert.strictEqual(s.sent('tencent', 'RunInstances').length + s.sent('tencent', 'InquiryPriceRunInstances').length, 0, 'nothing priced or created');
    // AutoDL's pool gives no price: under a limit it is never taken.
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 2, total_gpu_num: 8 } }] };
    const pro = await run([...create, '--max-price', '3', '--wait', '1'], env);
    assert.strictEqual(pro.code, 1, pro.stderr);
    assert.match(pro.stderr, /the platform quoted no price: not taken under your limit/);
    // In Chinese: the same words from the extension's bundle.
    const zh = await run([...create, '--max-price', '3', '--wait', '1', '--lang', 'zh-cn'], env);
    assert.strictEqual(zh.code, 1, zh.stderr);
    assert.match(zh.stderr, /第 1 轮（已等 \d+ s）：平台没有报价：设了价格上限时不取/);
    assert.match(zh.stderr, /没有符合限制的显卡.*什么也没做/);
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 0);
  });

  it('a region no account watched has (a misspelt data center) is said at once, nothing is read; --platform limits the accounts', async () => {
    const r = await run(['grab', '--card', '4090D', '--regions', 'westdc2', '--then', 'create', '--image', 'base-image-12be412037', '--yes'], env);
    assert.strictEqual(r.code, 1, r.stderr);
    assert.match(r.stderr, /not watched: env-autodl-pro \(none of --regions is one of its data centers or regions; AutoDL data centers: westDC2, /);
    const other = await run(['grab', '--card', '4090D', '--platform', 'tencent', '--then', 'create', '--image', 'base-image-12be412037', '--yes'], env);
    assert.strictEqual(other.code, 1, other.stderr);
    assert.match(other.stderr, /no account that creates instances/);
    // Limits the platform would refuse once a card is free are said before anything is watched.
    const noImage = await run(['grab', '--card', '4090D', '--then', 'create', '--yes'], env);
    assert.strictEqual(noImage.code, 1, noImage.stderr);
    assert.match(noImage.stderr, /not watched: env-autodl-pro: --image is required/);
    const gpus = await run(['grab', '--card', '4090D', '--gpus', '5', '--then', 'create', '--image', 'base-image-12be412037', '--yes'], env);
    assert.strictEqual(gpus.code, 1, gpus.stderr);
    assert.match(gpus.stderr, /5 GPUs: at most 4 here/);
    assert.strictEqual(s.requests.length, 0, 'nothing read');
  });

  it('a rate-limit reply backs off (the next read waits longer than the floor would), then it acts', async () => {
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 0, total_gpu_num: 8 } }] };
    s.fault({ platform: 'autodl-pro', on: STOCK, error: 'noAccess', status: 429, times: 1 });
    const w = start(create, env);
    await until('the rate-limited read and two more', () => s.sent('autodl-pro', STOCK).length >= 3);
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 1, total_gpu_num: 8 } }] };
    const r = await w.done;
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /round 1 .*env-autodl-pro: rate-limited, slowing down/);
    const times = s.sent('autodl-pro', STOCK).map((q) => q.at);
    // After the rate limit: at least 4x the floor (4 minutes at the real one-a-minute floor); the sold-out pause after it is shorter.
    assert.ok(times[1]! - times[0]! >= 150, `pause after the rate limit ${times[1]! - times[0]!} ms`);
    assert.ok(times[1]! - times[0]! > times[2]! - times[1]!, `pauses ${times.slice(1).map((t, i) => t - times[i]!).join(', ')} ms`);
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 1);
  });

  it('never two grabs for one target; Ctrl-C stops at once (exit 130) and leaves nothing running', async () => {
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 0, total_gpu_num: 8 } }] };
    const w = start(create, { ...env, GPU_RENT_WAIT_MIN_INTERVAL_MS: '200' });
    await until('the first read', () => s.sent('autodl-pro', STOCK).length >= 1);
    const second = await run(create, env);
    assert.strictEqual(second.code, 1);
    assert.match(second.stderr, /grab-4090d-x1 is already being grabbed or started by grab --then create \(pid \d+\): nothing read or sent/);
    const t0 = Date.now();
    w.p.kill('SIGINT');
    const r = await w.done;
    assert.strictEqual(r.code, 130, r.stderr);
    assert.ok(Date.now() - t0 < 3000, `exited ${Date.now() - t0} ms after Ctrl-C`);
    assert.match(r.stderr, /stopped after \d+ s \(\d+ rounds\); nothing was done and nothing is left running/);
    const n = s.sent('autodl-pro', STOCK).length;
    await new Promise((res) => setTimeout(res, 400));
    assert.strictEqual(s.sent('autodl-pro', STOCK).length, n, 'no read after Ctrl-C');
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 0);
    assert.deepStrictEqual(await readdir(join(home, 'locks')), [], 'the lock is released');
  });

  it('--then start: waits while the instance\'s region is sold out, then powers it on once with its GPU, at the price the stock says', async () => {
    // 腾讯云: the stock of the instance's region (ap-guangzhou) says whether its type sells (stock-bodies.json's rows, first marked SOLD_OUT).
    const tc = { ...env, TENCENTCLOUD_SECRET_ID: s.creds.tencentSecretId, TENCENTCLOUD_SECRET_KEY: 'tc-secret', TENCENTCLOUD_REGION: 'ap-guangzhou' };
    const rows = stockBodies.tencentDescribeZoneInstanceConfigInfos.InstanceTypeQuotaSet.map((q) => ({ ...q, Zone: 'ap-guangzhou-3' }));
    s.stock.tencent = { 'ap-guangzhou': rows.map((q) => ({ ...q, Status: 'SOLD_OUT' })) };
    s.add({ platform: 'tencent', id: 'ins-1', name: 'cvm', state: 'STOPPED' });
    const w = start(['grab', '--card', 'GN7', '--then', 'start', 'ins-1', '--max-price', '10', '--yes', '--json'], tc);
    await until('two sold-out rounds', () => s.sent('tencent', 'DescribeZoneInstanceConfigInfos').length >= 2);
    assert.strictEqual(s.sent('tencent', 'StartInstances').length, 0, 'no power-on while sold out');
    // The instance's power-on lock is the grab's meanwhile: a power-on from another terminal sends nothing.
    const other = await run(['power-on', 'ins-1', '--yes'], tc);
    assert.strictEqual(other.code, 1, other.stderr);
    assert.match(other.stderr, /already being started by grab --then start \(pid \d+\).*nothing sent/);
    assert.strictEqual(s.sent('tencent', 'StartInstances').length, 0);
    s.stock.tencent = { 'ap-guangzhou': rows };
    const r = await w.done;
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /GN7\.2XLARGE32 \(GPU计算型GN7\) is sold out/);
    assert.strictEqual(s.sent('tencent', 'StartInstances').length, 1);
    const doc = JSON.parse(r.stdout) as { outcome: string; ref: string; priceFenPerHour: number; settled: boolean };
    assert.deepStrictEqual([doc.outcome, doc.ref, doc.priceFenPerHour, doc.settled], ['grabbed', 'ins-1', 868, true]);
  });

  it('--then clone (AutoDL console): a host above the limit is not taken; the clone goes once to the host within it', async () => {
    const web: NodeJS.ProcessEnv = { ...env, GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb };
    delete web.GPU_RENT_AUTODL_TOKEN;
    s.add({ platform: 'autodl-web', id: 'w-1', name: 'train', state: 'shutdown', noFreeGpu: true, gpuName: 'RTX 4090', machineId: 'eaf141be95', regionSign: 'west-B', gpus: 1, dataDiskBytes: 0 });
    // Synthetic free cards and prices on the docstring row's shape (autodl-web-clone.json): none free at first.
    s.machines = [{ machine_id: 'eaf141be95', machine_alias: '091机', gpu_idle_num: 0, gpu_order_num: 0 }];
    const w = start(['grab', '--card', '4090', '--then', 'clone', 'w-1', '--max-price', '2.6', '--no-pin', '--yes'], web);
    await until('a sold-out round', () => s.sent('autodl-web', '/api/v1/user/machine/list').length >= 2);
    s.machines.push({ machine_id: 'm-dear', machine_alias: '101机', gpu_idle_num: 3, gpu_order_num: 3, payg_price: 3000 });
    const lists = s.sent('autodl-web', '/api/v1/user/machine/list').length;
    await until('a round that sees the dear host', () => s.sent('autodl-web', '/api/v1/user/machine/list').length >= lists + 2);
    assert.strictEqual(s.sent('autodl-web', '/api/v1/order/instance/clone/payg').length, 0, 'no clone above the limit');
    s.machines.push({ machine_id: 'm-cheap', machine_alias: '102机', gpu_idle_num: 1, gpu_order_num: 1, payg_price: 2500 });
    const r = await w.done;
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /is free at ¥3\.00\/h, above your limit of ¥2\.60\/h: not taken/);
    const clones = s.sent('autodl-web', '/api/v1/order/instance/clone/payg');
    assert.strictEqual(clones.length, 1);
    assert.match(clones[0]!.body, /m-cheap/);
    assert.match(r.stdout, /: cloned, ¥2\.50\/h/);
  });
});
