// gpu-rent stock and gpu-rent power-on --wait-for-gpu: the built CLI against the local platform
// server answering with the real shapes (stock-bodies.json, the refusals of autodl-envelopes.json,
// aliyun-bodies.json, tencent-bodies.json). No stock, a card that frees up after N refusals, a
// rate-limit reply, refusals that end the wait, Ctrl-C, two power-ons for one instance.
import * as assert from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import stockBodies from '../fixtures/platforms/stock-bodies.json';
import { until } from '../support/timing';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

function start(args: string[], env: NodeJS.ProcessEnv): { p: ChildProcess; done: Promise<Run>; stderr: () => string } {
  const t0 = Date.now();
  const p = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  p.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Run>((resolve, reject) => {
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : -2), stdout, stderr, ms: Date.now() - t0 }));
  });
  return { p, done, stderr: () => stderr };
}

const run = (args: string[], env: NodeJS.ProcessEnv) => start(args, env).done;


describe('gpu-rent stock and power-on --wait-for-gpu (built CLI, local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let base: NodeJS.ProcessEnv;
  let all: NodeJS.ProcessEnv;
  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-stock-'));
    // The wait's floor lowered from 15 s to 40 ms for the test (the schedule's shape is unit-tested at 15 s).
    base = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_ALIYUN_ENDPOINT: s.url, GPU_RENT_TENCENT_ENDPOINT: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '50', GPU_RENT_WAIT_MIN_INTERVAL_MS: '40', GPU_RENT_ALLOW_POWER: '1' };
    all = { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret', TENCENTCLOUD_SECRET_ID: s.creds.tencentSecretId, TENCENTCLOUD_SECRET_KEY: 'tc-secret', TENCENTCLOUD_REGION: 'ap-guangzhou', ALIBABA_CLOUD_REGION_ID: 'cn-hangzhou' };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    s.stock.autodl = {};
    delete s.stock.autodlOther;
    s.stock.aliyun = {};
    s.stock.tencent = {};
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('stock lists free cards per account and region with the price or ?, --json is stable, --card and --region filter', async () => {
    // AutoDL: every data center of the elastic pool is read, no instance needed; westDC2 has the fixture's cards, the others none (synthetic).
    s.stock.autodl = { westDC2: stockBodies.autodlGpuStock.data };
    s.stock.autodlOther = [];
    const r = await run(['stock', '--json'], all);
    assert.strictEqual(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { readAt: number; accounts: { account: string; platform: string; ok: boolean; rows: Record<string, unknown>[] }[] };
    const by = Object.fromEntries(doc.accounts.map((a) => [a.platform, a]));
    assert.ok(by['autodl-pro']!.ok && by['aliyun-ecs']!.ok && by['tencent-cvm']!.ok, r.stderr);
    // AutoDL: the pool's card names, per data-center code; counts, no price; no Pro spec for cards no source maps.
    assert.deepStrictEqual(by['autodl-pro']!.rows.map((x) => [x.card, x.proSpec, x.region, x.free, x.total, x.status, x.priceFenPerHour]), [['RTX 3090', null, 'westDC2', 1, 4, 'free', null], ['RTX 4090', null, 'westDC2', 3, 6, 'free', null]]);
    assert.deepStrictEqual(s.sent('autodl-pro', '/api/v1/dev/machine/region/gpu_stock').map((q) => (JSON.parse(q.body) as { region_sign: string }).region_sign).sort(), ['beijingDC1', 'beijingDC2', 'beijingDC3', 'beijingDC4', 'chongqingDC1', 'foshanDC1', 'neimengDC1', 'neimengDC3', 'westDC2', 'westDC3', 'yangzhouDC1'], 'every data center of the page\'s appendix');
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/list').length, 0, 'no instance list is read for stock');
    // 阿里云: GPU types only (ecs.g7.large left out), available or sold out, no count, no price.
    assert.deepStrictEqual(by['aliyun-ecs']!.rows.map((x) => [x.card, x.zone, x.status, x.free]), [['ecs.gn7i-c8g1.2xlarge', 'cn-hangzhou-i', 'free', null], ['ecs.gn6i-c4g1.xlarge', 'cn-hangzhou-i', 'soldOut', null]]);
    // 腾讯云: GPU types only, with the discounted hourly price (8.68 yuan = 868 fen).
    assert.deepStrictEqual(by['tencent-cvm']!.rows.map((x) => [x.instanceType, x.status, x.priceFenPerHour, x.gpus]), [['GN7.2XLARGE32', 'free', 868, 1], ['GN10Xp.2XLARGE40', 'soldOut', 3020, 1]]);
    for (const a of doc.accounts) for (const x of a.rows) assert.deepStrictEqual(Object.keys(x), ['card', 'proSpec', 'region', 'zone', 'instanceType', 'status', 'free', 'total', 'gpus', 'priceFenPerHour', 'source', 'readAt']);

    const table = await run(['stock', '--card', '4090'], { ...all, GPU_RENT_HOME: await mkdtemp(join(tmpdir(), 'gpu-rent-stock-')) });
    assert.strictEqual(table.code, 0, table.stderr);
    assert.match(table.stdout, /^ACCOUNT\s+REGION\s+ZONE\/HOST\s+CARD\s+FREE NOW\s+FREE\s+PRICE/m);
    assert.match(table.stdout, /autodl-pro\s+westDC2\s+RTX 4090\s+yes\s+3\/6\s+\?/);
    assert.doesNotMatch(table.stdout, /3090|gn7i|GN7/);
    const tc = await run(['stock', '--account', 'env-tencent-cvm', '--region', 'ap-guangzhou', '--free-only'], all);
    assert.match(tc.stdout, /GN7\.2XLARGE32 \(GPU计算型GN7\)\s+yes\s+\?\s+¥8\.68\/h/);
    assert.doesNotMatch(tc.stdout, /GN10Xp/);
  });

  it('stock reads an account at most once a minute (a second call within the minute sends nothing)', async () => {
    const env = { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro };
    assert.strictEqual((await run(['stock', '--region', 'westDC2'], env)).code, 0);
    assert.strictEqual((await run(['stock', '--region', 'westDC2', '--card', '4090'], env)).code, 0);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/machine/region/gpu_stock').length, 1);
    assert.ok((await readdir(join(home, 'cache'))).length === 1);
  });

  it('stock with no free card says so; a refused token is an error, not an empty stock', async () => {
    s.stock.autodl['westDC2'] = [{ 'RTX 4090': { idle_gpu_num: 0, total_gpu_num: 8 } }];
    const none = await run(['stock', '--region', 'westDC2', '--free-only'], { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro });
    assert.strictEqual(none.code, 0, none.stderr);
    assert.match(none.stdout, /no free cards in westDC2/);
    const unknown = await run(['stock', '--region', 'westDC2', '--card', 'H20'], { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro });
    assert.strictEqual(unknown.code, 0, unknown.stderr);
    assert.match(unknown.stdout, /no cards matching H20 in westDC2; cards there: RTX 4090/);
    const sold = await run(['stock', '--region', 'westDC2'], { ...base, GPU_RENT_HOME: await mkdtemp(join(tmpdir(), 'gpu-rent-stock-')), GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro });
    assert.match(sold.stdout, /RTX 4090\s+sold out\s+0\/8/);
    const bad = await run(['stock', '--region', 'westDC2'], { ...base, GPU_RENT_HOME: await mkdtemp(join(tmpdir(), 'gpu-rent-stock-')), GPU_RENT_AUTODL_TOKEN: 'wrong' });
    assert.strictEqual(bad.code, 1);
    assert.match(bad.stderr, /AuthorizeFailed/);
  });

  it('a card that frees up after 3 refusals: the power-on succeeds on try 4, the time waited is shown, then it runs', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'shutdown' });
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'noStock', times: 3 });
    const r = await run(['power-on', 'pro-1', '--wait-for-gpu', '--wait', '60', '--yes', '--json'], { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro });
    assert.strictEqual(r.code, 0, r.stderr);
    const ons = s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on');
    assert.strictEqual(ons.length, 4, 'three refused, the fourth accepted');
    assert.match(r.stderr, /try 1 \(waited \d+ s\): no free card \(InternalError 当前算力规格暂无库存/);
    assert.match(r.stderr, /try 3 .*next try in/);
    assert.match(r.stderr, /a card was free after \d+ s \(4 tries\): starting/);
    assert.match(r.stderr, /train is up after/);
    const doc = JSON.parse(r.stdout) as { waitForGpu: { outcome: string; attempts: number }; settled: boolean; state: string };
    assert.deepStrictEqual([doc.waitForGpu.outcome, doc.waitForGpu.attempts, doc.settled, doc.state], ['started', 4, true, 'running']);
    // Backoff: the pauses grow (40, 80, 160 ms floor-scaled), never two calls closer than the floor.
    const times = s.requests.filter((q) => q.path === '/api/v1/dev/instance/pro/power_on').map((q) => q.at);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 38, `gap ${times[i]! - times[i - 1]!} ms`);
    assert.ok(times[3]! - times[2]! > times[1]! - times[0]!, `backoff grows: ${times.map((t) => t - times[0]!).join(', ')}`);
  });

  it('no card on the host (AutoDL console 该主机空闲GPU不足) within the wait: gives up, says it is still shut down, exits 1', async () => {
    s.add({ platform: 'autodl-web', id: 'w-1', name: 'console', state: 'shutdown', noFreeGpu: true });
    const r = await run(['power-on', 'w-1', '--wait-for-gpu', '--wait', '1', '--yes'], { ...base, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb });
    assert.strictEqual(r.code, 1, r.stderr);
    assert.match(r.stderr, /no free card \(InstanceError 该主机空闲GPU不足/);
    assert.match(r.stderr, /no free card for console within \d+ s \(\d+ tries; .*still shut down/);
    assert.ok(s.sent('autodl-web', '/api/v1/instance/power_on').length >= 3);
  });

  it('a rate-limit reply slows the wait down (the next pause is longer than the floor would give)', async () => {
    s.add({ platform: 'tencent', id: 'ins-1', name: 'cvm', state: 'STOPPED' });
    s.fault({ platform: 'tencent', on: 'StartInstances', error: 'noStock', times: 1 });
    s.fault({ platform: 'tencent', on: 'StartInstances', error: 'rateLimited', times: 1 });
    const r = await run(['power-on', 'ins-1', '--wait-for-gpu', '--wait', '60', '--yes'], { ...base, TENCENTCLOUD_SECRET_ID: s.creds.tencentSecretId, TENCENTCLOUD_SECRET_KEY: 'tc-secret', TENCENTCLOUD_REGION: 'ap-guangzhou' });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /try 1 .*no free card \(ResourceInsufficient\.SpecifiedInstanceType/);
    assert.match(r.stderr, /try 2 .*rate-limited, slowing down \(RequestLimitExceeded/);
    const times = s.requests.filter((q) => q.action === 'StartInstances').map((q) => q.at);
    assert.strictEqual(times.length, 3);
    // After a rate limit: at least 4x the floor (a minute at the real 15 s floor), and more than the first pause.
    assert.ok(times[2]! - times[1]! >= 150 && times[2]! - times[1]! > times[1]! - times[0]!, `pauses ${times[1]! - times[0]!} then ${times[2]! - times[1]!} ms`);
  });

  it('refusals that waiting does not mend end the wait at once, with what to do (real name, balance); 阿里云 OperationDenied.NoStock is waited out', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'shutdown' });
    const env = { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro };
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'realName' });
    const real = await run(['power-on', 'pro-1', '--wait-for-gpu', '--yes', '--json'], env);
    assert.strictEqual(real.code, 1);
    assert.match(real.stderr, /real-name verification .*finish it in the platform console.*TORealName/);
    assert.strictEqual(JSON.parse(real.stdout).waitForGpu.advice, 'realName');
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'insufficientBalance' });
    const bal = await run(['power-on', 'pro-1', '--wait-for-gpu', '--yes'], env);
    assert.strictEqual(bal.code, 1);
    assert.match(bal.stderr, /the balance is too low: top up the account/);
    s.add({ platform: 'aliyun', id: 'i-1', name: 'ecs', state: 'Stopped' });
    s.fault({ platform: 'aliyun', on: 'StartInstance', error: 'noStock', times: 2 });
    const aliEnv = { ...base, ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret', ALIBABA_CLOUD_REGION_ID: 'cn-hangzhou' };
    const noStock = await run(['power-on', 'i-1', '--wait-for-gpu', '--wait', '60', '--yes'], aliEnv);
    assert.strictEqual(noStock.code, 0, noStock.stderr);
    assert.match(noStock.stderr, /no free card \(OperationDenied\.NoStock/);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 2, 'one try each: nothing retried after a refusal');
    // Bad input: a long --wait is for --wait-for-gpu; no card is needed for a no-GPU start; a running instance has nothing to wait for.
    const long = await run(['power-on', 'pro-1', '--wait', '3600', '--yes'], env);
    assert.strictEqual(long.code, 2);
    assert.match(long.stderr, /at most 1800 seconds to settle/);
    assert.strictEqual((await run(['power-on', 'pro-1', '--wait-for-gpu', '--no-gpu', '--yes'], env)).code, 2);
    s.add({ platform: 'autodl-pro', id: 'pro-up', name: 'up', state: 'running' });
    const up = await run(['power-on', 'pro-up', '--wait-for-gpu', '--yes'], env);
    assert.strictEqual(up.code, 1);
    assert.match(up.stderr, /up is running, not shut down: nothing to wait for/);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 2, 'nothing sent for bad input');
  });

  it('Ctrl-C ends the wait at once: exit 130, the time waited said, no more calls afterwards', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'shutdown' });
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'noStock', times: 1000 });
    const w = start(['power-on', 'pro-1', '--wait-for-gpu', '--wait', '600', '--yes'], { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro });
    await until('two tries', () => s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length >= 2);
    const t0 = Date.now();
    w.p.kill('SIGINT');
    const r = await w.done;
    assert.strictEqual(r.code, 130, r.stderr);
    assert.ok(Date.now() - t0 < 3000, `exited ${Date.now() - t0} ms after Ctrl-C`);
    assert.match(r.stderr, /stopped waiting for train after \d+ s \(\d+ tries\)/);
    const n = s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length;
    await new Promise((res) => setTimeout(res, 400));
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, n, 'nothing left running');
    assert.deepStrictEqual(await readdir(join(home, 'locks')), [], 'the lock is released');
  });

  it('never two power-ons in flight for one instance: a second gpu-rent power-on during a wait sends nothing', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'shutdown' });
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'noStock', times: 1000 });
    const env = { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro };
    // The waiting process pauses 10 s after its first try: any power-on sent meanwhile is another process's.
    const w = start(['power-on', 'pro-1', '--wait-for-gpu', '--wait', '600', '--yes'], { ...env, GPU_RENT_WAIT_MIN_INTERVAL_MS: '10000' });
    await until('the first try', () => s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length >= 1);
    const before = s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length;
    const second = await run(['power-on', 'pro-1', '--yes'], env);
    const third = await run(['power-on', 'pro-1', '--wait-for-gpu', '--yes'], env);
    w.p.kill('SIGINT');
    await w.done;
    assert.strictEqual(second.code, 1);
    assert.match(second.stderr, /train is already being started by power-on --wait-for-gpu \(pid \d+\) since \d{4}-\d\d-\d\d \d\d:\d\d Beijing: nothing sent/);
    assert.strictEqual(third.code, 1);
    assert.match(third.stderr, /nothing sent/);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, before, 'the other two sent no power-on');
  });
});
