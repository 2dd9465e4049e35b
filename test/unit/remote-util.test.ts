// The remote layer's one sleep, backoff, semaphore and its AbortSignal deadlines.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ChannelBudget } from '../../src/remote/channel-budget';
import { RemoteError } from '../../src/remote/errors';
import { backoffDelay } from '../../src/remote/util/backoff';
import { isDeadlineReason, operationSignal, PausableDeadline, underSignal, withinMs } from '../../src/remote/util/deadline';
import { Semaphore } from '../../src/remote/util/semaphore';
import { sleep } from '../../src/remote/util/sleep';

describe('remote util', () => {
  it('sleep resolves true after the time, false at once when aborted', async () => {
    assert.equal(await sleep(5), true);
    const c = new AbortController();
    const t0 = Date.now();
    const p = sleep(10_000, c.signal);
    setTimeout(() => c.abort(), 10);
    assert.equal(await p, false);
    assert.ok(Date.now() - t0 < 2000);
    assert.equal(await sleep(10_000, AbortSignal.abort()), false);
  });

  it('backoff stays within half and all of the capped doubling', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 2000 }), fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, base, max, r) => {
        const d = backoffDelay(attempt, base, max, () => r);
        const ceiling = Math.min(max, base * 2 ** Math.min(Math.max(0, attempt), 30));
        assert.ok(d >= Math.floor(ceiling / 2) && d <= Math.ceil(ceiling), `${d} vs ${ceiling}`);
      }),
    );
  });

  it('semaphore: FIFO, never more than the limit out, a lowered limit holds new ones back', async () => {
    const s = new Semaphore(2);
    const order: number[] = [];
    const a = await s.acquire();
    const b = await s.acquire();
    const waits = [1, 2, 3].map((n) => s.acquire().then((rel) => (order.push(n), rel)));
    assert.equal(s.inUse, 2);
    assert.equal(s.waiting, 3);
    s.limit = 1;
    a();
    await sleep(5);
    assert.deepEqual(order, []); // 1 out, limit 1: nobody new
    b();
    const r1 = await waits[0]!;
    assert.deepEqual(order, [1]);
    r1();
    r1(); // a second call does nothing
    const r2 = await waits[1]!;
    assert.equal(s.inUse, 1);
    r2();
    (await waits[2]!)();
    assert.equal(s.inUse, 0);
  });

  it('semaphore: a waiter leaves the queue on abort with the signal reason', async () => {
    const s = new Semaphore(1);
    const held = await s.acquire();
    const err = await s.acquire(AbortSignal.timeout(20)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isDeadlineReason(err));
    assert.equal(s.waiting, 0);
    held();
    assert.equal(s.inUse, 0);
    s.failWaiting(new Error('x'));
  });

  it('the channel budget turns a deadline into a timeout naming the budget, and a cancel into aborted', async () => {
    const b = new ChannelBudget(1);
    const held = await b.acquire();
    const t = await b.acquire(operationSignal(20)).catch((e: unknown) => e);
    assert.ok(t instanceof RemoteError && t.code === 'timeout' && /free SSH channel/.test(t.message));
    const c = new AbortController();
    const p = b.acquire(c.signal).catch((e: unknown) => e);
    c.abort();
    const a = await p;
    assert.ok(a instanceof RemoteError && a.code === 'aborted');
    const later = b.acquire().catch((e: unknown) => e);
    b.close();
    assert.ok((await later) instanceof RemoteError);
    held();
    const closeOpen = b.opened();
    assert.equal(b.open, 1);
    assert.equal(b.shrinkAfterRefusal(), 1);
    closeOpen();
    assert.equal(b.open, 0);
  });

  it('operationSignal joins a deadline and a cancel, and says which fired', async () => {
    assert.equal(operationSignal(undefined), undefined);
    assert.equal(operationSignal(Infinity), undefined);
    const s = operationSignal(20)!;
    await new Promise((r) => s.addEventListener('abort', r));
    assert.ok(isDeadlineReason(s.reason));
    const c = new AbortController();
    const joined = operationSignal(60_000, c.signal)!;
    c.abort();
    assert.equal(joined.aborted, true);
    assert.equal(isDeadlineReason(joined.reason), false);
  });

  it('underSignal rejects through onAbort and hands a late value to late()', async () => {
    let late: string | undefined;
    let finish: ((e: Error | null, v?: string) => void) | undefined;
    const p = underSignal<string>(
      AbortSignal.timeout(10),
      (r) => new Error(isDeadlineReason(r) ? 'deadline' : 'cancel'),
      (done) => (finish = done),
      (v) => (late = v),
    );
    await assert.rejects(p, /deadline/);
    finish!(null, 'channel');
    assert.equal(late, 'channel');
    assert.equal(await underSignal<number>(undefined, () => new Error('no'), (done) => done(null, 7)), 7);
  });

  it('a pausable deadline does not run while paused', async () => {
    const d = new PausableDeadline(60);
    d.pause();
    await sleep(120);
    assert.equal(d.signal.aborted, false);
    d.resume();
    await new Promise((r) => d.signal.addEventListener('abort', r));
    assert.ok(isDeadlineReason(d.signal.reason));
    const cleared = new PausableDeadline(10);
    cleared.clear();
    await sleep(30);
    assert.equal(cleared.signal.aborted, false);
  });

  it('withinMs: the value in time; undefined (and onLate once) when late, aborted or rejected', async () => {
    let late = 0;
    assert.equal(await withinMs(Promise.resolve(7), 1000, undefined, () => late++), 7);
    assert.equal(await withinMs(new Promise<number>((r) => setTimeout(r, 200, 7)), 20, undefined, () => late++), undefined);
    assert.equal(late, 1);
    const ac = new AbortController();
    const pending = withinMs(new Promise<number>(() => undefined), 10_000, ac.signal, () => late++);
    ac.abort();
    assert.equal(await pending, undefined);
    assert.equal(late, 2);
    assert.equal(await withinMs(Promise.reject(new Error('x')), 1000, undefined, () => late++), undefined);
    assert.equal(late, 2, 'a rejection is not late');
  });
});
