// The one bounded worker pool (remote/util/limit.ts): results in order, never more than the
// limit at once, no new item after a failure, the failure thrown once the ones in flight end.
import assert from 'node:assert/strict';
import { forEachLimited, mapLimited } from '../../src/remote/util/limit';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('mapLimited', () => {
  it('keeps item order and at most `limit` running at once', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimited([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await tick(n * 3);
      running--;
      return n * 10;
    });
    assert.deepEqual(out, [50, 10, 40, 20, 30, 0, 60]);
    assert.equal(most, 3);
    assert.deepEqual(await mapLimited([], 4, async () => 1), []);
    assert.deepEqual(await mapLimited([1, 2], 0, async (n) => n), [1, 2], 'a limit below 1 still runs one at a time');
  });

  it('after the first failure starts nothing new, lets the ones in flight finish, then throws that failure', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    await assert.rejects(
      mapLimited([0, 1, 2, 3, 4, 5], 2, async (n) => {
        started.push(n);
        if (n === 1) throw new Error('one failed');
        await tick(20);
        finished.push(n);
        return n;
      }),
      /one failed/,
    );
    assert.deepEqual(started, [0, 1], 'nothing starts after the failure');
    assert.deepEqual(finished, [0], 'the item in flight finished before the failure was thrown');
  });
});

describe('forEachLimited', () => {
  it('asks `stop` before each start: once it says so nothing new starts, and it says how many started', async () => {
    const started: number[] = [];
    let stopNow = false;
    const { started: n } = await forEachLimited(
      [0, 1, 2, 3, 4, 5, 6, 7],
      2,
      async (item, index) => {
        assert.equal(item, index);
        started.push(item);
        await tick(5);
        if (item === 2) stopNow = true;
      },
      () => stopNow,
    );
    // 0 and 1 start; 2 and 3 start as they end; 2 sets stop, so only the slot freed by 3 could start more: none.
    assert.deepEqual(started, [0, 1, 2, 3]);
    assert.equal(n, 4);
    assert.deepEqual(await forEachLimited([1, 2, 3], 8, async () => undefined), { started: 3 });
    assert.deepEqual(await forEachLimited([1, 2, 3], 8, async () => undefined, () => true), { started: 0 });
  });

  it('at most `limit` at once, and a failure is thrown only after the ones in flight end', async () => {
    let running = 0;
    let most = 0;
    const finished: number[] = [];
    await assert.rejects(
      forEachLimited([10, 10, 0, 10], 3, async (ms) => {
        running++;
        most = Math.max(most, running);
        if (ms === 0) {
          running--;
          throw new Error('zero');
        }
        await tick(ms);
        finished.push(ms);
        running--;
      }),
      /zero/,
    );
    assert.equal(most, 3);
    assert.deepEqual(finished, [10, 10], 'both in flight finished; the fourth never started');
  });
});
