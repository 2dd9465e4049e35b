// The platform's clock for AutoDL's 15-day release (issue 18.3): an instance imported after 13
// days shut down is warned at once, by the platform's stopped_at / release_at, not 12 days after
// gpu-rent first saw it stopped. Rows are the documented Pro list row (SOURCES.md) with its
// status and stopped_at set as a shut-down instance's; they go through the real parser and the
// real store.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinCatalog } from '../../src/core/catalog';
import { factsFor } from '../../src/core/guards/facts';
import { platformReleaseAt, platformReleaseWatch, releaseDay, RELEASE_SOON_DAYS } from '../../src/core/platforms/clock';
import { autodlInstance } from '../../src/core/platforms/autodl';
import type { PlatformInstance } from '../../src/core/platforms/types';
import { releaseNotices } from '../../src/extension/guardDecisions';
import { applyPlatformList, observedReleaseWatch, recordObservation, type ApplyDeps, type Observation } from '../../src/extension/monitors/platformApply';
import { InstanceStore } from '../../src/extension/store';
import { MemoryMemento, MemorySecrets } from '../support/memory-store';

const DAY = 86400;
const H = 3600;


const catalog = builtinCatalog();
const autodl = factsFor('autodl');
const factsOf = (p: string) => factsFor(p);

const docs = JSON.parse(readFileSync(join(__dirname, '../fixtures/platforms/autodl-pro-doc-examples.json'), 'utf8')) as Record<string, unknown>;
/** The documented Pro list row (the first `data.list[]` of the examples). */
function documentedRow(): Record<string, unknown> {
  const found: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(walk);
    const o = v as Record<string, unknown>;
    if (typeof o.uuid === 'string' && 'stopped_at' in o && 'gpu_spec_uuid' in o) found.push(o);
    Object.values(o).forEach(walk);
  };
  walk(docs);
  assert.ok(found.length, 'the documented Pro list row');
  return structuredClone(found[0]!);
}

/** Beijing "2026-05-01T12:00:00+08:00" of an epoch. */
function iso(t: number): string {
  return new Date((t + 8 * H) * 1000).toISOString().slice(0, 19) + '+08:00';
}

/** The documented row as a shut-down instance, stopped at `stoppedAt` by the platform's clock. */
function shutDownRow(stoppedAt: number, uuid = 'pro-76576c61fdf1'): PlatformInstance {
  const row = { ...documentedRow(), uuid, status: 'shutdown', stopped_at: { Time: iso(stoppedAt), Valid: true } };
  const p = autodlInstance(row, stoppedAt);
  assert.ok(p);
  return p;
}

function setup(now: () => number) {
  const store = new InstanceStore(new MemoryMemento(), new MemorySecrets(), now);
  const observations = new Map<string, Observation>();
  const d: ApplyDeps = { store, now, catalog: () => catalog, log: { info: () => undefined }, invalidate: () => undefined, observations };
  return { store, observations, d };
}

const noLogin = { sshLogin: async () => undefined };
const NOW = 1_780_000_000;

describe('the platform clock for the 15-day release', () => {
  it('reads stopped_at from the documented Pro row and counts 15 days from it', () => {
    const stopped = NOW - 13 * DAY;
    const p = shutDownRow(stopped);
    assert.strictEqual(p.state, 'stopped');
    assert.strictEqual(p.stoppedAt, stopped);
    assert.strictEqual(p.releaseAt, stopped + 15 * DAY);
    assert.strictEqual(platformReleaseAt(autodl, p), stopped + 15 * DAY);
  });

  it('warns at once for an instance imported after 13 days shut down (the stretch seen here is minutes old)', async () => {
    const clock = { t: NOW };
    const { store, observations, d } = setup(() => clock.t);
    const stopped = NOW - 13 * DAY;
    await applyPlatformList(d, { id: 'pro', kind: 'autodl-pro' as const }, noLogin, [shutDownRow(stopped)]);
    const [inst] = store.list();
    assert.ok(inst?.platformRef, 'imported and linked');
    clock.t = NOW + 60;
    // By the stretch recorded here it is day 1: no warning (what happened before this fix).
    assert.deepEqual(releaseNotices(store.list(), factsOf, clock.t, {}).notices, []);
    // By the platform's clock it is day 14 of 15.
    const r = releaseNotices(store.list(), factsOf, clock.t, {}, (i, f) => observedReleaseWatch(observations, i, f, clock.t));
    assert.strictEqual(r.notices.length, 1);
    const w = r.notices[0]!.watch;
    assert.strictEqual(w.kind, 'releaseSoon');
    if (w.kind !== 'releaseSoon') return;
    assert.strictEqual(w.releaseAt, stopped + 15 * DAY);
    assert.strictEqual(w.stoppedSince, stopped);
    assert.strictEqual(w.dayNumber, 14);
    assert.strictEqual(w.secondsLeft, 2 * DAY - 60);
    // Once a Beijing day: not again an hour later, again the next day.
    assert.deepEqual(releaseNotices(store.list(), factsOf, clock.t + H, r.memo, (i, f) => observedReleaseWatch(observations, i, f, clock.t + H)).notices, []);
    assert.strictEqual(releaseNotices(store.list(), factsOf, clock.t + DAY, r.memo, (i, f) => observedReleaseWatch(observations, i, f, clock.t + DAY)).notices.length, 1);
  });

  it('stays quiet before the warning days and says "probably released" past the day', async () => {
    const { store, observations, d } = setup(() => NOW);
    await applyPlatformList(d, { id: 'pro', kind: 'autodl-pro' as const }, noLogin, [shutDownRow(NOW - 5 * DAY, 'pro-a'), shutDownRow(NOW - 16 * DAY, 'pro-b')]);
    const byRef = new Map(store.list().map((i) => [i.platformRef!.ref, i]));
    const a = platformReleaseWatch(autodl, observations.get(byRef.get('pro-a')!.id)!, NOW);
    assert.strictEqual(a?.kind, 'counting');
    const b = observedReleaseWatch(observations, byRef.get('pro-b')!, autodl, NOW);
    assert.strictEqual(b?.kind, 'probablyReleased');
    const notices = releaseNotices(store.list(), factsOf, NOW, {}, (i, f) => observedReleaseWatch(observations, i, f, NOW)).notices;
    assert.deepEqual(notices.map((n) => n.watch.kind), ['probablyReleased']);
  });

  it('takes the console row’s release_at as the day, over stopped_at + 15', () => {
    const stopped = NOW - 2 * DAY;
    const releaseAt = NOW + 2 * DAY;
    const w = platformReleaseWatch(autodl, { state: 'stopped', stoppedAt: stopped, releaseAt }, NOW);
    assert.strictEqual(w?.kind, 'releaseSoon');
    if (w?.kind !== 'releaseSoon') return;
    assert.strictEqual(w.releaseAt, releaseAt);
    assert.strictEqual(w.stoppedSince, stopped);
    assert.strictEqual(w.secondsLeft, 2 * DAY);
  });

  it('gives no platform clock for a running instance, another account’s observation, or a platform without the rule', async () => {
    assert.strictEqual(platformReleaseWatch(autodl, { state: 'running', stoppedAt: NOW - 13 * DAY }, NOW), undefined);
    assert.strictEqual(platformReleaseWatch(autodl, { state: 'stopped' }, NOW), undefined, 'no stopped_at, no release_at: the recorded stretch counts');
    assert.strictEqual(platformReleaseWatch(factsFor('aliyun'), { state: 'stopped', stoppedAt: NOW - 13 * DAY, releaseAt: NOW + DAY }, NOW), undefined);
    const { store, observations, d } = setup(() => NOW);
    await applyPlatformList(d, { id: 'pro', kind: 'autodl-pro' as const }, noLogin, [shutDownRow(NOW - 13 * DAY)]);
    const inst = store.list()[0]!;
    recordObservation(observations, inst.id, 'other-account', shutDownRow(NOW - 13 * DAY), NOW);
    assert.strictEqual(observedReleaseWatch(observations, inst, autodl, NOW), undefined);
  });

  it('keeps the region and the clock in the observation, and the release day says soon inside three days', () => {
    const observations = new Map<string, Observation>();
    const p = shutDownRow(NOW - 13 * DAY);
    recordObservation(observations, 'x', 'pro', p, NOW);
    const o = observations.get('x')!;
    assert.strictEqual(o.region, '内蒙C区');
    assert.strictEqual(o.stoppedAt, NOW - 13 * DAY);
    assert.strictEqual(o.releaseAt, NOW + 2 * DAY);
    assert.deepEqual(releaseDay(o, NOW), { releaseAt: NOW + 2 * DAY, stoppedAt: NOW - 13 * DAY, passed: false, soon: true, secondsLeft: 2 * DAY });
    assert.strictEqual(releaseDay({ ...o, releaseAt: NOW + RELEASE_SOON_DAYS * DAY }, NOW)?.soon, false);
    assert.strictEqual(releaseDay({ ...o, releaseAt: NOW - 1 }, NOW)?.passed, true);
    assert.strictEqual(releaseDay({ ...o, state: 'running' }, NOW), undefined);
  });
});
