// The tests' one polling loop (test/support/timing.ts): until and untilValue say what they
// waited for, and what they last saw, when the time runs out.
import { strict as assert } from 'node:assert';
import { until, untilValue } from '../support/timing';

describe('test timing helpers', () => {
  it('until resolves once ok holds and names what it waited for, with the detail, when it does not', async () => {
    let n = 0;
    await until('three polls', () => ++n >= 3, 1000, 1);
    assert.equal(n, 3);
    await assert.rejects(until('never', () => false, 30, 5, () => 'last seen: nothing'), { message: 'timed out waiting for never: last seen: nothing' });
    await assert.rejects(until('never', () => false, 30, 5), { message: 'timed out waiting for never' });
  });

  it('untilValue returns the value that passed, reads at once, and shows the last value on a time-out', async () => {
    let reads = 0;
    const v = await untilValue('a count of 2', async () => ({ count: ++reads }), (x) => x.count === 2, { ms: 1000, everyMs: 1 });
    assert.deepEqual(v, { count: 2 });
    assert.equal(reads, 2);
    await assert.rejects(untilValue('done', () => ({ state: 'running' }), (x) => x.state === 'done', { ms: 30, everyMs: 5 }), { message: 'timed out waiting for done: {"state":"running"}' });
    await assert.rejects(untilValue('done', () => 'running', () => false, { ms: 30, everyMs: 5, show: (s) => `it is ${s}` }), { message: 'timed out waiting for done: it is running' });
  });
});
