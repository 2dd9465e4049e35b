// Waiting for a card: the backoff schedule at the real 15 s floor, which refusals are waited out,
// the wait loop on an injected clock (no real time passes), and the per-instance power-on lock
// (in one process, and across processes through the lock file).
import * as assert from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyFailure } from '../../src/core/platforms/errors';
import { MAX_CALL_INTERVAL_MS, MIN_CALL_INTERVAL_MS, nextDelayMs, refusalAdvice, waitedText, waitVerdict } from '../../src/core/platforms/gpuWait';
import type { PlatformFailure } from '../../src/core/platforms/types';
import { PlatformError } from '../../src/app/platforms/errors';
import { acquireFileLock, busyText, PowerOnLocks, powerLockKey, unlockedConnector, withPowerOnLock } from '../../src/app/platforms/powerLock';
import type { Connector } from '../../src/core/platforms/types';
import { waitForGpu, type WaitClock } from '../../src/app/platforms/waitForGpu';

/** A clock whose sleeps advance it at once, recording every pause. */
function fakeClock(): WaitClock & { t: number; pauses: number[] } {
  const c = {
    t: 1_000_000,
    pauses: [] as number[],
    now: () => c.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      c.pauses.push(ms);
      if (signal?.aborted) return;
      c.t += ms;
    },
  };
  return c;
}

const refusal = (f: Partial<PlatformFailure> & Pick<PlatformFailure, 'kind'>) => new PlatformError({ platform: 'autodl-pro', code: 'X', message: '', ...f });

/** A connector whose power-on answers from a script, one entry per call (then accepts); the clock times of the calls are kept. */
function scripted(answers: (PlatformError | 'ok')[], clock: { now(): number }) {
  const calls: number[] = [];
  return {
    calls,
    connector: {
      kind: 'autodl-pro' as const,
      powerOn: async () => {
        calls.push(clock.now());
        const a = answers.shift() ?? 'ok';
        if (a !== 'ok') throw a;
      },
    },
  };
}

describe('wait for a card: backoff schedule', () => {
  it('starts at 15 s, doubles, and stops growing at 5 minutes', () => {
    const s = [1, 2, 3, 4, 5, 6, 7, 20].map((n) => nextDelayMs(n, 'noCard', 0));
    assert.deepStrictEqual(s, [15_000, 30_000, 60_000, 120_000, 240_000, 300_000, 300_000, 300_000]);
    assert.strictEqual(MIN_CALL_INTERVAL_MS, 15_000);
    assert.strictEqual(MAX_CALL_INTERVAL_MS, 300_000);
  });

  it('after a rate-limit reply waits at least a minute and at least twice the last pause, capped', () => {
    assert.strictEqual(nextDelayMs(1, 'rateLimited', 15_000), 60_000);
    assert.strictEqual(nextDelayMs(2, 'rateLimited', 90_000), 180_000);
    assert.strictEqual(nextDelayMs(3, 'rateLimited', 290_000), 300_000);
  });

  it('jitter adds at most 10 % and never goes below the floor; a lowered floor scales the schedule', () => {
    assert.strictEqual(nextDelayMs(1, 'noCard', 0, { jitter: 1 }), 16_500);
    assert.strictEqual(nextDelayMs(6, 'noCard', 0, { jitter: 1 }), 330_000);
    for (let n = 1; n < 40; n++) assert.ok(nextDelayMs(n, 'transient', 0, { jitter: Math.random() }) >= 15_000);
    assert.deepStrictEqual([1, 2, 3].map((n) => nextDelayMs(n, 'noCard', 0, { minMs: 40, maxMs: 320 })), [40, 80, 160]);
    assert.strictEqual(nextDelayMs(1, 'noCard', 0, { minMs: 0 }), 1, 'never below 1 ms');
  });

  it('waits out no stock, no GPU on the host, rate limits and platform faults; stops at anything else', () => {
    assert.deepStrictEqual((['noStock', 'noGpuOnHost', 'rateLimited', 'server', 'network', 'timeout'] as const).map(waitVerdict), ['noCard', 'noCard', 'rateLimited', 'transient', 'transient', 'transient']);
    for (const k of ['auth', 'tokenExpired', 'insufficientBalance', 'realName', 'quota', 'notFound', 'invalidState', 'badResponse', 'notSupported', 'other'] as const) assert.strictEqual(waitVerdict(k), 'stop', k);
    assert.deepStrictEqual((['insufficientBalance', 'realName', 'tokenExpired', 'auth', 'quota', 'invalidState'] as const).map(refusalAdvice), ['topUp', 'realName', 'renewToken', 'checkKeys', 'raiseQuota', 'checkState']);
  });

  it('classifies the platforms real no-stock refusals as waited out, and a quota code as the end of the wait', () => {
    // Real: the fixtures' refusals (SOURCES.md): AutoDL InternalError 当前算力规格暂无库存, InstanceError 该主机空闲GPU不足, 阿里云 OperationDenied.NoStock, 腾讯云 ResourceInsufficient.SpecifiedInstanceType and …ZoneSoldOutForSpecifiedInstance (CVM's errors.go).
    assert.strictEqual(waitVerdict(classifyFailure('autodl-pro', 'InternalError', '当前算力规格暂无库存, 请修改配置或稍等再试').kind), 'noCard');
    assert.strictEqual(waitVerdict(classifyFailure('autodl-web', 'InstanceError', '该主机空闲GPU不足，主机GPU空闲数量：0 卡').kind), 'noCard');
    assert.strictEqual(waitVerdict(classifyFailure('aliyun-ecs', 'OperationDenied.NoStock', 'The resource is out of stock in the specified zone.', 403).kind), 'noCard');
    assert.strictEqual(waitVerdict(classifyFailure('tencent-cvm', 'ResourceInsufficient.SpecifiedInstanceType', '指定的实例类型库存不足。').kind), 'noCard');
    assert.strictEqual(waitVerdict(classifyFailure('tencent-cvm', 'ResourceInsufficient.ZoneSoldOutForSpecifiedInstance', '指定的实例类型在选择的可用区已售罄。').kind), 'noCard');
    assert.strictEqual(waitVerdict(classifyFailure('tencent-cvm', 'InvalidAccount.InsufficientBalance', '账户余额不足。').kind), 'stop');
    // Synthetic codes (no captured quota refusal is in the fixtures): the shapes the clouds' quota codes take.
    assert.strictEqual(classifyFailure('aliyun-ecs', 'QuotaExceed.PostPaidInstance', 'x', 403).kind, 'quota');
    assert.strictEqual(classifyFailure('tencent-cvm', 'LimitExceeded.InstanceQuota', 'x').kind, 'quota');
    assert.strictEqual(classifyFailure('tencent-cvm', 'RequestLimitExceeded', 'x').kind, 'rateLimited', 'a rate limit is not a quota');
  });

  it('says the time waited', () => {
    assert.deepStrictEqual([0, 45_000, 185_000, 3_725_000].map(waitedText), ['0 s', '45 s', '3 min 05 s', '1 h 02 min']);
  });
});

describe('wait for a card: the loop (injected clock)', () => {
  it('succeeds on try N after N-1 no-stock refusals, with the schedule 15, 30, 60 s between calls', async () => {
    const clock = fakeClock();
    const s = scripted([refusal({ kind: 'noStock' }), refusal({ kind: 'noStock' }), refusal({ kind: 'noGpuOnHost' })], clock);
    const tries: number[] = [];
    const r = await waitForGpu({ connector: s.connector, ref: 'r', lockKey: 'a/r', locks: new PowerOnLocks(), maxWaitMs: 3600_000, clock, random: () => 0, onTry: (t) => tries.push(t.attempt) });
    assert.deepStrictEqual(r, { kind: 'started', attempts: 4, waitedMs: 105_000 });
    assert.deepStrictEqual(s.calls.map((t, i) => t - (s.calls[i - 1] ?? t)), [0, 15_000, 30_000, 60_000]);
    assert.deepStrictEqual(tries, [1, 2, 3, 4]);
  });

  it('never two calls closer than 15 s, whatever answers come back (a fast rate-limited/transient mix)', async () => {
    const clock = fakeClock();
    const answers = Array.from({ length: 30 }, (_, i) => refusal({ kind: (['rateLimited', 'server', 'noStock', 'timeout'] as const)[i % 4]! }));
    const s = scripted(answers, clock);
    await waitForGpu({ connector: s.connector, ref: 'r', lockKey: 'a/r', locks: new PowerOnLocks(), maxWaitMs: 24 * 3600_000, clock, random: Math.random });
    for (let i = 1; i < s.calls.length; i++) assert.ok(s.calls[i]! - s.calls[i - 1]! >= 15_000);
    assert.strictEqual(s.calls.length, 31);
  });

  it('gives up when the next pause would pass the deadline, with the last refusal', async () => {
    const clock = fakeClock();
    const s = scripted(Array.from({ length: 100 }, () => refusal({ kind: 'noStock', code: 'InternalError' })), clock);
    const r = await waitForGpu({ connector: s.connector, ref: 'r', lockKey: 'a/r', locks: new PowerOnLocks(), maxWaitMs: 600_000, clock, random: () => 0 });
    assert.strictEqual(r.kind, 'gaveUp');
    // Calls at 0, 15, 45, 105, 225, 465 s; the next pause (300 s) would end at 765 s > 600 s.
    assert.deepStrictEqual(s.calls.map((t) => (t - s.calls[0]!) / 1000), [0, 15, 45, 105, 225, 465]);
    assert.ok(r.kind === 'gaveUp' && r.last.code === 'InternalError' && r.attempts === 6);
  });

  it('a refusal waiting does not mend ends it at once, with the advice', async () => {
    for (const [kind, advice] of [['insufficientBalance', 'topUp'], ['realName', 'realName'], ['quota', 'raiseQuota'], ['tokenExpired', 'renewToken']] as const) {
      const clock = fakeClock();
      const s = scripted([refusal({ kind: 'noStock' }), refusal({ kind })], clock);
      const r = await waitForGpu({ connector: s.connector, ref: 'r', lockKey: 'a/r', locks: new PowerOnLocks(), maxWaitMs: 3600_000, clock, random: () => 0 });
      assert.ok(r.kind === 'refused' && r.advice === advice && r.attempts === 2, `${kind}: ${JSON.stringify(r)}`);
      assert.strictEqual(s.calls.length, 2);
    }
  });

  it('cancel during a pause ends it without another call; cancel during a call says one was in flight', async () => {
    const clock = fakeClock();
    const ac = new AbortController();
    const s = scripted([refusal({ kind: 'noStock' }), refusal({ kind: 'noStock' })], clock);
    const sleeping: WaitClock = { now: clock.now, sleep: async (ms, sig) => (s.calls.length === 2 ? ac.abort() : clock.sleep(ms, sig)) };
    const r = await waitForGpu({ connector: s.connector, ref: 'r', lockKey: 'a/r', locks: new PowerOnLocks(), maxWaitMs: 3600_000, clock: sleeping, signal: ac.signal });
    assert.deepStrictEqual([r.kind, s.calls.length, r.kind === 'cancelled' && r.inFlight], ['cancelled', 2, false]);

    const ac2 = new AbortController();
    const c2 = fakeClock();
    const r2 = await waitForGpu({ connector: { kind: 'autodl-pro', powerOn: async () => (ac2.abort(), Promise.reject(new Error('aborted'))) }, ref: 'r', lockKey: 'a/r', locks: new PowerOnLocks(), maxWaitMs: 3600_000, clock: c2, signal: ac2.signal });
    assert.ok(r2.kind === 'cancelled' && r2.inFlight && r2.attempts === 1);
  });

  it('holds the instance lock for the whole wait: another power-on of it is busy, another instance is not', async () => {
    const locks = new PowerOnLocks();
    const key = powerLockKey('acct', 'r');
    let during: unknown;
    let other: unknown;
    const clock = fakeClock();
    const s = scripted([refusal({ kind: 'noStock' })], clock);
    const sleep: WaitClock = {
      now: clock.now,
      sleep: async (ms, sig) => {
        during = locks.tryAcquire(key, 'power-on');
        const o = locks.tryAcquire(powerLockKey('acct', 'other'), 'power-on');
        other = 'release' in o;
        if ('release' in o) o.release();
        await clock.sleep(ms, sig);
      },
    };
    const r = await waitForGpu({ connector: s.connector, ref: 'r', lockKey: key, locks, maxWaitMs: 3600_000, clock: sleep });
    assert.strictEqual(r.kind, 'started');
    assert.ok(during && 'busy' in (during as object) && (during as { busy: { what: string } }).busy.what === 'wait-for-gpu');
    assert.strictEqual(other, true);
    assert.ok('release' in locks.tryAcquire(key, 'power-on'), 'released after the wait');
    // A wait started while another power-on holds the lock sends nothing.
    const held = new PowerOnLocks();
    held.tryAcquire(key, 'power-on');
    const s2 = scripted([], clock);
    const busy = await waitForGpu({ connector: s2.connector, ref: 'r', lockKey: key, locks: held, maxWaitMs: 1000, clock });
    assert.strictEqual(busy.kind, 'busy');
    assert.strictEqual(s2.calls.length, 0);
  });
});

describe('power-on lock', () => {
  it('in one process: the second caller is told at once who holds it; release is idempotent; run() releases on a throw', async () => {
    const l = new PowerOnLocks();
    const a = l.tryAcquire('k', 'power-on', 5);
    assert.ok('release' in a);
    const b = l.tryAcquire('k', 'keep-alive');
    assert.deepStrictEqual(b, { busy: { what: 'power-on', since: 5 } });
    a.release();
    a.release();
    const c = l.tryAcquire('k', 'x');
    assert.ok('release' in c);
    c.release();
    await assert.rejects(l.run('k', 'y', async () => Promise.reject(new Error('boom'))), /boom/);
    assert.strictEqual(l.holder('k'), undefined);
    const r = await l.run('k', 'z', async () => l.run('k', 'again', async () => 1));
    assert.ok(r.ok && !r.value.ok && r.value.busy.what === 'z', JSON.stringify(r));
  });

  it('a connector with the lock: a second power-on of one instance while one is in flight is refused, another instance is not; a wait holding the lock uses the unlocked one', async () => {
    const locks = new PowerOnLocks();
    const pending: (() => void)[] = [];
    const release = () => pending.shift()!();
    const sent: string[] = [];
    const raw = { kind: 'autodl-pro', name: 'raw', powerOn: (ref: string) => (sent.push(ref), new Promise<void>((r) => pending.push(r))), get(this: { name: string }) { return Promise.resolve(this.name); } } as unknown as Connector;
    const c = withPowerOnLock(raw, 'acct', locks);
    const first = c.powerOn('r', 'gpu');
    await assert.rejects(c.powerOn('r', 'noGpu'), (e: PlatformError) => e.failure.code === 'PowerOnInFlight' && e.failure.kind === 'invalidState');
    const other = c.powerOn('r2', 'gpu');
    release();
    await first;
    release();
    await other;
    assert.deepStrictEqual(sent, ['r', 'r2']);
    assert.strictEqual(await (c.get as unknown as () => Promise<string>)(), 'raw', 'other methods keep their this');
    assert.strictEqual(unlockedConnector(c), raw);
    assert.strictEqual(unlockedConnector(raw), raw);
    // While a wait holds the lock, the locked connector refuses and the wait's own calls go through.
    const held = locks.tryAcquire(powerLockKey('acct', 'r'), 'wait-for-gpu');
    await assert.rejects(c.powerOn('r', 'gpu'), /wait-for-gpu/);
    const p = unlockedConnector(c).powerOn('r', 'gpu');
    release();
    await p;
    if ('release' in held) held.release();
  });

  it('across processes: a live holder blocks, a dead one is taken over, release removes the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpu-rent-lock-'));
    try {
      const a = acquireFileLock(dir, 'acct/r', 'power-on --wait-for-gpu', process.pid, 1_764_650_000_000);
      assert.ok('release' in a);
      // Another process (a real child) sees it held by this one.
      const probe = `const m=require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'app', 'platforms', 'powerLock.ts'))});console.log(JSON.stringify(m.acquireFileLock(${JSON.stringify(dir)},'acct/r','power-on')))`;
      const child = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', probe], { encoding: 'utf8' });
      assert.strictEqual(child.status, 0, child.stderr);
      assert.deepStrictEqual(JSON.parse(child.stdout), { busy: { pid: process.pid, what: 'power-on --wait-for-gpu', since: 1_764_650_000_000 } });
      assert.strictEqual(busyText(JSON.parse(child.stdout).busy), `already being started by power-on --wait-for-gpu (pid ${process.pid}) since 2025-12-02 12:33 Beijing`);
      a.release();
      assert.deepStrictEqual(readdirSync(dir), []);
      // A lock left by a process that is gone (pid of an exited child) is taken over.
      const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
      const file = join(dir, `power-${createHash('sha256').update('acct/r').digest('hex').slice(0, 32)}.lock`);
      writeFileSync(file, JSON.stringify({ pid: Number(gone.stdout.trim()), what: 'power-on' }));
      const b = acquireFileLock(dir, 'acct/r', 'power-on');
      assert.ok('release' in b, JSON.stringify(b));
      b.release();
      // Garbage in the file is stale, not a holder.
      writeFileSync(file, 'not json');
      const c = acquireFileLock(dir, 'acct/r', 'power-on');
      assert.ok('release' in c);
      c.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
