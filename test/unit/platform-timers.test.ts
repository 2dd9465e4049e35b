// Timers the platform keeps itself (issue 20.4): AutoDL's timed shutdown (`timed_shutdown_at`,
// `{Time, Valid}` on the documented Pro list row) and 阿里云's AutoReleaseTime (DescribeInstances,
// UTC "yyyy-MM-ddTHH:mmZ" as the fixture row's other times), read into `platformTimer` and kept
// in the panel's observation; and why no schedule rule is armed on a platform. The rows are the
// documented ones (SOURCES.md); a timer's value is set on them (the documented row's is
// `Valid: false`: none armed).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { aliyunInstance, aliyunUtc } from '../../src/core/platforms/aliyun';
import { autodlInstance } from '../../src/core/platforms/autodl';
import { noPlatformTimer } from '../../src/core/schedule';
import { recordObservation, type Observation } from '../../src/extension/monitors/platformApply';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures/platforms', name), 'utf8')) as Record<string, unknown>;

function documentedProRow(): Record<string, unknown> {
  const docs = fixture('autodl-pro-doc-examples.json') as { list: { response: { data: { list: Record<string, unknown>[] } } } };
  return structuredClone(docs.list.response.data.list[0]!);
}

describe('platform timers: AutoDL timed shutdown and 阿里云 auto-release, read back', () => {
  it('the documented Pro row (timed_shutdown_at Valid: false) has no timer; one armed in the console is read on the Beijing clock', () => {
    const row = documentedProRow();
    assert.deepStrictEqual(row.timed_shutdown_at, { Time: '0001-01-01T00:00:00Z', Valid: false });
    assert.strictEqual(autodlInstance(row, 0)?.platformTimer, undefined);
    row.timed_shutdown_at = { Time: '2026-12-05T01:00:00+08:00', Valid: true };
    assert.deepStrictEqual(autodlInstance(row, 0)?.platformTimer, { action: 'shutdown', at: Date.parse('2026-12-05T01:00:00+08:00') / 1000 });
    // Valid: true with year 1, a string that is not a time, a huge string: no timer.
    for (const bad of [{ Time: '0001-01-01T00:00:00Z', Valid: true }, { Time: 'tomorrow', Valid: true }, { Time: '2'.repeat(100), Valid: true }, 'x']) {
      row.timed_shutdown_at = bad;
      assert.strictEqual(autodlInstance(row, 0)?.platformTimer, undefined, JSON.stringify(bad));
    }
  });

  it('阿里云 AutoReleaseTime (UTC) is a RELEASE timer; the fixture row without one, or "", has none', () => {
    const row = fixture('aliyun-instance.json');
    assert.strictEqual(aliyunInstance(row)?.platformTimer, undefined);
    assert.strictEqual(aliyunInstance({ ...row, AutoReleaseTime: '' })?.platformTimer, undefined);
    assert.deepStrictEqual(aliyunInstance({ ...row, AutoReleaseTime: '2026-12-05T17:00Z' })?.platformTimer, { action: 'release', at: Date.parse('2026-12-05T17:00:00Z') / 1000 });
    // The SDK's request form, with seconds; the fixture's ExpiredTime form, without.
    assert.strictEqual(aliyunUtc('2018-01-01T01:02:03Z'), Date.parse('2018-01-01T01:02:03Z') / 1000);
    assert.strictEqual(aliyunUtc(row.ExpiredTime), Date.parse('2099-12-31T15:59:00Z') / 1000);
    for (const bad of ['2026-12-05 17:00', '2026-13-05T17:00Z', '2026-12-05T17:00+08:00', 42, null]) assert.strictEqual(aliyunUtc(bad), undefined, String(bad));
  });

  it('the panel keeps the timer in its observation (the tree row shows it), and drops it when the platform no longer sends one', () => {
    const obs = new Map<string, Observation>();
    const row = documentedProRow();
    row.timed_shutdown_at = { Time: '2026-12-05T01:00:00+08:00', Valid: true };
    recordObservation(obs, 'i1', 'autodl-pro', autodlInstance(row, 0)!, 100);
    assert.deepStrictEqual(obs.get('i1')?.platformTimer, { action: 'shutdown', at: Date.parse('2026-12-05T01:00:00+08:00') / 1000 });
    row.timed_shutdown_at = { Time: '0001-01-01T00:00:00Z', Valid: false };
    recordObservation(obs, 'i1', 'autodl-pro', autodlInstance(row, 0)!, 200);
    assert.strictEqual(obs.get('i1')?.platformTimer, undefined);
  });

  it('no rule is armed on a platform, each for its real reason (a start has no timer; the clouds’ timers destroy the instance)', () => {
    assert.strictEqual(noPlatformTimer('autodl-pro', 'power-on'), 'noTimedStart');
    assert.strictEqual(noPlatformTimer('autodl-pro', 'power-off'), 'proNoTimerApi');
    assert.strictEqual(noPlatformTimer('autodl-web', 'no-gpu'), 'oneOffTimer');
    assert.strictEqual(noPlatformTimer('aliyun-ecs', 'power-off'), 'releaseOnly');
    assert.strictEqual(noPlatformTimer('tencent-cvm', 'power-off'), 'terminateOnly');
  });
});
