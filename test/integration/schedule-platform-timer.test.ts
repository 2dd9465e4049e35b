// A timer the platform keeps itself, read back and shown: `gpu-rent schedule add --on-platform`,
// `schedule list`, `gpu-rent instances`, against the local platform server answering AutoDL
// Pro's documented list row (timed_shutdown_at {Time, Valid}) and 阿里云's DescribeInstances row
// (AutoReleaseTime). No rule is armed on a platform: each says why and who keeps it instead.
import * as assert from 'node:assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';

const bj = (s: string) => String(Date.parse(`${s.replace(' ', 'T')}:00+08:00`) / 1000);
const TIMER = '2099-01-01T01:00:00+08:00';

describe('platform timers read back (built CLI, local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    s = await PlatformServer.start();
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-timer-'));
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_ALIYUN_ENDPOINT: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1' };
    s.instances.clear();
    s.requests.length = 0;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('AutoDL Pro: add --on-platform reads back the timed shutdown armed in the console, says it arms nothing and who keeps the rule; list and instances show the timer', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'running', timedShutdownAt: TIMER });
    s.add({ platform: 'autodl-pro', id: 'pro-t', name: 'other', state: 'running' });
    const at = { ...env, GPU_RENT_TEST_NOW: bj('2026-12-04 12:00') };
    const add = await runCliAsync(['schedule', 'add', 'train', '--at', 'daily 01:00', '--do', 'power-off', '--on-platform'], at);
    assert.strictEqual(add.code, 0, add.stderr);
    assert.match(add.stdout, /^added [a-z0-9]+: daily 01:00 \(Beijing\): power off train/);
    assert.match(add.stderr, /on the platform: timed shutdown 2099-01-01 01:00 Beijing is armed for train/);
    assert.match(add.stderr, /not armed on the platform: AutoDL Pro's developer API has no timed-shutdown request/);
    assert.match(add.stderr, /kept by gpu-rent's runner: VS Code while it runs \(for its account env-autodl-pro, power actions on\) and gpu-rent schedule run from cron\. While this machine sleeps nothing runs: on waking, a time passed less than 30 minutes ago is done, older ones are reported missed/);
    const plain = await runCliAsync(['schedule', 'add', 'other', '--at', 'mon-fri 17:00', '--do', 'power-on', '--on-platform'], at);
    assert.strictEqual(plain.code, 0, plain.stderr);
    assert.doesNotMatch(plain.stderr, /armed for/);
    assert.match(plain.stderr, /not armed on the platform: no platform starts an instance on a timer/);
    const list = await runCliAsync(['schedule', 'list', '--json'], at);
    assert.strictEqual(list.code, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as { ref: string; platformTimer: { action: string; atBeijing: string } | null }[];
    assert.deepStrictEqual(rows.map((r) => [r.ref, r.platformTimer && [r.platformTimer.action, r.platformTimer.atBeijing]]).sort(), [['pro-s', ['shutdown', '2099-01-01 01:00']], ['pro-t', null]]);
    const text = await runCliAsync(['schedule', 'list'], at);
    assert.match(text.stdout, /PLATFORM TIMER/);
    assert.match(text.stdout, /shutdown 2099-01-01 01:00/);
    const inst = await runCliAsync(['instances', '--json'], env);
    assert.strictEqual(inst.code, 0, inst.stderr);
    const i = (JSON.parse(inst.stdout) as { ref: string; platformTimer: unknown }[]).find((x) => x.ref === 'pro-s')!;
    assert.deepStrictEqual(i.platformTimer, { action: 'shutdown', at: Date.parse(TIMER) / 1000, atBeijing: '2099-01-01 01:00' });
    assert.strictEqual(s.sent('autodl-pro').filter((r) => r.path.includes('power_') || r.path.includes('timed')).length, 0, 'nothing armed or sent');
    // --on-platform belongs to add.
    const misuse = await runCliAsync(['schedule', 'list', '--on-platform'], at);
    assert.strictEqual(misuse.code, 2);
  });

  it('阿里云: an auto-release time is shown as a RELEASE in gpu-rent instances, and --on-platform refuses to use it for a shut-down', async () => {
    const aliyun = { ...env, GPU_RENT_AUTODL_TOKEN: '', ALIBABA_CLOUD_ACCESS_KEY_ID: s.creds.aliyunKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'ali-secret', ALIBABA_CLOUD_REGION_ID: 'cn-hangzhou' };
    s.add({ platform: 'aliyun', id: 'i-rel', name: 'gpu-box', state: 'Running', autoReleaseTime: '2098-12-31T17:00Z' });
    const inst = await runCliAsync(['instances'], aliyun);
    assert.strictEqual(inst.code, 0, inst.stderr);
    assert.match(inst.stdout.split('\n')[0]!, /REGION +RELEASED ON +PLATFORM TIMER +SSH$/);
    assert.match(inst.stdout, /i-rel .*RELEASE 2099-01-01 01:00/);
    const add = await runCliAsync(['schedule', 'add', 'gpu-box', '--at', 'daily 01:00', '--do', 'power-off', '--on-platform'], { ...aliyun, GPU_RENT_TEST_NOW: bj('2026-12-04 12:00') });
    assert.strictEqual(add.code, 0, add.stderr);
    assert.match(add.stderr, /on the platform: AUTO-RELEASE \(deletes it, disks and all\) 2099-01-01 01:00 Beijing is armed for gpu-box/);
    assert.match(add.stderr, /not armed on the platform: 阿里云's only timer is the auto-release time \(ModifyInstanceAutoReleaseTime\), which RELEASES the instance/);
    assert.strictEqual(s.sent('aliyun').filter((r) => /AutoRelease|Stop/.test(r.action)).length, 0);
  });
});
