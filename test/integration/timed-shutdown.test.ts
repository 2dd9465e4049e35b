// The platform's own timed shutdown (issue 43.4): `gpu-rent shutdown-timer` on a running instance and
// `gpu-rent clone --shutdown-in` at create, the built CLI against the local platform server. The body
// is the console's (autodl-web-timed-shutdown.json `arm` / `cancel`: epoch milliseconds, null), read
// back from the list row's timed_shutdown_at; the server refuses the Python clients' string form.
import * as assert from 'node:assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import { timedShutdownBody } from '../../src/core/platforms/timedShutdown';

const TIMER = '/api/v1/instance/timed/shutdown';
const GIB = 2 ** 30;
/** Epoch seconds of a Beijing wall-clock time. */
const bj = (s: string) => Date.parse(`${s.replace(' ', 'T')}:00+08:00`) / 1000;

describe('timed shutdown on the platform (built CLI, local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const now = Math.floor(Date.now() / 1000);
  const cli = (args: string[], e: NodeJS.ProcessEnv = env) => runCliAsync(args, e);
  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-timer-'));
    env = { GPU_RENT_HOME: home, HOME: home, LANG: 'C', GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb, GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '100', GPU_RENT_TEST_NOW: String(now) };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('the body is the console bundle\'s form, key for key (the fixture), never the Python clients\' string', async () => {
    const fx = JSON.parse(await readFile(join(__dirname, '..', 'fixtures', 'platforms', 'autodl-web-timed-shutdown.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    assert.deepStrictEqual(timedShutdownBody('<uuid>', 1767227400), fx.arm);
    assert.deepStrictEqual(timedShutdownBody('<uuid>', null), fx.cancel);
    assert.strictEqual(bj('2026-01-01 08:30'), 1767227400, 'the fixture\'s number is the Python form\'s minute (Beijing)');
  });

  it('on a running instance: --in 3h previews and sends nothing; --yes arms it in milliseconds and reads it back; --cancel sends null', async () => {
    s.add({ platform: 'autodl-web', id: 'live', name: 'training', state: 'running' });
    const pre = await cli(['shutdown-timer', 'training', '--in', '3h']);
    assert.strictEqual(pre.code, 2, pre.stderr);
    assert.match(pre.stderr, /arm a timed shutdown of training .* at .* Beijing\. Nothing sent; add --yes/);
    assert.strictEqual(s.sent('autodl-web', TIMER).length, 0);
    const r = await cli(['shutdown-timer', 'training', '--in', '3h', '--yes', '--json']);
    assert.strictEqual(r.code, 0, r.stderr);
    const sent = s.sent('autodl-web', TIMER);
    assert.strictEqual(sent.length, 1);
    const body = JSON.parse(sent[0]!.body) as { instance_uuid: string; shutdown_at: number };
    assert.deepStrictEqual(Object.keys(body).sort(), ['instance_uuid', 'shutdown_at']);
    assert.strictEqual(body.instance_uuid, 'live');
    assert.strictEqual(body.shutdown_at, Math.floor((now + 3 * 3600) / 60) * 60 * 1000, 'epoch milliseconds, whole minutes');
    const out = JSON.parse(r.stdout) as { outcome: string; readBack: string; atBeijing: string };
    assert.strictEqual(out.outcome, 'armed');
    assert.strictEqual(out.readBack, out.atBeijing, 'the list row names the same minute');
    // gpu-rent instances shows it from the row (the timer the platform keeps).
    const list = await cli(['instances', '--json']);
    assert.match(list.stdout, /"shutdown"/);
    const cancel = await cli(['shutdown-timer', 'live', '--cancel', '--yes']);
    assert.strictEqual(cancel.code, 0, cancel.stderr);
    assert.strictEqual((JSON.parse(s.sent('autodl-web', TIMER)[1]!.body) as { shutdown_at: unknown }).shutdown_at, null);
    assert.match(cancel.stderr, /timed shutdown of training cancelled \(read back: none armed\)/);
    assert.strictEqual(s.instances.get('live')!.timedShutdownAt, undefined);
  });

  it('--at a Beijing minute; a time in the past, too far ahead, an AutoDL Pro instance or a read-only account: nothing sent', async () => {
    s.add({ platform: 'autodl-web', id: 'live', name: 'training', state: 'running' });
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'pro-box', state: 'running' });
    const at = new Date((now + 86400) * 1000 + 8 * 3600_000).toISOString().slice(0, 16).replace('T', ' ');
    const ok = await cli(['shutdown-timer', 'live', '--at', at, '--yes']);
    assert.strictEqual(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, new RegExp(`armed for ${at} Beijing \\(read back from the platform\\)`));
    const n = s.sent('autodl-web', TIMER).length;
    const past = await cli(['shutdown-timer', 'live', '--at', '2020-01-01 00:00', '--yes']);
    assert.strictEqual(past.code, 1);
    assert.match(past.stderr, /not at least a minute from now: nothing sent/);
    const far = await cli(['shutdown-timer', 'live', '--in', '800h', '--yes']);
    assert.strictEqual(far.code, 1);
    assert.match(far.stderr, /more than 30 days ahead/);
    const pro = await cli(['shutdown-timer', 'pro-box', '--in', '1h', '--yes']);
    assert.strictEqual(pro.code, 1);
    assert.match(pro.stderr, /AutoDL Pro has no timed-shutdown request in its API/);
    const ro = await cli(['shutdown-timer', 'live', '--in', '1h', '--yes'], { ...env, GPU_RENT_ALLOW_POWER: '' });
    assert.strictEqual(ro.code, 1);
    assert.match(ro.stderr, /read-only/);
    assert.strictEqual(s.sent('autodl-web', TIMER).length, n);
    const bad = await cli(['shutdown-timer', 'live', '--at', '2026-02-31 01:00']);
    assert.strictEqual(bad.code, 2);
  });

  it('a platform that does not show the timer afterwards is said loudly (exit 1), not taken as armed', async () => {
    s.add({ platform: 'autodl-web', id: 'live', name: 'training', state: 'running' });
    // The platform accepts the request but its row names no timer (a request it did not understand).
    s.fault({ platform: 'autodl-web', on: TIMER, error: 'success' });
    const r = await cli(['shutdown-timer', 'live', '--in', '2h', '--yes']);
    assert.strictEqual(r.code, 1);
    assert.match(r.stderr, /the platform does not show it: it may NOT be armed/);
  });

  it('at create: clone --shutdown-in arms the clone\'s timer once it runs', async () => {
    s.add({ platform: 'autodl-web', id: 'w-1', name: 'train', state: 'shutdown', noFreeGpu: true, gpuName: 'RTX 4090', machineId: 'eaf141be95', regionSign: 'west-B', gpus: 1, dataDiskBytes: 50 * GIB });
    s.machines = [{ machine_id: 'm-dear', machine_alias: '101机', gpu_idle_num: 3, gpu_order_num: 3, payg_price: 3000 }];
    const bad = await cli(['clone', 'w-1', '--machine', 'm-dear', '--shutdown-in', 'soon', '--yes']);
    assert.strictEqual(bad.code, 2, 'a bad duration is refused before anything is sent');
    assert.strictEqual(s.sent('autodl-web', '/api/v1/order/instance/clone/payg').length, 0);
    const r = await cli(['clone', 'w-1', '--machine', 'm-dear', '--shutdown-in', '2h', '--yes', '--json', '--no-pin']);
    assert.strictEqual(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { ref: string; shutdownTimer: { ok: boolean } };
    assert.strictEqual(out.shutdownTimer.ok, true);
    const body = JSON.parse(s.sent('autodl-web', TIMER)[0]!.body) as { instance_uuid: string; shutdown_at: number };
    assert.strictEqual(body.instance_uuid, out.ref);
    assert.ok(Math.abs(body.shutdown_at / 1000 - (Date.now() / 1000 + 7200)) < 120, 'two hours after the clone runs');
  });
});
