// The pure sync planner, property-tested: whatever the listing, the local disk and the state
// file say (including a tampered state file), it never deletes a file it did not bring down
// or one changed since, never plans a path outside the folder, keeps exactly the newest N
// complete entries with keep-last, and never deletes anything when the remote folder is empty.
import { strict as assert } from 'node:assert';
import { resolve, sep } from 'node:path';
import fc from 'fast-check';
import type { RemoteFile, RemoteListing } from '../../src/remote/sync/list';
import { changedFiles, isSafeRelative, plan, topOf, type LocalFileStat, type LocalState, type PlanOptions } from '../../src/remote/sync/planner';
import type { SyncedFile } from '../../src/remote/sync/state';

const component = fc.constantFrom('a', 'b', 'c', 'ep1', 'ep2', 'ep10', 'model.pt', 'x y');
const safeRel = fc.array(component, { minLength: 1, maxLength: 3 }).map((p) => p.join('/'));
const hostileRel = fc.constantFrom('../escape', '/etc/passwd', 'a/../../b', './a', 'a//b', '', 'a\\..\\b', 'C:/x', 'a/./b', '..');
const anyRel = fc.oneof({ weight: 4, arbitrary: safeRel }, { weight: 1, arbitrary: hostileRel });

const remoteFile = (rel: string, size: number, mtime: number): RemoteFile => ({ rel, abs: `/data/${rel}`, size, mtime });

const listingArb = fc
  .uniqueArray(fc.record({ rel: safeRel, size: fc.integer({ min: 0, max: 50 }), mtime: fc.integer({ min: 1000, max: 1100 }) }), { selector: (f) => f.rel, maxLength: 12 })
  .chain((files) =>
    fc.record({
      files: fc.constant(files.map((f) => remoteFile(f.rel, f.size, f.mtime))),
      unlisted: fc.subarray(['a', 'b', 'c/ep1']),
    }),
  )
  .map(({ files, unlisted }): RemoteListing => ({ root: '/data', files, skipped: [], unlisted }));

type Scenario = { listing: RemoteListing; local: LocalState; now: number | undefined; options: PlanOptions };

function scenario(listing: fc.Arbitrary<RemoteListing>): fc.Arbitrary<Scenario> {
  return listing.chain((l) => {
    const listed = l.files.map((f) => f.rel);
    const relPool = fc.oneof(listed.length ? fc.constantFrom(...listed) : safeRel, anyRel);
    const record = fc.record({ size: fc.integer({ min: 0, max: 50 }), mtime: fc.integer({ min: 1000, max: 1100 }), sha256: fc.constant(null) });
    const stat = fc.record({ isFile: fc.boolean(), size: fc.integer({ min: 0, max: 50 }), mtime: fc.integer({ min: 1000, max: 1100 }) });
    return fc.record({
      listing: fc.constant(l),
      records: fc.dictionary(relPool, record, { maxKeys: 10 }),
      // For each listed file: no local copy, the same as the box, or something else.
      listedStats: fc.array(fc.constantFrom<'none' | 'same' | 'other'>('none', 'same', 'other'), { minLength: l.files.length, maxLength: l.files.length }),
      otherStats: fc.array(fc.tuple(relPool, stat), { maxLength: 10 }),
      parts: fc.array(relPool.map((r) => `${r}.part`), { maxLength: 5 }),
      now: fc.option(fc.integer({ min: 900, max: 1200 }), { nil: undefined }),
      settleSeconds: fc.integer({ min: 0, max: 10 }),
      keepLast: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
      delete: fc.boolean(),
    }).map((s): Scenario => {
      const stats = new Map<string, LocalFileStat>();
      for (const [rel, st] of s.otherStats) stats.set(rel, st);
      l.files.forEach((f, i) => {
        const kind = s.listedStats[i];
        if (kind === 'none') stats.delete(f.rel);
        else if (kind === 'same') stats.set(f.rel, { isFile: true, size: f.size, mtime: f.mtime });
        else stats.set(f.rel, { isFile: true, size: f.size + 1, mtime: f.mtime });
      });
      return {
        listing: l,
        local: { records: s.records as Record<string, SyncedFile>, stats, parts: s.parts },
        now: s.now,
        options: { settleSeconds: s.settleSeconds, keepLast: s.keepLast, delete: s.delete },
      };
    });
  });
}

const ROOT = resolve('/tmp/gpu-rent-sync-root');
const inside = (rel: string) => resolve(ROOT, ...rel.split('/')).startsWith(ROOT + sep);

describe('sync planner (pure, property-tested)', () => {
  it('never deletes a file it did not bring down, nor one changed locally since', () => {
    fc.assert(
      fc.property(scenario(listingArb), ({ listing, local, now, options }) => {
        const p = plan(listing, local, now, { ...options, delete: true });
        const known = { ...local.records, ...p.adopt };
        for (const rel of p.deletion.files) {
          const rec = known[rel];
          assert.ok(rec, `deletes ${rel}, which the state never recorded`);
          const st = local.stats.get(rel);
          if (st) assert.ok(st.isFile && st.size === rec.size && st.mtime === rec.mtime, `deletes ${rel}, changed locally`);
          assert.ok(!p.keep.has(rel), `deletes ${rel}, which the box still has`);
        }
        for (const rel of p.deletion.localModified) assert.ok(!p.deletion.files.includes(rel));
      }),
      { numRuns: 500 },
    );
  });

  it('never plans a path outside the folder (a tampered state file included)', () => {
    fc.assert(
      fc.property(scenario(listingArb), ({ listing, local, now, options }) => {
        const p = plan(listing, local, now, { ...options, delete: true });
        for (const rel of [...p.toPull.map((f) => f.rel), ...p.deletion.files, ...p.deletion.parts, ...p.deletion.localModified]) {
          assert.ok(isSafeRelative(rel), `plans ${JSON.stringify(rel)}`);
          assert.ok(inside(rel), `plans ${JSON.stringify(rel)} outside the folder`);
        }
        for (const rel of p.deletion.unsafe) assert.equal(isSafeRelative(rel), false);
      }),
      { numRuns: 500 },
    );
  });

  it('an empty remote listing never deletes', () => {
    const empty = fc.constant<RemoteListing>({ root: '/data', files: [], skipped: [], unlisted: [] });
    fc.assert(
      fc.property(scenario(empty), ({ listing, local, now, options }) => {
        const p = plan(listing, local, now, { ...options, delete: true });
        assert.deepEqual(p.deletion.files, []);
        if (p.deletion.refusedEmpty) assert.deepEqual(p.deletion.parts, []);
        const stale = Object.keys(local.records).filter(isSafeRelative);
        if (stale.length) assert.equal(p.deletion.refusedEmpty, true);
        assert.deepEqual(p.toPull, []);
      }),
    );
  });

  it('keep-last keeps exactly the newest N complete entries', () => {
    fc.assert(
      fc.property(scenario(listingArb), fc.integer({ min: 0, max: 4 }), ({ listing, local, now, options }, n) => {
        const o = { ...options, keepLast: n };
        const p = plan(listing, local, now, o);
        // Independently: which entries are complete (every file settled or unchanged locally).
        const unchanged = new Set(listing.files.filter((f) => !changedFiles({ ...listing, files: [f] }, local).length).map((f) => f.rel));
        const settled = (f: RemoteFile) => unchanged.has(f.rel) || o.settleSeconds === 0 || now === undefined || now - f.mtime >= o.settleSeconds || now - f.mtime < -60;
        const groups = new Map<string, { mtime: number; complete: boolean }>();
        for (const f of listing.files) {
          const g = groups.get(topOf(f.rel)) ?? { mtime: 0, complete: true };
          g.mtime = Math.max(g.mtime, f.mtime);
          g.complete &&= settled(f);
          groups.set(topOf(f.rel), g);
        }
        const complete = [...groups.entries()].filter(([, g]) => g.complete).sort(([a, ga], [b, gb]) => gb.mtime - ga.mtime || b.localeCompare(a, 'en', { numeric: true }));
        const newest = new Set(complete.slice(0, n).map(([t]) => t));
        const keptComplete = new Set([...p.keep].filter((k) => !k.endsWith('/')).map(topOf).filter((t) => groups.get(t)?.complete));
        assert.deepEqual([...keptComplete].sort(), [...newest].sort());
        // Nothing outside those entries is pulled; an entry still being written is kept but not pulled.
        for (const f of p.toPull) assert.ok(newest.has(topOf(f.rel)), `pulls ${f.rel} outside the newest ${n}`);
      }),
      { numRuns: 500 },
    );
  });

  it('pulls exactly the changed, settled files; the rest are unchanged or skipped as still being written', () => {
    fc.assert(
      fc.property(scenario(listingArb), ({ listing, local, now, options }) => {
        const p = plan(listing, local, now, { ...options, keepLast: undefined });
        const pulled = new Set(p.toPull.map((f) => f.rel));
        const same = new Set(p.unchanged.map((f) => f.rel));
        const waiting = new Set(p.skipped.filter((s) => s.reason === 'still-being-written').map((s) => s.name));
        for (const f of listing.files) {
          const n = [pulled.has(f.rel), same.has(f.rel), waiting.has(f.rel)].filter(Boolean).length;
          assert.equal(n, 1, `${f.rel} is in ${n} of pull/unchanged/waiting`);
        }
        assert.deepEqual(new Set(changedFiles(listing, local).map((f) => f.rel)), new Set([...pulled, ...waiting]));
        if (p.settleWait > 0) assert.ok(waiting.size > 0 && p.settleWait <= options.settleSeconds);
        // Adopted records are exactly the unchanged files the state did not know.
        assert.deepEqual(Object.keys(p.adopt).sort(), [...same].filter((r) => !local.records[r]).sort());
      }),
      { numRuns: 500 },
    );
  });

  it('without delete, plans no removal', () => {
    fc.assert(
      fc.property(scenario(listingArb), ({ listing, local, now, options }) => {
        const p = plan(listing, local, now, { ...options, delete: false });
        assert.deepEqual(p.deletion, { files: [], localModified: [], parts: [], unsafe: [], refusedEmpty: false });
      }),
    );
  });
});
