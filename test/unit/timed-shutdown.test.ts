// The AutoDL console's timed shutdown (issue 43.4), pure: the body, Beijing minutes, bounds, the read-back.
import * as assert from 'node:assert';
import { parseBeijingMinute, readBackVerdict, timedShutdownBody, timerProblem } from '../../src/core/platforms/timedShutdown';

describe('timed shutdown: body, Beijing time, bounds, read-back', () => {
  it('epoch milliseconds at a whole minute; null cancels', () => {
    assert.deepStrictEqual(timedShutdownBody('u', 1767227459), { instance_uuid: 'u', shutdown_at: 1767227400000 });
    assert.deepStrictEqual(timedShutdownBody('u', null), { instance_uuid: 'u', shutdown_at: null });
  });
  it('a Beijing "YYYY-MM-DD HH:MM" whatever the machine\'s zone; impossible dates refused, not rolled over', () => {
    assert.strictEqual(parseBeijingMinute('2026-01-01 08:30'), 1767227400);
    assert.strictEqual(parseBeijingMinute('2026-01-01T08:30'), 1767227400);
    for (const bad of ['2026-02-31 01:00', '2026-13-01 00:00', '2026-01-01 24:00', '2026-01-01', '1767227400', '2026-01-01 08:30:00']) assert.strictEqual(parseBeijingMinute(bad), undefined, bad);
  });
  it('at least a minute ahead, at most 30 days', () => {
    const now = 1_800_000_000;
    assert.strictEqual(timerProblem(now + 30, now), 'past');
    assert.strictEqual(timerProblem(now - 3600, now), 'past');
    assert.strictEqual(timerProblem(now + 3600, now), undefined);
    assert.strictEqual(timerProblem(now + 31 * 86400, now), 'tooFar');
  });
  it('the read-back must name the minute asked; a cancel must leave none', () => {
    assert.strictEqual(readBackVerdict(1767227459, 1767227400), 'confirmed');
    assert.strictEqual(readBackVerdict(1767227400, undefined), 'notShown');
    assert.strictEqual(readBackVerdict(1767227400, 1767227400 - 8 * 3600), 'differs', 'read as UTC wall time: 8 hours off');
    assert.strictEqual(readBackVerdict(null, undefined), 'confirmed');
    assert.strictEqual(readBackVerdict(null, 1767227400), 'differs');
  });
});
