// Two schedule runners at once: the extension's (runDue once a minute with the panel's accounts,
// its file-backed power-on locks, only its own accounts' rules) and `gpu-rent schedule run` from
// cron, against the local platform server answering AutoDL Pro's real shapes, on one fixed
// clock. Each time of a rule happens once: one power-on request, not two or three.
import * as assert from 'node:assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeAccountFile } from '../../src/app/platforms/accountFile';
import { envAccounts, endpointsFromEnv, makeConnector } from '../../src/app/platforms/accounts';
import { PowerOnLocks, withPowerOnLock } from '../../src/app/platforms/powerLock';
import { addRule, readSchedules, runDue, type RunResult, type ScheduleAccount } from '../../src/app/schedule';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';

/** Epoch seconds of a Beijing wall-clock time. */
const bj = (s: string) => Date.parse(`${s.replace(' ', 'T')}:00+08:00`) / 1000;
const POWER_ON = '/api/v1/dev/instance/pro/power_on';

describe('two schedule runners at once: the extension’s and gpu-rent schedule run (local platform server)', function () {
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
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-runners-'));
    env = { GPU_RENT_HOME: home, HOME: home, GPU_RENT_AUTODL_API: s.url, GPU_RENT_SETTLE_INTERVAL_MS: '50' };
    s.instances.clear();
    s.requests.length = 0;
    s.faults.length = 0;
    s.add({ platform: 'autodl-pro', id: 'pro-s', name: 'train', state: 'shutdown' });
    // The CLI's account as `gpu-rent accounts add autodl-pro --allow-power` names it: the id the panel gives its first AutoDL Pro account.
    const { secret } = envAccounts({ GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro })[0]!;
    await writeAccountFile(home, [{ account: { id: 'autodl-pro', kind: 'autodl-pro', label: 'AutoDL Pro', powerActions: true }, secret }]);
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  /** A runner as the extension's schedule monitor makes it (each VS Code window has its own). */
  function extensionRunner(now: number, results: RunResult[]) {
    const { secret } = envAccounts({ GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro })[0]!;
    const locks = new PowerOnLocks({ dir: join(home, 'locks'), owner: 'VS Code' });
    const c = withPowerOnLock(makeConnector({ kind: 'autodl-pro' }, secret, endpointsFromEnv(env), { timeoutMs: 5000, now: () => now }), 'autodl-pro', locks);
    const accounts: ScheduleAccount[] = [{ id: 'autodl-pro', kind: 'autodl-pro', powerActions: true, connector: c }];
    return () => runDue({ home, now, accounts, locks, onlyTheseAccounts: true, settleMs: 10_000, intervalMs: 50, onResult: (r) => results.push(r) });
  }

  it('two extension windows and a cron run, all at 17:01: one power-on request, the rule handled once, the next runs have nothing due', async () => {
    const rule = await addRule(home, { account: 'autodl-pro', ref: 'pro-s', name: 'train', action: 'power-on', days: [1, 2, 3, 4, 5, 6, 7], minute: 17 * 60 }, bj('2026-12-04 12:00'));
    const now = bj('2026-12-04 17:01');
    const seen: RunResult[] = [];
    const [a, b, cli] = await Promise.all([extensionRunner(now, seen)(), extensionRunner(now, seen)(), runCliAsync(['schedule', 'run', '--json'], { ...env, GPU_RENT_TEST_NOW: String(now) })]);
    assert.strictEqual(s.sent('autodl-pro', POWER_ON).length, 1, 'one power-on request');
    // Whoever ran it says done; the others found the run lock held, or nothing left due.
    const cliDone = cli.code === 0 && cli.stdout.includes('"outcome": "done"');
    const extDone = seen.filter((r) => r.outcome === 'done').length;
    assert.strictEqual(extDone + (cliDone ? 1 : 0), 1, `${JSON.stringify(seen)} ${cli.stdout} ${cli.stderr}`);
    assert.ok(seen.every((r) => r.outcome === 'done'), JSON.stringify(seen));
    for (const x of [a, b]) assert.ok('busy' in x || x.results.length <= 1, JSON.stringify(x));
    const f = await readSchedules(home);
    assert.strictEqual(f.rules.find((r) => r.id === rule.id)!.handledUntil, bj('2026-12-04 17:00'));
    assert.strictEqual(f.history.filter((h) => h.rule === rule.id).length, 1, 'one history entry');
    // A minute later, both kinds of runner: nothing due.
    const later: RunResult[] = [];
    const again = await extensionRunner(now + 60, later)();
    const cron = await runCliAsync(['schedule', 'run', '--json'], { ...env, GPU_RENT_TEST_NOW: String(now + 60) });
    assert.deepStrictEqual(again, { results: [] });
    assert.strictEqual(cron.code, 0, cron.stderr);
    assert.deepStrictEqual(JSON.parse(cron.stdout).results, []);
    assert.strictEqual(s.sent('autodl-pro', POWER_ON).length, 1);
  });

  it('the extension leaves a rule of an account it does not hold for gpu-rent schedule run, which does it', async () => {
    const rule = await addRule(home, { account: 'autodl-pro', ref: 'pro-s', name: 'train', action: 'power-on', days: [1, 2, 3, 4, 5, 6, 7], minute: 17 * 60 }, bj('2026-12-04 12:00'));
    const now = bj('2026-12-04 17:01');
    // The panel holds another AutoDL account only ("autodl-pro-2"): the rule is not its to run or to mark.
    const { secret } = envAccounts({ GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro })[0]!;
    const locks = new PowerOnLocks({ dir: join(home, 'locks'), owner: 'VS Code' });
    const other: ScheduleAccount = { id: 'autodl-pro-2', kind: 'autodl-pro', powerActions: true, connector: withPowerOnLock(makeConnector({ kind: 'autodl-pro' }, secret, endpointsFromEnv(env), { timeoutMs: 5000, now: () => now }), 'autodl-pro-2', locks) };
    assert.deepStrictEqual(await runDue({ home, now, accounts: [other], locks, onlyTheseAccounts: true }), { results: [] });
    assert.strictEqual((await readSchedules(home)).rules[0]!.handledUntil, undefined, 'not marked');
    const cron = await runCliAsync(['schedule', 'run', '--json'], { ...env, GPU_RENT_TEST_NOW: String(now + 30) });
    assert.strictEqual(cron.code, 0, cron.stderr);
    assert.deepStrictEqual((JSON.parse(cron.stdout) as { results: { id: string; outcome: string }[] }).results.map((r) => [r.id, r.outcome]), [[rule.id, 'done']]);
    assert.strictEqual(s.sent('autodl-pro', POWER_ON).length, 1);
  });

  it('gpu-rent schedule run without the rule’s account leaves it for the extension (failed, tried again), which does it', async () => {
    const rule = await addRule(home, { account: 'autodl-pro-2', ref: 'pro-s', name: 'train', action: 'power-on', days: [1, 2, 3, 4, 5, 6, 7], minute: 17 * 60 }, bj('2026-12-04 12:00'));
    const now = bj('2026-12-04 17:01');
    const cron = await runCliAsync(['schedule', 'run', '--json'], { ...env, GPU_RENT_TEST_NOW: String(now) });
    assert.strictEqual(cron.code, 1);
    const x = (JSON.parse(cron.stdout) as { results: { outcome: string; retry: boolean; detail: string }[] }).results[0]!;
    assert.deepStrictEqual([x.outcome, x.retry], ['failed', true]);
    assert.match(x.detail, /no account autodl-pro-2 here/);
    assert.strictEqual((await readSchedules(home)).rules[0]!.handledUntil, undefined);
    const { secret } = envAccounts({ GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro })[0]!;
    const locks = new PowerOnLocks({ dir: join(home, 'locks'), owner: 'VS Code' });
    const mine: ScheduleAccount = { id: 'autodl-pro-2', kind: 'autodl-pro', powerActions: true, connector: withPowerOnLock(makeConnector({ kind: 'autodl-pro' }, secret, endpointsFromEnv(env), { timeoutMs: 5000, now: () => now }), 'autodl-pro-2', locks) };
    const r = await runDue({ home, now: now + 60, accounts: [mine], locks, onlyTheseAccounts: true, settleMs: 10_000, intervalMs: 50 });
    assert.ok('results' in r && r.results.length === 1 && r.results[0]!.outcome === 'done', JSON.stringify(r));
    assert.strictEqual((await readSchedules(home)).rules.find((q) => q.id === rule.id)!.handledUntil, bj('2026-12-04 17:00'));
    assert.strictEqual(s.sent('autodl-pro', POWER_ON).length, 1);
  });
});
