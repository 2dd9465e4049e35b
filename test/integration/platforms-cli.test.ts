// gpu-rent accounts / instances / power-on / power-off / release / balance, the built CLI
// against the local platform server (run asynchronously so the server in this process answers).
import * as assert from 'node:assert';
import { mkdtemp, readFile, rm, stat, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';

const run = runCliAsync;

describe('gpu-rent platform commands (built CLI, local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let base: NodeJS.ProcessEnv;
  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 300;
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-home-'));
    base = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_ALIYUN_ENDPOINT: s.url, GPU_RENT_TENCENT_ENDPOINT: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '100' };
    s.instances.clear();
    s.requests.length = 0;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('with no account, instances says how to add one and exits 1, as under --json (issue 45: exit codes do not depend on the output format)', async () => {
    const r = await run(['instances'], base);
    assert.strictEqual(r.code, 1, r.stderr);
    assert.match(r.stderr, /gpu-rent accounts add/);
    const j = await run(['instances', '--json'], base);
    assert.strictEqual(j.code, r.code);
  });

  it('accounts add checks the token with one read-only call, keeps it 0600, lists it without the secret, removes it', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'running' });
    const bad = await run(['accounts', 'add', 'autodl-pro'], { ...base, GPU_RENT_AUTODL_TOKEN: 'wrong-token' });
    assert.strictEqual(bad.code, 1);
    assert.match(bad.stderr, /AutoDL Pro.*AuthorizeFailed/);
    const r = await run(['accounts', 'add', 'autodl-pro', '--allow-power'], { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 instances, power actions allowed/);
    assert.strictEqual(s.sent('autodl-pro').filter((q) => q.path.endsWith('/list')).length, 2, 'one list per add');
    const file = join(home, 'accounts.json');
    assert.strictEqual((await stat(file)).mode & 0o777, 0o600);
    const list = await run(['accounts', 'list', '--json'], base);
    assert.ok(!list.stdout.includes(s.creds.autodlPro));
    assert.strictEqual(JSON.parse(list.stdout)[0].id, 'autodl-pro');
    await chmod(file, 0o644);
    const loose = await run(['accounts', 'list'], base);
    assert.strictEqual(loose.code, 1);
    assert.match(loose.stderr, /chmod 600/);
    await chmod(file, 0o600);
    assert.strictEqual((await run(['accounts', 'remove', 'autodl-pro'], base)).code, 0);
    assert.ok(!(await readFile(file, 'utf8')).includes(s.creds.autodlPro));
  });

  it('instances and balance read every account; --json carries fen', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'running' });
    s.add({ platform: 'aliyun', id: 'i-ali1', name: 'ecs', state: 'Running' });
    s.add({ platform: 'tencent', id: 'ins-tc1', name: 'cvm', state: 'STOPPED' });
    const env = { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret', TENCENTCLOUD_SECRET_ID: s.creds.tencentSecretId, TENCENTCLOUD_SECRET_KEY: 'tc-secret' };
    const r = await run(['instances', '--json'], env);
    assert.strictEqual(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as { ref: string; state: string; priceFenPerHour?: number }[];
    assert.deepStrictEqual(rows.map((x) => [x.ref, x.state]).sort(), [['i-ali1', 'running'], ['ins-tc1', 'stopped'], ['pro-1', 'running']]);
    assert.strictEqual(rows.find((x) => x.ref === 'pro-1')!.priceFenPerHour, 197, 'payg_price 1970 (¥/1000) from the snapshot');
    const only = await run(['instances', '--platform', 'tencent'], env);
    assert.match(only.stdout, /ins-tc1/);
    assert.ok(!only.stdout.includes('pro-1'));
    const b = await run(['balance', '--json'], env);
    assert.strictEqual(b.code, 0, b.stderr);
    assert.deepStrictEqual((JSON.parse(b.stdout) as { platform: string; fen: number }[]).map((x) => [x.platform, x.fen]).sort(), [['aliyun-ecs', 123456], ['autodl-pro', 12345], ['tencent-cvm', 98765]]);
  });

  it('instances: a cloud region that fails is named and the other regions’ instances are still listed (exit 1)', async () => {
    s.add({ platform: 'aliyun', id: 'i-hz', name: 'hz', state: 'Running', region: 'cn-hangzhou' });
    s.add({ platform: 'aliyun', id: 'i-bj', name: 'bj', state: 'Running', region: 'cn-beijing' });
    const env = { ...base, ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret' };
    s.fault({ platform: 'aliyun', on: 'DescribeInstances', error: 'throttling', status: 429 });
    const j = await run(['instances', '--json'], env);
    assert.strictEqual(j.code, 1, j.stderr);
    const rows = JSON.parse(j.stdout) as { ref: string; region: string }[];
    assert.strictEqual(rows.length, 1, j.stdout);
    const failed = rows[0]!.region === 'cn-hangzhou' ? 'cn-beijing' : 'cn-hangzhou';
    assert.match(j.stderr, new RegExp(`${failed}: .*the other 1 region\\(s\\) listed`));
  });

  it('instances shows card, price (? where none), billing, region and the platform’s release day; a failed balance read is "balance ?" and the instances still show', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-st', name: 'parked', state: 'shutdown', stoppedAt: '2026-04-08T00:13:29+08:00' });
    s.add({ platform: 'autodl-pro', id: 'pro-ns', name: 'nosnap', state: 'running', specId: '5090-p', noSnapshot: true });
    s.add({ platform: 'aliyun', id: 'i-b1', name: 'ecs', state: 'Running' });
    s.add({ platform: 'aliyun', id: 'i-s1', name: 'spotbox', state: 'Running', spotStrategy: 'SpotAsPriceGo', region: 'cn-beijing' });
    s.add({ platform: 'aliyun', id: 'i-m1', name: 'monthly', state: 'Running', chargeType: 'PrePaid' });
    const env = { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret' };
    const j = await run(['instances', '--json'], env);
    assert.strictEqual(j.code, 0, j.stderr);
    const rows = JSON.parse(j.stdout) as Record<string, unknown>[];
    const parked = rows.find((r) => r.ref === 'pro-st')!;
    assert.deepStrictEqual([parked.state, parked.card, parked.releaseDay, parked.releaseAt, parked.billing], ['stopped', 'NVIDIA RTX PRO 6000', '2026-04-23 00:13', Date.parse('2026-04-23T00:13:29+08:00') / 1000, 'postpaid']);
    const ns = rows.find((r) => r.ref === 'pro-ns')!;
    assert.deepStrictEqual([ns.card, ns.priceFenPerHour], ['5090-32G', null], 'no snapshot: the appendix card, no price');
    assert.strictEqual(rows.find((r) => r.ref === 'i-b1')!.billing, 'postpaid');
    // Clouds: the price the instance bills at, in every region (no region chosen: DescribeRegions).
    const cloud = (ref: string) => rows.find((r) => r.ref === ref)!;
    assert.deepStrictEqual([cloud('i-b1').priceFenPerHour, cloud('i-b1').region], [1250, 'cn-hangzhou'], 'pay-as-you-go: DescribePrice');
    assert.deepStrictEqual([cloud('i-s1').priceFenPerHour, cloud('i-s1').billing, cloud('i-s1').region], [250, 'spot', 'cn-beijing'], 'spot: DescribeSpotPriceHistory, in its region');
    assert.deepStrictEqual([cloud('i-m1').priceFenPerHour, cloud('i-m1').billing], [null, 'prepaid'], 'prepaid: no hourly price');
    const t = await run(['instances'], env);
    assert.match(t.stdout, /RELEASED ON/);
    assert.match(t.stdout, /parked .* 2026-04-23 00:13 \(soon\)/);
    assert.match(t.stdout, /nosnap .*5090-32G ×1 +\? /);
    assert.match(t.stdout, /spotbox .* ¥2\.50\/h spot +cn-beijing /);
    assert.match(t.stdout, /monthly .* prepaid +cn-hangzhou /);
    s.fault({ platform: 'aliyun', on: 'QueryAccountBalance', error: 'throttling', times: 1 });
    const b = await run(['balance'], env);
    assert.strictEqual(b.code, 1);
    assert.match(b.stdout, /env-aliyun-ecs +aliyun-ecs +\?/);
    assert.match(b.stdout, /env-autodl-pro +autodl-pro +¥123\.45/);
    s.fault({ platform: 'aliyun', on: 'QueryAccountBalance', error: 'throttling', times: 1 });
    const bj = await run(['balance', '--json'], env);
    assert.strictEqual(bj.code, 1);
    const accounts = JSON.parse(bj.stdout) as { account: string; balance: { fen: number } | null; fen: number | null; reason?: string; failure?: string }[];
    assert.deepStrictEqual(accounts.map((a) => a.account).sort(), ['env-aliyun-ecs', 'env-autodl-pro'], 'the unreadable account is listed too');
    const ali = accounts.find((a) => a.account === 'env-aliyun-ecs')!;
    assert.deepStrictEqual([ali.balance, ali.fen, ali.failure], [null, null, 'rateLimited']);
    assert.match(ali.reason!, /Throttling/);
    assert.deepStrictEqual(accounts.find((a) => a.account === 'env-autodl-pro')!.balance, { fen: 12345, yuan: 123.45 });
  });

  it('a refused token or an unreachable API exits 1 with one line naming the platform and the cause', async () => {
    const r = await run(['instances'], { ...base, TENCENTCLOUD_SECRET_ID: 'AKID-wrong', TENCENTCLOUD_SECRET_KEY: 'x' });
    assert.strictEqual(r.code, 1);
    assert.strictEqual(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /腾讯云 CVM.*AuthFailure/);
    const t0 = Date.now();
    const u = await run(['balance'], { ...base, GPU_RENT_AUTODL_API: 'http://127.0.0.1:9', GPU_RENT_AUTODL_TOKEN: 't' });
    assert.strictEqual(u.code, 1);
    assert.match(u.stderr, /AutoDL Pro: the platform could not be reached/);
    assert.ok(Date.now() - t0 < 20000);
  });

  it('power-off shows the price and does nothing without --yes; with it, stops charging and waits until stopped; a no-GPU start is refused where not offered; release', async () => {
    s.add({ platform: 'aliyun', id: 'i-p1', name: 'gpu-box', state: 'Running' });
    const env = { ...base, ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret' };
    const ro = await run(['power-off', 'gpu-box', '--yes'], env);
    assert.strictEqual(ro.code, 1);
    assert.match(ro.stderr, /read-only .*GPU_RENT_ALLOW_POWER=1/);
    const power = { ...env, GPU_RENT_ALLOW_POWER: '1' };
    const dry = await run(['power-off', 'gpu-box', '--stop-charging'], power);
    assert.strictEqual(dry.code, 2);
    assert.match(dry.stderr, /¥12\.50\/h/);
    assert.strictEqual(s.sent('aliyun', 'StopInstance').length, 0);
    assert.match(dry.stderr, /economical mode \(StopCharging/);
    const off = await run(['power-off', 'gpu-box', '--yes', '--json'], power);
    assert.strictEqual(off.code, 0, off.stderr);
    assert.strictEqual(JSON.parse(off.stdout).state, 'stopped');
    assert.deepStrictEqual(JSON.parse(off.stdout).stillBills, { compute: 'stops', disks: true, publicIp: true, economicalModeRefused: false });
    assert.match(off.stderr, /stopping/);
    assert.match(off.stderr, /compute billing stopped; still billing: its disks and any public IP \/ EIP/);
    assert.strictEqual(s.sent('aliyun', 'StopInstance').length, 1);
    assert.strictEqual(s.instances.get('i-p1')!.stoppedMode, 'StopCharging', 'economical mode is the default, no flag needed');
    // An instance the platform stops in keep-charging mode whatever is asked: said, exit 0 (it did stop), compute still bills.
    s.add({ platform: 'aliyun', id: 'i-k1', name: 'keep-box', state: 'Running', noStopCharging: true });
    const kept = await run(['power-off', 'keep-box', '--yes', '--json'], power);
    assert.strictEqual(kept.code, 0, kept.stderr);
    assert.match(kept.stderr, /compute STILL BILLS \(¥12\.50\/h\) as if it ran: 阿里云 ECS stopped it in keep-charging mode/);
    assert.strictEqual(JSON.parse(kept.stdout).stillBills.economicalModeRefused, true);
    assert.match(s.sent('aliyun', 'StopInstance').at(-1)!.body + JSON.stringify(s.sent('aliyun', 'StopInstance').at(-1)!.query), /StopCharging/, 'economical mode was asked for');
    const keepFlag = await run(['power-off', 'i-k1', '--keep-charging'], power);
    assert.match(keepFlag.stderr, /KEEP-CHARGING mode \(compute keeps billing as if it ran\)/);
    s.instances.delete('i-k1');
    const help = await run(['power-off', '--help'], power);
    assert.match(help.stdout + help.stderr, /economical mode/);
    assert.match(help.stdout + help.stderr, /--keep-charging/);
    const nogpu = await run(['power-on', 'gpu-box', '--no-gpu', '--yes'], power);
    assert.strictEqual(nogpu.code, 1);
    assert.match(nogpu.stderr, /offers no powerOn:noGpu/);
    const rel = await run(['release', 'i-p1', '--yes'], power);
    assert.strictEqual(rel.code, 0, rel.stderr);
    assert.ok(!s.instances.has('i-p1'));
  });

  it('a platform that accepts the power-off and never changes state: exit 1, the instance still bills, in words (issue 22.2)', async () => {
    s.add({ platform: 'aliyun', id: 'i-stuck', name: 'stuck-box', state: 'Running' });
    s.powerOffIgnored = true;
    try {
      const env = { ...base, ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret', GPU_RENT_ALLOW_POWER: '1' };
      const off = await run(['power-off', 'stuck-box', '--yes', '--wait', '2'], env);
      assert.strictEqual(off.code, 1, off.stderr);
      assert.strictEqual(s.sent('aliyun', 'StopInstance').length, 1, 'sent once, never retried');
      assert.match(off.stderr, /stuck-box did NOT power off and keeps billing ¥12\.50\/h: the platform accepted it but reports "Running" after 2 s/);
      assert.match(off.stdout, /not settled after 2s \(last: running\)/);
      // The same under --json: exit 1, the document with settled false and the error beside it.
      const js = await run(['power-off', 'stuck-box', '--yes', '--wait', '2', '--json'], env);
      assert.strictEqual(js.code, 1, js.stderr);
      const doc = JSON.parse(js.stdout) as { settled: boolean; error: { code: string; message: string } };
      assert.strictEqual(doc.settled, false);
      assert.strictEqual(doc.error.code, 'not-settled');
      assert.match(doc.error.message, /power-off sent, but the instance reports "Running" after 2 s: it may still bill/);
    } finally {
      s.powerOffIgnored = false;
      s.instances.delete('i-stuck');
    }
  });

  it('power-on on AutoDL prints the new SSH login; no stock (暂无库存) is named and the start is sent once', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'stopped-box', state: 'shutdown', sshPort: 41000 });
    const env = { ...base, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1' };
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'noStock' });
    const refused = await run(['power-on', 'pro-s', '--yes'], env);
    assert.strictEqual(refused.code, 1);
    assert.match(refused.stderr, /暂无库存.*try again later/);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 1);
    const on = await run(['power-on', 'pro-s', '--yes'], env);
    assert.strictEqual(on.code, 0, on.stderr);
    assert.match(on.stderr, /ssh -p 41001 root@127\.0\.0\.1/);
    assert.ok(!on.stderr.includes('pw-41001') && !on.stdout.includes('pw-41001'), 'the password is not printed');
  });
});
