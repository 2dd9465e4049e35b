// The extension and a `gpu-rent` in a terminal refuse each other's power-ons of one instance:
// the extension's lock map is file-backed (the platform monitor's PowerOnLocks, owner "VS Code",
// the lock folder gpu-rent uses) and its account entry is named as the panel names it
// ("autodl-pro"), the CLI's as the environment does ("env-autodl-pro"). Both orders, against the
// built CLI and the local platform server answering AutoDL Pro's real shapes.
import * as assert from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envAccounts, endpointsFromEnv, makeConnector } from '../../src/app/platforms/accounts';
import { PlatformError } from '../../src/app/platforms/errors';
import { PowerOnLocks, powerLockKey, unlockedConnector, withPowerOnLock } from '../../src/app/platforms/powerLock';
import { waitForGpu } from '../../src/app/platforms/waitForGpu';
import { addRule, runDue } from '../../src/app/schedule';
import { CLI } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import { until } from '../support/timing';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: NodeJS.ProcessEnv): { p: ChildProcess; done: Promise<Run>; stderr: () => string } {
  const p = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  p.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Run>((resolve, reject) => {
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : -2), stdout, stderr }));
  });
  return { p, done, stderr: () => stderr };
}


const POWER_ON = '/api/v1/dev/instance/pro/power_on';
const SINCE = String.raw`since \d{4}-\d\d-\d\d \d\d:\d\d Beijing`;

describe('one power-on lock for the extension and the CLI (built CLI, local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
  });
  after(() => s.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-sharedlock-'));
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '50', GPU_RENT_WAIT_MIN_INTERVAL_MS: '40', GPU_RENT_ALLOW_POWER: '1', GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    s.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'shutdown' });
    // No card for a long while: whoever holds the lock keeps waiting.
    s.fault({ platform: 'autodl-pro', on: POWER_ON, error: 'noStock', times: 1000 });
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  /** The extension's side, made as the platform monitor makes it: the panel's account id, its file-backed locks, its locked connector. */
  function extension() {
    const { secret } = envAccounts(env)[0]!;
    const locks = new PowerOnLocks({ dir: join(home, 'locks'), owner: 'VS Code' });
    const raw = makeConnector({ kind: 'autodl-pro' }, secret, endpointsFromEnv(env), { timeoutMs: 5000, now: () => Math.floor(Date.now() / 1000) });
    return { locks, connector: withPowerOnLock(raw, 'autodl-pro', locks), key: powerLockKey('autodl-pro', 'pro-1') };
  }

  it('Start When a Card Is Free in the extension holds it: gpu-rent power-on --wait-for-gpu and a plain power-on are refused with who holds it, and send nothing', async () => {
    const x = extension();
    const abort = new AbortController();
    const waiting = waitForGpu({ connector: unlockedConnector(x.connector), ref: 'pro-1', lockKey: x.key, locks: x.locks, maxWaitMs: 600_000, minIntervalMs: 5000, signal: abort.signal });
    await until('the extension’s first try', () => s.sent('autodl-pro', POWER_ON).length >= 1);
    const before = s.sent('autodl-pro', POWER_ON).length;
    const cliWait = await start(['power-on', 'pro-1', '--wait-for-gpu', '--wait', '600', '--yes'], env).done;
    const cliPlain = await start(['power-on', 'pro-1', '--yes'], env).done;
    assert.strictEqual(cliWait.code, 1, cliWait.stderr);
    assert.match(cliWait.stderr, new RegExp(String.raw`train is already being started by VS Code: wait-for-gpu \(pid ${process.pid}\) ${SINCE}: nothing sent`));
    assert.strictEqual(cliPlain.code, 1, cliPlain.stderr);
    assert.match(cliPlain.stderr, new RegExp(String.raw`train is already being started by VS Code: wait-for-gpu \(pid ${process.pid}\) ${SINCE}: nothing sent`));
    assert.strictEqual(s.sent('autodl-pro', POWER_ON).length, before, 'the CLI sent no power-on');
    abort.abort();
    assert.strictEqual((await waiting).kind, 'cancelled');
    assert.deepStrictEqual(await readdir(join(home, 'locks')), [], 'the extension’s lock file is gone once its wait ends');
    // Free again: the CLI's wait takes it now (it is refused for no card, not for the lock).
    const w = start(['power-on', 'pro-1', '--wait-for-gpu', '--wait', '600', '--yes'], env);
    await until('the CLI’s first try', () => s.sent('autodl-pro', POWER_ON).length > before);
    w.p.kill('SIGINT');
    assert.strictEqual((await w.done).code, 130);
  });

  it('gpu-rent power-on --wait-for-gpu in a terminal holds it: the extension’s Start When a Card Is Free, Power On and schedule runner are refused with its pid, and send nothing', async () => {
    const x = extension();
    const w = start(['power-on', 'pro-1', '--wait-for-gpu', '--wait', '600', '--yes'], { ...env, GPU_RENT_WAIT_MIN_INTERVAL_MS: '10000' });
    await until('the CLI’s first try', () => s.sent('autodl-pro', POWER_ON).length >= 1);
    const before = s.sent('autodl-pro', POWER_ON).length;
    const pid = w.p.pid!;
    // Start When a Card Is Free.
    const busy = await waitForGpu({ connector: unlockedConnector(x.connector), ref: 'pro-1', lockKey: x.key, locks: x.locks, maxWaitMs: 60_000, minIntervalMs: 40 });
    assert.strictEqual(busy.kind, 'busy');
    assert.ok(busy.kind === 'busy' && busy.holder.pid === pid && busy.holder.what === 'power-on --wait-for-gpu' && busy.holder.since > Date.now() - 60_000, JSON.stringify(busy));
    // Power On / Keep from Release / the end-of-run no-GPU start: the locked connector.
    await assert.rejects(x.connector.powerOn('pro-1', 'gpu'), (e: PlatformError) => e.failure.code === 'PowerOnInFlight' && new RegExp(String.raw`already being started by power-on --wait-for-gpu \(pid ${pid}\) ${SINCE}: nothing sent`).test(e.failure.message));
    // The extension's schedule runner, with its accounts and its locks.
    const now = Math.floor(Date.now() / 1000);
    await addRule(home, { account: 'autodl-pro', ref: 'pro-1', name: 'train', action: 'power-on', days: [1, 2, 3, 4, 5, 6, 7], minute: 0 }, now - 2 * 86400);
    const r = await runDue({ home, now, graceS: 86400, accounts: [{ id: 'autodl-pro', kind: 'autodl-pro', powerActions: true, connector: x.connector }], locks: x.locks, settleMs: 500, intervalMs: 50 });
    assert.ok('results' in r && r.results.length === 1, JSON.stringify(r));
    assert.strictEqual(r.results[0]!.outcome, 'busy', r.results[0]!.detail);
    assert.match(r.results[0]!.detail, new RegExp(String.raw`^already being started by power-on --wait-for-gpu \(pid ${pid}\) ${SINCE}: nothing sent$`));
    assert.strictEqual(s.sent('autodl-pro', POWER_ON).length, before, 'the extension sent no power-on');
    w.p.kill('SIGINT');
    assert.strictEqual((await w.done).code, 130);
    // Released by the CLI: the extension's wait takes it now.
    const abort = new AbortController();
    const mine = waitForGpu({ connector: unlockedConnector(x.connector), ref: 'pro-1', lockKey: x.key, locks: x.locks, maxWaitMs: 600_000, minIntervalMs: 5000, signal: abort.signal });
    await until('the extension’s try', () => s.sent('autodl-pro', POWER_ON).length > before);
    abort.abort();
    assert.strictEqual((await mine).kind, 'cancelled');
  });
});
