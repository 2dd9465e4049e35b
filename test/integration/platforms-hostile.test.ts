// A hostile platform API (test/support/platform-server.ts's hostile modes) against the built
// CLI and the connectors: endless and 1.5 GB replies, 4 MB of nested brackets and a 307 to
// another origin give one clear error within the 256 MB budget, for AutoDL's own HTTP and the
// 阿里云/腾讯云 SDKs alike, and nothing is sent to the redirect's target; instance names,
// states, GPU names and error messages carrying C1, bidi and escape characters reach the
// terminal as inert text; a page with more rows than asked is cut.
import * as assert from 'node:assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeConnector } from '../../src/app/platforms/accounts';
import { PlatformError } from '../../src/app/platforms/errors';
import { RAW_CONTROL, runCliMeasured } from '../support/hostile-sshd';
import { PlatformServer, type FakePlatform, type HostileMode } from '../support/platform-server';

const MiB = 1024 * 1024;
const BUDGET_BYTES = 256 * MiB;
const HOSTILE = 'evil\u009b31m\u009d0;owned\u0007\u202egnp.exe\u2028\x1b[2J';

describe('a hostile platform API (built CLI, local platform server)', function () {
  this.timeout(120_000);
  let s: PlatformServer;
  let elsewhere: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    s = await PlatformServer.start();
    elsewhere = await PlatformServer.start();
  });
  after(async () => {
    await s.close();
    await elsewhere.close();
  });
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-hostile-platform-'));
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_ALIYUN_ENDPOINT: s.url, GPU_RENT_TENCENT_ENDPOINT: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '100' };
    s.instances.clear();
    s.requests.length = 0;
    s.hostile = undefined;
    s.pageOverfill = 0;
    s.hostileBytesSent = 0;
    elsewhere.requests.length = 0;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const accountEnv: Record<FakePlatform, () => NodeJS.ProcessEnv> = {
    'autodl-pro': () => ({ GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro }),
    'autodl-web': () => ({}),
    aliyun: () => ({ ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret' }),
    tencent: () => ({ TENCENTCLOUD_SECRET_ID: s.creds.tencentSecretId, TENCENTCLOUD_SECRET_KEY: 'tc-secret' }),
  };
  const expected: Record<HostileMode, RegExp> = {
    endless: /ReplyTooLarge the reply is over 8 MiB/,
    huge: /ReplyTooLarge the reply is over 8 MiB/,
    hugeChunked: /ReplyTooLarge the reply is over 8 MiB/,
    deep: /ReplyTooDeep/,
    redirect: /RedirectRefused .*(another origin|redirected)/,
  };

  for (const platform of ['autodl-pro', 'aliyun', 'tencent'] as const) {
    for (const mode of ['endless', 'huge', 'hugeChunked', 'deep', 'redirect'] as const) {
      it(`${platform}, ${mode}: gpu-rent instances exits 1 with one line naming it, peak RSS under 256 MB`, async () => {
        s.hostile = { platform, mode, redirectTo: elsewhere.url };
        const r = await runCliMeasured(['instances', '--json'], { ...env, ...accountEnv[platform]() }, 60_000);
        assert.strictEqual(r.code, 1, r.stderr);
        // Its one account failed: the --json error object, the failure's code (issue 23.5), not an empty list.
        const error = (JSON.parse(r.stdout) as { error: { code: string; message: string; accounts: unknown[] } }).error;
        assert.strictEqual(typeof error.code, 'string');
        assert.match(error.message, expected[mode]);
        assert.strictEqual(error.accounts.length, 1);
        const lines = r.stderr.trim().split('\n');
        assert.strictEqual(lines.length, 1, r.stderr);
        assert.match(lines[0]!, expected[mode]);
        assert.ok(r.peakRssBytes > 0 && r.peakRssBytes < BUDGET_BYTES, `peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB`);
        if (mode === 'redirect') assert.strictEqual(elsewhere.requests.length, 0, 'nothing was sent to the other origin');
        if (mode !== 'deep' && mode !== 'redirect') assert.ok(s.hostileBytesSent < 256 * MiB, `the server wrote ${(s.hostileBytesSent / MiB).toFixed(0)} MiB before the client gave up`);
        console.log(`      peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB, ${r.ms} ms, server wrote ${(s.hostileBytesSent / MiB).toFixed(1)} MiB`);
      });
    }
  }

  it('same-origin redirects are followed (AutoDL), a few at most; only another origin is refused outright', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-r', name: 'r', state: 'running' });
    // The hostile server redirects to the real one on the same origin: nothing to refuse.
    s.hostile = { platform: 'autodl-pro', mode: 'redirect', redirectTo: s.url };
    const c = makeConnector({ kind: 'autodl-pro' }, { token: s.creds.autodlPro }, { autodlApi: s.url }, { timeoutMs: 5000, now: () => 1 });
    // Every request is answered by the redirect, so it loops: refused after a few hops, never elsewhere.
    await assert.rejects(c.list(), (e: unknown) => e instanceof PlatformError && e.failure.code === 'RedirectRefused' && /more than 5 times/.test(e.message));
  });

  it('instance names, states, GPU names and error messages with C1, bidi and escapes reach the terminal inert: the table, --json and power-off', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-h', name: HOSTILE, state: 'running', gpuName: HOSTILE });
    s.add({ platform: 'aliyun', id: 'i-h', name: HOSTILE, state: 'Running', gpuName: HOSTILE });
    s.add({ platform: 'tencent', id: 'ins-h', name: HOSTILE, state: 'RUNNING', gpuName: HOSTILE });
    const all = { ...env, ...accountEnv['autodl-pro'](), ...accountEnv.aliyun(), ...accountEnv.tencent(), GPU_RENT_ALLOW_POWER: '1' };
    const table = await runCliMeasured(['instances'], all);
    assert.strictEqual(table.code, 0, table.stderr);
    assert.ok(!RAW_CONTROL.test(table.stdout), JSON.stringify(table.stdout));
    assert.ok(!/[\u2028\u2029]/.test(table.stdout));
    assert.match(table.stdout, /evil 31m 0;owned gnp\.exe/, 'the printable text stays');
    const json = await runCliMeasured(['instances', '--json'], all);
    assert.strictEqual(json.code, 0, json.stderr);
    assert.ok(!RAW_CONTROL.test(json.stdout) && !/[\u2028\u2029]/.test(json.stdout), JSON.stringify(json.stdout));
    const rows = JSON.parse(json.stdout) as { name: string; card?: string }[];
    assert.strictEqual(rows.length, 3);
    for (const row of rows) {
      assert.strictEqual(row.name, 'evil 31m 0;owned gnp.exe [2J');
      assert.strictEqual(row.card, 'evil 31m 0;owned gnp.exe [2J');
    }
    // A state word and a refusal message from the platform, printed by power-off.
    s.instances.get('pro-h')!.state = `running${HOSTILE}`;
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_off', error: 'serverError', message: HOSTILE });
    const off = await runCliMeasured(['power-off', 'pro-h', '--yes'], all);
    assert.strictEqual(off.code, 1, off.stderr);
    assert.ok(!RAW_CONTROL.test(off.stderr) && !/[\u2028\u2029]/.test(off.stderr), JSON.stringify(off.stderr));
    assert.match(off.stderr, /evil 31m 0;owned gnp\.exe/);
    for (const p of ['aliyun', 'tencent'] as const) s.fault({ platform: p, on: p === 'aliyun' ? 'StopInstance' : 'StopInstances', error: p === 'aliyun' ? 'incorrectStatus' : 'rateLimited', message: HOSTILE });
    for (const ref of ['i-h', 'ins-h']) {
      const r = await runCliMeasured(['power-off', ref, '--yes', '--json'], all);
      assert.strictEqual(r.code, 1, r.stderr);
      assert.ok(!RAW_CONTROL.test(r.stderr + r.stdout) && !/[\u2028\u2029]/.test(r.stderr + r.stdout), JSON.stringify(r.stderr));
      assert.match(r.stderr, /evil 31m 0;owned gnp\.exe/);
    }
  });

  it('a page with more rows than asked is cut to the page size (AutoDL, 阿里云, 腾讯云): no duplicates, no more than the account holds', async () => {
    for (let n = 0; n < 130; n++) {
      s.add({ platform: 'autodl-pro', id: `pro-${n}`, name: `p${n}`, state: 'running' });
      s.add({ platform: 'aliyun', id: `i-${n}`, name: `a${n}`, state: 'Running' });
      s.add({ platform: 'tencent', id: `ins-${n}`, name: `t${n}`, state: 'RUNNING' });
    }
    s.pageOverfill = 900;
    const ep = { autodlApi: s.url, aliyun: s.url, tencent: s.url };
    const o = { timeoutMs: 10_000, now: () => 1 };
    const lists = await Promise.all([
      makeConnector({ kind: 'autodl-pro' }, { token: s.creds.autodlPro }, ep, o).list(),
      makeConnector({ kind: 'aliyun-ecs', region: 'cn-hangzhou' }, { accessKeyId: s.creds.aliyunKeyId, accessKeySecret: 'x' }, ep, o).list(),
      makeConnector({ kind: 'tencent-cvm', region: 'ap-guangzhou' }, { secretId: s.creds.tencentSecretId, secretKey: 'x' }, ep, o).list(),
    ]);
    for (const list of lists) {
      assert.strictEqual(list.length, 130);
      assert.strictEqual(new Set(list.map((i) => i.ref)).size, 130);
    }
  });
});
