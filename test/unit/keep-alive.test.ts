// When a keep-alive is due, by the platform's clock (issue 43.3), and what it costs: pure.
import * as assert from 'node:assert';
import { keepAliveCostFen, keepAliveSupport, keepAliveVerdict, noGpuRateFen } from '../../src/core/platforms/keepAlive';

const DAY = 86400;
const now = 1_800_000_000;

describe('keep-alive verdict (platform clock) and cost', () => {
  it('day 13 of 15 is due, day 12 and day 5 are not; counted from stopped_at, or back from the console release_at', () => {
    const v13 = keepAliveVerdict({ state: 'stopped', stoppedAt: now - 12.5 * DAY, releaseAt: now + 2.5 * DAY }, now);
    assert.deepStrictEqual(v13, { kind: 'due', day: 13, days: 15, releaseAt: now + 2.5 * DAY });
    const v12 = keepAliveVerdict({ state: 'stopped', stoppedAt: now - 11.5 * DAY, releaseAt: now + 3.5 * DAY }, now);
    assert.strictEqual(v12.kind, 'notYet');
    assert.strictEqual(v12.kind === 'notYet' && v12.dueAt, now + 0.5 * DAY);
    const v5 = keepAliveVerdict({ state: 'stopped', releaseAt: now + 10.5 * DAY }, now);
    assert.deepStrictEqual(v5.kind === 'notYet' && [v5.day, v5.days], [5, 15]);
    // Past its release day but still listed: still worth a start.
    assert.strictEqual(keepAliveVerdict({ state: 'stopped', releaseAt: now - 60 }, now).kind, 'due');
  });

  it('a running or changing instance is not on the clock; a stopped one without any platform time is not guessed', () => {
    for (const state of ['running', 'noGpu', 'starting', 'stopping', 'unknown'] as const) assert.strictEqual(keepAliveVerdict({ state, stoppedAt: now - 14 * DAY, releaseAt: now + DAY }, now).kind, 'notStopped');
    assert.strictEqual(keepAliveVerdict({ state: 'stopped' }, now).kind, 'noClock');
  });

  it('opt-in only where the API starts without GPU on a release clock: AutoDL console yes, Pro no, the clouds no clock', () => {
    assert.strictEqual(keepAliveSupport('autodl-web'), 'ok');
    assert.strictEqual(keepAliveSupport('autodl-pro'), 'noNoGpuStart');
    assert.strictEqual(keepAliveSupport('aliyun-ecs'), 'noClock');
    assert.strictEqual(keepAliveSupport('tencent-cvm'), 'noClock');
  });

  it('minutes of ¥0.1/h: 5 minutes about ¥0.01, rounded up to a whole fen', () => {
    assert.strictEqual(noGpuRateFen('autodl-web'), 10);
    assert.strictEqual(keepAliveCostFen(10), 1);
    assert.strictEqual(keepAliveCostFen(10, 40), 1);
    assert.strictEqual(keepAliveCostFen(10, 3600), 10);
    assert.strictEqual(keepAliveCostFen(0), 0);
  });
});
