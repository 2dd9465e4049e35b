// gpu-rent quote --stock: the built CLI against the local platform server (real shapes:
// stock-bodies.json). One account has the card free (AutoDL Pro: the fixture's 3090 and 4090 in
// the data center westDC2), one has none (腾讯云: its GN7 T4 type sold out), one fails (阿里云: a refused key);
// each row is marked, the failing account is named and the rest still show. Without --stock the
// quote sends nothing.
import * as assert from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import stockBodies from '../fixtures/platforms/stock-bodies.json';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const p = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

interface JsonRow {
  platform: string;
  card: string;
  billing: string;
  gpus: number;
  startNow?: { state: string; places?: Record<string, unknown>[] } | null;
}

describe('gpu-rent quote --stock (built CLI, local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    s = await PlatformServer.start();
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-quote-stock-'));
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    s.stock.autodl = {};
    s.stock.aliyun = {};
    s.stock.tencent = {};
    // AutoDL reads every data center of the elastic pool (no instance needed): westDC2 has the fixture's cards, the others none (synthetic).
    s.stock.autodl = { westDC2: stockBodies.autodlGpuStock.data };
    s.stock.autodlOther = [];
    // 腾讯云: the fixture's GN7 (T4) row, sold out in ap-guangzhou-3.
    const gn7 = stockBodies.tencentDescribeZoneInstanceConfigInfos.InstanceTypeQuotaSet[0]!;
    s.stock.tencent['ap-guangzhou'] = [{ ...gn7, Status: 'SOLD_OUT', StatusCategory: 'WithoutStock' }];
    env = {
      GPU_RENT_HOME: home,
      HOME: home,
      GPU_RENT_AUTODL_API: s.url,
      GPU_RENT_ALIYUN_ENDPOINT: s.url,
      GPU_RENT_TENCENT_ENDPOINT: s.url,
      GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro,
      TENCENTCLOUD_SECRET_ID: s.creds.tencentSecretId,
      TENCENTCLOUD_SECRET_KEY: 'tc-secret',
      TENCENTCLOUD_REGION: 'ap-guangzhou',
      // 阿里云 with a key the server does not know: that account's read fails.
      ALIBABA_CLOUD_ACCESS_KEY_ID: 'LTAI-not-a-key',
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret',
      ALIBABA_CLOUD_REGION_ID: 'cn-hangzhou',
    };
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('--json: startNow per row (free with places, none, null where not checked), the accounts read, each once', async () => {
    const r = await run(['quote', '--stock', '--json', '--vram-gb', '16'], env);
    assert.strictEqual(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { rows: JsonRow[]; stock: { readAt: number; accounts: { account: string; platform: string; ok: boolean; error: string | null }[] } };
    const row = (platform: string, card: string, billing = 'hour') => doc.rows.find((x) => x.platform === platform && x.card === card && x.billing === billing);
    assert.deepStrictEqual(row('autodl', 'rtx3090')!.startNow, { state: 'free', places: [{ account: 'env-autodl-pro', region: 'westDC2', zone: null, instanceType: null, free: 1, priceFenPerHour: null }] });
    assert.deepStrictEqual(row('autodl', 'rtx4090')!.startNow!.places!.map((p) => p.free), [3]);
    assert.deepStrictEqual(row('tencent', 't4')!.startNow, { state: 'none' });
    // 阿里云's read failed: not checked (null), and the failure is in stock.accounts.
    assert.strictEqual(row('aliyun', 't4')!.startNow, null);
    // A platform without an account: null, and every row carries the key.
    assert.ok(doc.rows.every((x) => 'startNow' in x));
    assert.strictEqual(doc.rows.find((x) => !['autodl', 'aliyun', 'tencent'].includes(x.platform))!.startNow, null);
    const acc = Object.fromEntries(doc.stock.accounts.map((a) => [a.platform, a]));
    assert.strictEqual(acc['autodl-pro']!.ok, true);
    assert.strictEqual(acc['tencent-cvm']!.ok, true);
    assert.strictEqual(acc['aliyun-ecs']!.ok, false);
    assert.match(acc['aliyun-ecs']!.error!, /InvalidAccessKeyId|AccessKey/);
    // Each account read once for all the rows.
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/machine/region/gpu_stock').length, 11, 'one read: the 11 data centers');
    assert.strictEqual(s.sent('tencent', 'DescribeZoneInstanceConfigInfos').length, 1);
    // A second quote within the minute reads nothing again (the cache gpu-rent stock keeps).
    const again = await run(['quote', '--stock', '--json', '--card', '3090'], env);
    assert.strictEqual(again.code, 0, again.stderr);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/machine/region/gpu_stock').length, 11);
    assert.strictEqual(s.sent('tencent', 'DescribeZoneInstanceConfigInfos').length, 1);
    assert.strictEqual((JSON.parse(again.stdout) as { rows: JsonRow[] }).rows.find((x) => x.platform === 'autodl')!.startNow!.state, 'free');
  });

  it('text: a Start now column (English and Chinese), the failing account named, the rest still shown', async () => {
    const en = await run(['quote', '--stock', '--vram-gb', '16', '--lang', 'en'], env);
    assert.strictEqual(en.code, 0, en.stderr);
    assert.match(en.stdout, /Price \(dated\)\s+Start now/);
    assert.match(en.stdout, /AutoDL.*RTX 3090.*can start now \(1 free in westDC2\)/);
    assert.match(en.stdout, /RTX 4090.*can start now \(3 free in westDC2\)/);
    assert.match(en.stdout, /腾讯云.*T4.*none free now/);
    assert.match(en.stdout, /阿里云.*T4.*not checked: the stock read failed/);
    assert.match(en.stdout, /Start now: free cards read at \d\d:\d\d:\d\d UTC from 2 of 3 accounts/);
    assert.match(en.stdout, /env-aliyun-ecs: the free cards could not be read \(.+\); its rows say not checked/);
    const zh = await run(['quote', '--stock', '--vram-gb', '16', '--lang', 'zh-cn'], env);
    assert.strictEqual(zh.code, 0, zh.stderr);
    assert.match(zh.stdout, /立即开机/);
    assert.match(zh.stdout, /RTX 3090.*可立即开机（westDC2 空闲 1 张）/);
    assert.match(zh.stdout, /腾讯云.*暂无空闲卡/);
    assert.match(zh.stdout, /env-aliyun-ecs：无法读取空闲卡/);
  });

  it('a platform\'s zone text with terminal controls and a bidi override is shown as data', async () => {
    const gn7 = stockBodies.tencentDescribeZoneInstanceConfigInfos.InstanceTypeQuotaSet[0]!;
    s.stock.tencent['ap-guangzhou'] = [{ ...gn7, Zone: 'ap-guangzhou-3\u001b]8;;http://evil.example\u0007x\u202e' }];
    const t = await run(['quote', '--stock', '--vram-gb', '16', '--platform', 'tencent'], env);
    assert.strictEqual(t.code, 0, t.stderr);
    assert.match(t.stdout, /can start now \(available in ap-guangzhou ap-guangzhou-3/);
    assert.doesNotMatch(t.stdout, /[\u001b\u0007\u202e]/);
    const j = await run(['quote', '--stock', '--json', '--vram-gb', '16', '--platform', 'tencent'], env);
    assert.doesNotMatch(j.stdout, /[\u001b\u0007\u202e]/);
    const zone = (JSON.parse(j.stdout) as { rows: JsonRow[] }).rows.find((x) => x.platform === 'tencent' && x.billing === 'hour')!.startNow!.places![0]!.zone as string;
    assert.ok(zone.startsWith('ap-guangzhou-3') && !/[\u001b\u0007]/.test(zone), zone);
  });

  it('without --stock the quote stays offline and unchanged; --stock with no account says nothing was checked', async () => {
    const plain = await run(['quote', '--json'], env);
    assert.strictEqual(plain.code, 0, plain.stderr);
    assert.strictEqual(s.requests.length, 0, 'quote without --stock sent nothing');
    const doc = JSON.parse(plain.stdout) as { rows: JsonRow[]; stock?: unknown };
    assert.ok(doc.rows.every((x) => !('startNow' in x)) && doc.stock === undefined);
    assert.doesNotMatch((await run(['quote'], env)).stdout, /Start now/);
    assert.strictEqual(s.requests.length, 0);
    const none = await run(['quote', '--stock'], { GPU_RENT_HOME: home, HOME: home });
    assert.strictEqual(none.code, 0, none.stderr);
    assert.match(none.stdout, /Start now: no platform account is configured, so nothing was checked/);
    // --platform: only that platform's accounts are read.
    const only = await run(['quote', '--stock', '--json', '--vram-gb', '16', '--platform', 'tencent'], env);
    assert.strictEqual(only.code, 0, only.stderr);
    assert.deepStrictEqual((JSON.parse(only.stdout) as { stock: { accounts: { platform: string }[] } }).stock.accounts.map((a) => a.platform), ['tencent-cvm']);
    assert.strictEqual(s.sent('autodl-pro').length, 0);
  });
});
