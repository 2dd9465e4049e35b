// gpu-rent schedule add / list / remove / run: the built CLI against the local platform server,
// on a fixed clock (GPU_RENT_TEST_NOW, epoch seconds: test only, undocumented).
import * as assert from 'node:assert';
import { mkdtemp, readFile, rm, stat, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, powerLockKey } from '../../src/app/platforms/powerLock';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';

/** Epoch seconds of a Beijing wall-clock time. */
const bj = (s: string) => String(Date.parse(`${s.replace(' ', 'T')}:00+08:00`) / 1000);

interface RunJson {
  results: { id: string; action: string; outcome: string; detail: string; state: string | null; failure: { kind: string; code: string } | null; retry: boolean; missedBefore: number }[];
}

describe('gpu-rent schedule (built CLI, local platform server, fixed clock)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const at = (when: string) => ({ ...env, GPU_RENT_TEST_NOW: bj(when) });
  const run = (args: string[], e: NodeJS.ProcessEnv) => runCliAsync(['schedule', ...args], e);
  const added = async (args: string[], e: NodeJS.ProcessEnv): Promise<string> => {
    const r = await run(['add', ...args], e);
    assert.strictEqual(r.code, 0, r.stderr);
    return /^added ([a-z0-9]+):/.exec(r.stdout)![1]!;
  };
  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-sched-'));
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '100', GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb, GPU_RENT_ALLOW_POWER: '1' };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    s.balances.autodlPro = 123450;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('add checks the instance and the account, keeps it 0600; list shows the next time (Beijing) and the price it starts billing; remove', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'shutdown' });
    const friNoon = at('2026-12-04 12:00');
    const bad = await run(['add', 'train', '--at', 'mon-fri 25:00', '--do', 'power-on'], friNoon);
    assert.strictEqual(bad.code, 2);
    assert.match(bad.stderr, /--at: "25:00" is not a time of day/);
    const noGpu = await run(['add', 'train', '--at', 'daily 01:00', '--do', 'no-gpu'], friNoon);
    assert.strictEqual(noGpu.code, 1);
    assert.match(noGpu.stderr, /AutoDL Pro offers no no-GPU start through its API/);
    const ro = await run(['add', 'train', '--at', 'mon-fri 17:00', '--do', 'power-on'], { ...friNoon, GPU_RENT_ALLOW_POWER: '' });
    assert.strictEqual(ro.code, 1);
    assert.match(ro.stderr, /read-only/);
    const missing = await run(['add', 'nope', '--at', 'mon-fri 17:00', '--do', 'power-on'], friNoon);
    assert.strictEqual(missing.code, 1);
    assert.match(missing.stderr, /no instance nope/);
    const id = await added(['train', '--at', 'mon-fri 17:00', '--do', 'power-on'], friNoon);
    assert.strictEqual((await stat(join(home, 'schedules.json'))).mode & 0o777, 0o600);
    const off = await added(['pro-s', '--at', 'daily 02:00', '--do', 'power-off'], friNoon);
    const list = await run(['list', '--json'], friNoon);
    assert.strictEqual(list.code, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as { id: string; nextBeijing: string; priceFenPerHour: number | null; action: string; at: string }[];
    assert.deepStrictEqual(rows.map((r) => [r.id, r.at, r.nextBeijing]), [[id, 'mon-fri 17:00', '2026-12-04 17:00'], [off, 'daily 02:00', '2026-12-05 02:00']]);
    assert.strictEqual(rows[0]!.priceFenPerHour, 197, 'the price the platform quotes for the instance');
    const text = await run(['list'], at('2026-12-04 17:30'));
    assert.match(text.stdout, new RegExp(`${id} +train \\(env-autodl-pro/pro-s\\) +mon-fri 17:00 +power on \\(GPU\\) +2026-12-07 17:00 +starts ¥1\\.97/h`), 'after Friday 17:00 the next is Monday');
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 0, 'add and list send no power action');
    assert.strictEqual((await run(['remove', id], friNoon)).code, 0);
    assert.strictEqual((await run(['remove', id], friNoon)).code, 1);
    assert.ok(!(await readFile(join(home, 'schedules.json'), 'utf8')).includes(id));
  });

  it('run: a due power-on is sent once and followed until running; the next run has nothing due', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'shutdown' });
    const id = await added(['train', '--at', 'mon-fri 17:00', '--do', 'power-on'], at('2026-12-04 12:00'));
    const early = await run(['run'], at('2026-12-04 16:59'));
    assert.strictEqual(early.code, 0, early.stderr);
    assert.match(early.stderr, /nothing due \(2026-12-04 16:59 Beijing\)/);
    const r = await run(['run', '--json'], at('2026-12-04 17:05'));
    assert.strictEqual(r.code, 0, r.stderr + r.stdout);
    const doc = JSON.parse(r.stdout) as RunJson;
    assert.deepStrictEqual(doc.results.map((x) => [x.id, x.outcome, x.state]), [[id, 'done', 'running']]);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 1);
    const again = await run(['run'], at('2026-12-04 17:10'));
    assert.strictEqual(again.code, 0);
    assert.match(again.stderr, /nothing due/);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 1, 'never twice for one time');
    const list = JSON.parse((await run(['list', '--json'], at('2026-12-04 17:10'))).stdout) as { last: { outcome: string } | null }[];
    assert.strictEqual(list[0]!.last?.outcome, 'done');
  });

  it('the laptop slept past the window: the rule is reported missed (exit 1) and nothing is sent, then not again; inside the window it runs', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-r', name: 'night', state: 'running' });
    await added(['night', '--at', 'daily 02:00', '--do', 'power-off'], at('2026-12-04 12:00'));
    const late = await run(['run'], at('2026-12-05 02:31'));
    assert.strictEqual(late.code, 1);
    assert.match(late.stdout, /due 2026-12-05 02:00: missed: its time passed 31 min ago while nothing ran, outside the 30 min window: not run late/);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_off').length, 0);
    const after = await run(['run'], at('2026-12-05 02:36'));
    assert.strictEqual(after.code, 0);
    assert.match(after.stderr, /nothing due/);
    // Two days asleep, woken 10 minutes after the time: it runs, the one before is counted as missed.
    const wake = await run(['run'], at('2026-12-07 02:10'));
    assert.strictEqual(wake.code, 0, wake.stdout);
    assert.match(wake.stdout, /due 2026-12-07 02:00: done: shut down \(1 earlier time missed too\)/);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_off').length, 1);
    assert.strictEqual(s.instances.get('pro-r')!.state, 'shutdown');
  });

  it('a refusal is recorded with the platform’s reason (余额不足), exit 1, and not tried again', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'shutdown' });
    await added(['train', '--at', 'daily 17:00', '--do', 'power-on'], at('2026-12-04 12:00'));
    s.balances.autodlPro = 0;
    const r = await run(['run', '--json'], at('2026-12-04 17:01'));
    assert.strictEqual(r.code, 1);
    const x = (JSON.parse(r.stdout) as RunJson).results[0]!;
    assert.strictEqual(x.outcome, 'refused');
    assert.strictEqual(x.failure?.kind, 'insufficientBalance');
    assert.match(x.detail, /power-on refused: AutoDL Pro: 余额不足/);
    assert.strictEqual((await run(['run'], at('2026-12-04 17:06'))).code, 0);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 1);
  });

  it('a rate-limited read is tried again by the next run while in the window', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'shutdown' });
    await added(['train', '--at', 'daily 17:00', '--do', 'power-on'], at('2026-12-04 12:00'));
    s.fault({ platform: 'autodl-pro', error: 'rateLimited', status: 429, times: 4 });
    const r = await run(['run', '--json'], at('2026-12-04 17:01'));
    const x = (JSON.parse(r.stdout) as RunJson).results[0]!;
    assert.strictEqual(r.code, 1);
    assert.deepStrictEqual([x.outcome, x.retry], ['failed', true], x.detail);
    s.faults.length = 0;
    const again = await run(['run', '--json'], at('2026-12-04 17:06'));
    assert.strictEqual(again.code, 0, again.stdout);
    assert.strictEqual((JSON.parse(again.stdout) as RunJson).results[0]!.outcome, 'done');
  });

  it('no-GPU at night on the console token: a running instance is shut down and started in no-GPU mode; one already shut down is left off', async () => {
    s.add({ platform: 'autodl-web', id: 'w-1', name: 'console', state: 'running', startMode: 'gpu' });
    s.add({ platform: 'autodl-web', id: 'w-2', name: 'parked', state: 'shutdown' });
    await added(['console', '--at', 'daily 01:00', '--do', 'no-gpu'], at('2026-12-04 12:00'));
    await added(['parked', '--at', 'daily 01:00', '--do', 'no-gpu'], at('2026-12-04 12:00'));
    const r = await run(['run', '--json'], at('2026-12-05 01:02'));
    assert.strictEqual(r.code, 0, r.stdout + r.stderr);
    const res = (JSON.parse(r.stdout) as RunJson).results;
    assert.deepStrictEqual(res.map((x) => [x.outcome, x.state]).sort(), [['done', 'noGpu'], ['skipped', 'stopped']]);
    assert.strictEqual(s.instances.get('w-1')!.startMode, 'non_gpu');
    assert.strictEqual(s.instances.get('w-2')!.state, 'shutdown');
    const ons = s.sent('autodl-web', '/api/v1/instance/power_on');
    assert.strictEqual(ons.length, 1);
    assert.match(ons[0]!.body, /non_gpu/);
  });

  it('a power-on in flight elsewhere (a --wait-for-gpu holds the lock): busy, nothing sent; a second run at the same time does nothing', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'shutdown' });
    await added(['train', '--at', 'daily 17:00', '--do', 'power-on'], at('2026-12-04 12:00'));
    const runLock = acquireFileLock(join(home, 'locks'), 'schedule-run', 'schedule run');
    assert.ok('release' in runLock);
    const second = await run(['run'], at('2026-12-04 17:01'));
    assert.strictEqual(second.code, 1);
    assert.match(second.stderr, /another gpu-rent schedule run \(pid \d+\) is in progress: nothing done/);
    runLock.release();
    const power = acquireFileLock(join(home, 'locks'), powerLockKey('env-autodl-pro', 'pro-s'), 'power-on --wait-for-gpu');
    assert.ok('release' in power);
    try {
      const r = await run(['run', '--json'], at('2026-12-04 17:02'));
      const x = (JSON.parse(r.stdout) as RunJson).results[0]!;
      assert.strictEqual(x.outcome, 'busy');
      assert.match(x.detail, /^already being started by power-on --wait-for-gpu \(pid \d+\) since \d{4}-\d\d-\d\d \d\d:\d\d Beijing: nothing sent$/);
    } finally {
      power.release();
    }
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 0);
  });

  it('a schedules file others can write is refused; a hand-edited bad rule is named', async () => {
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'shutdown' });
    await added(['train', '--at', 'daily 17:00', '--do', 'power-on'], at('2026-12-04 12:00'));
    const file = join(home, 'schedules.json');
    await chmod(file, 0o666);
    const loose = await run(['run'], at('2026-12-04 17:01'));
    assert.notStrictEqual(loose.code, 0);
    assert.match(loose.stderr, /can be written by others.*chmod 600/);
    await chmod(file, 0o600);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"minute": 1020', '"minute": 9999'));
    const bad = await run(['list'], at('2026-12-04 17:01'));
    assert.notStrictEqual(bad.code, 0);
    assert.match(bad.stderr, /rules\.0\.minute/);
    assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length, 0);
  });
});
