// Keep the disk alive (issue 43.3): `gpu-rent accounts keep-alive ID on` and `gpu-rent schedule run`
// (cron), the built CLI against the local platform server (AutoDL console rows: stopped_at as the
// public clients read it, power_on with payload non_gpu). An instance shut down 12.5 days ago (day
// 13 of 15) is started without GPU, seen running and shut down again; one on day 5 and one running
// are left alone; with the instance's power-on lock held elsewhere nothing is sent and the next run does it.
import * as assert from 'node:assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, powerLockKey } from '../../src/app/platforms/powerLock';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import { startNotifyStub } from '../support/notify-stub';

const DAY = 86400;

interface RunJson {
  keepAlive: { account: string; ref: string; outcome: string; detail: string; day: number | null; days: number | null; newReleaseBeijing: string | null; ranSeconds: number | null; costFen: number | null; stillBilling: boolean }[];
  /** Beside the report when the run exits 1 (issue 45). */
  error?: { code: string; message: string };
}

describe('keep-alive: shut-down instances kept from release by gpu-rent schedule run (built CLI, local platform server)', function () {
  this.timeout(90000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const now = Math.floor(Date.now() / 1000);
  const iso = (epochS: number) => new Date(epochS * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const cli = (args: string[], e: NodeJS.ProcessEnv = env) => runCliAsync(args, e);
  const runJson = async (): Promise<{ code: number; json: RunJson; stderr: string }> => {
    const r = await cli(['schedule', 'run', '--json']);
    return { code: r.code, json: JSON.parse(r.stdout) as RunJson, stderr: r.stderr };
  };
  const powerCalls = (id: string, what: 'power_on' | 'power_off') => s.sent('autodl-web', `/api/v1/instance/${what}`).filter((r) => r.body.includes(id));

  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-keep-'));
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '100', GPU_RENT_TEST_NOW: String(now) };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    const add = await cli(['accounts', 'add', 'autodl-web', '--experimental', '--allow-power', '--keep-alive'], { ...env, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb });
    assert.strictEqual(add.code, 0, add.stderr);
    assert.match(add.stdout, /keep-alive on for autodl-web: .*no-GPU mode \(¥0\.10\/h\) within 3 days of its release day.*about 5 minutes, about ¥0\.01 each time/);
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('day 13 of 15: started without GPU, seen running, shut down again; day 5 and a running instance are left alone', async () => {
    s.add({ platform: 'autodl-web', id: 'day13', name: 'old-data', state: 'shutdown', stoppedAt: iso(now - 12.5 * DAY) });
    s.add({ platform: 'autodl-web', id: 'day5', name: 'recent', state: 'shutdown', stoppedAt: iso(now - 4.5 * DAY) });
    s.add({ platform: 'autodl-web', id: 'live', name: 'training', state: 'running' });
    const r = await runJson();
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.json.error, undefined);
    const by = (ref: string) => r.json.keepAlive.find((x) => x.ref === ref)!;
    assert.strictEqual(by('day13').outcome, 'done', by('day13').detail);
    assert.deepStrictEqual([by('day13').day, by('day13').days], [13, 15]);
    assert.match(by('day13').detail, /started in no-GPU mode, seen running, shut down again after \d+ s/);
    assert.ok(by('day13').newReleaseBeijing, 'the new release day the platform gives after the shut-down');
    assert.ok(by('day13').costFen! >= 1 && by('day13').costFen! <= 2, `seconds of ¥0.1/h: ${by('day13').costFen}`);
    const on = powerCalls('day13', 'power_on');
    assert.strictEqual(on.length, 1);
    assert.strictEqual((JSON.parse(on[0]!.body) as { payload?: string }).payload, 'non_gpu', 'started without its GPU');
    assert.strictEqual(powerCalls('day13', 'power_off').length, 1);
    assert.strictEqual(s.instances.get('day13')!.state, 'shutdown', 'left shut down');
    assert.strictEqual(by('day5').outcome, 'notDue');
    assert.deepStrictEqual([by('day5').day, by('day5').days], [5, 15]);
    assert.strictEqual(by('live').outcome, 'notStopped');
    for (const id of ['day5', 'live']) assert.strictEqual(powerCalls(id, 'power_on').length + powerCalls(id, 'power_off').length, 0, `${id}: nothing sent`);
    // The platform's clock restarted: the next run has nothing to do.
    const again = await runJson();
    assert.strictEqual(again.json.keepAlive.find((x) => x.ref === 'day13')!.outcome, 'notDue');
    assert.strictEqual(powerCalls('day13', 'power_on').length, 1);
    // The text a cron mail shows.
    s.instances.get('day13')!.stoppedAt = iso(now - 12.5 * DAY);
    const text = await cli(['schedule', 'run']);
    assert.strictEqual(text.code, 0, text.stderr);
    assert.match(text.stdout, /keep-alive old-data \(autodl-web\/day13\) \(shut down day 13 of 15, release day .* Beijing\): done: started in no-GPU mode.*about ¥0\.0\d; new release day .* Beijing/);
    assert.doesNotMatch(text.stdout, /recent|training/);
    s.instances.get('day13')!.stoppedAt = iso(now - 12.5 * DAY);
    const zh = await cli(['schedule', 'run', '--lang', 'zh-cn']);
    assert.strictEqual(zh.code, 0, zh.stderr);
    assert.match(zh.stdout, /防释放 old-data \(autodl-web\/day13\)（关机第 13\/15 天，释放日 北京时间 .*）：已完成：已以无卡模式开机、确认运行，并在 \d+ 秒后再次关机，无卡模式 \d+ 秒约 ¥0\.0\d；新的释放日/);
  });

  it('the power-on lock held by another power-on: nothing is sent, said as busy; the next run does it', async () => {
    s.add({ platform: 'autodl-web', id: 'day13', name: 'old-data', state: 'shutdown', stoppedAt: iso(now - 12.5 * DAY) });
    const held = acquireFileLock(join(home, 'locks'), powerLockKey('autodl-web', 'day13'), 'power-on --wait-for-gpu');
    assert.ok('release' in held);
    try {
      const r = await runJson();
      assert.strictEqual(r.code, 0, 'busy is not a failure: the next run tries again');
      const x = r.json.keepAlive.find((k) => k.ref === 'day13')!;
      assert.strictEqual(x.outcome, 'busy');
      assert.match(x.detail, /already being started by power-on --wait-for-gpu \(pid \d+\).*nothing sent/);
      assert.strictEqual(powerCalls('day13', 'power_on').length, 0);
    } finally {
      held.release();
    }
    const r2 = await runJson();
    assert.strictEqual(r2.json.keepAlive.find((k) => k.ref === 'day13')!.outcome, 'done');
  });

  it('a shut-down the platform refuses is said loudly as still billing, and the run exits 1 (cron mails it)', async () => {
    s.add({ platform: 'autodl-web', id: 'day13', name: 'old-data', state: 'shutdown', stoppedAt: iso(now - 12.5 * DAY) });
    s.fault({ platform: 'autodl-web', on: '/api/v1/instance/power_off', error: 'noAccess' });
    const r = await runJson();
    assert.strictEqual(r.code, 1);
    assert.strictEqual(r.json.error?.code, 'not-done', 'exit 1 under --json: error beside the report');
    assert.strictEqual(typeof r.json.error?.message, 'string');
    const x = r.json.keepAlive.find((k) => k.ref === 'day13')!;
    assert.strictEqual(x.outcome, 'failed');
    assert.strictEqual(x.stillBilling, true);
    assert.match(x.detail, /STILL BILLS/);
  });

  it('--notify: a keep-alive done is told once on the channel (企业微信 robot stub), in its words; a later run with nothing to do sends nothing', async () => {
    const KEY = 'wecom-key-keepalive-1';
    const stub = await startNotifyStub({ wecomKey: KEY, dingtalkToken: 'unused', dingtalkSecret: 'SECunused' });
    try {
      const added = await cli(['notify', 'add', 'phone', '--kind', 'wecom'], { ...env, GPU_RENT_NOTIFY_SECRET: `${stub.base}/cgi-bin/webhook/send?key=${KEY}` });
      assert.strictEqual(added.code, 0, added.stderr);
      const missing = await cli(['schedule', 'run', '--notify', 'nope']);
      assert.strictEqual(missing.code, 2);
      assert.match(missing.stderr, /--notify: no channel nope/);
      s.add({ platform: 'autodl-web', id: 'day13', name: 'old-data', state: 'shutdown', stoppedAt: iso(now - 12.5 * DAY) });
      const r = await cli(['schedule', 'run', '--notify', 'phone']);
      assert.strictEqual(r.code, 0, r.stderr);
      assert.strictEqual(stub.requests.length, 1);
      assert.deepStrictEqual(stub.requests[0]!.problems, []);
      const text = String((stub.requests[0]!.body.text as { content: string }).content);
      assert.match(text, /old-data kept from release/);
      assert.match(text, /Started in no-GPU mode and shut down again \(day 13 of 15 since it was shut down\)\./);
      assert.match(text, /New release day: .* Beijing/);
      await cli(['schedule', 'run', '--notify', 'phone']);
      assert.strictEqual(stub.requests.length, 1, 'nothing due: nothing sent');
    } finally {
      await stub.close();
    }
  });

  it('opt-in per account: off by default, refused for AutoDL Pro (no no-GPU start) and for a read-only account; off stops it', async () => {
    s.add({ platform: 'autodl-web', id: 'day13', name: 'old-data', state: 'shutdown', stoppedAt: iso(now - 12.5 * DAY) });
    assert.strictEqual((await cli(['accounts', 'keep-alive', 'autodl-web', 'off'])).code, 0);
    const list = await cli(['accounts', 'list', '--json']);
    assert.strictEqual((JSON.parse(list.stdout) as { keepAlive?: boolean }[])[0]!.keepAlive, undefined);
    const r = await runJson();
    assert.deepStrictEqual(r.json.keepAlive, []);
    assert.strictEqual(powerCalls('day13', 'power_on').length, 0);
    const pro = await cli(['accounts', 'add', 'autodl-pro', '--allow-power', '--keep-alive'], { ...env, GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro });
    assert.strictEqual(pro.code, 2);
    assert.match(pro.stderr, /no no-GPU start/);
    const ro = await cli(['accounts', 'add', 'autodl-web', '--id', 'ro', '--experimental', '--keep-alive'], { ...env, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb });
    assert.strictEqual(ro.code, 2);
    assert.match(ro.stderr, /--keep-alive needs --allow-power/);
    const on = await cli(['accounts', 'keep-alive', 'autodl-web', 'on']);
    assert.strictEqual(on.code, 0, on.stderr);
    assert.match(on.stdout, /about ¥0\.01 each time/);
  });
});
