// The pure sync planner, property-tested: whatever the listing, the local disk and the state
// file say (including a tampered state file), it never deletes a file it did not bring down
// or one changed since, never plans a path outside the folder, keeps exactly the newest N
// complete entries with keep-last, never deletes anything when the remote folder is empty,
// and never counts a local copy as its own to replace unless it is exactly what it wrote.
import { strict as assert } from 'node:assert';
import { resolve, sep } from 'node:path';
import fc from 'fast-check';
import type { RemoteFile, RemoteListing } from '../../src/remote/sync/list';
import { alreadySavedBeside, changedFiles, isSafeRelative, localCopyOf, plan, topOf, type LocalFileStat, type LocalState, type PlanOptions } from '../../src/remote/sync/planner';
import type { SavedBeside, SyncedFile } from '../../src/remote/sync/state';
import { boxCopyName } from '../../src/remote/sync/box-copy';

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
    const record = fc.record({ size: fc.integer({ min: 0, max: 50 }), mtime: fc.integer({ min: 1000, max: 1100 }), sha256: fc.constantFrom(null, 'a'.repeat(64)) });
    const saved = fc.record({ size: fc.integer({ min: 0, max: 50 }), mtime: fc.integer({ min: 1000, max: 1100 }), savedAs: fc.constant('x (box copy 1970-01-01).md') });
    const stat = fc.record({ isFile: fc.boolean(), size: fc.integer({ min: 0, max: 50 }), mtime: fc.integer({ min: 1000, max: 1100 }) });
    return fc.record({
      listing: fc.constant(l),
      records: fc.dictionary(relPool, record, { maxKeys: 10 }),
      // For each listed file: no local copy, the same as the box, what the state recorded, or something else.
      listedStats: fc.array(fc.constantFrom<'none' | 'same' | 'recorded' | 'other'>('none', 'same', 'recorded', 'other'), { minLength: l.files.length, maxLength: l.files.length }),
      // Box versions saved beside kept local copies: some exactly the listed version.
      savedBeside: fc.dictionary(relPool, saved, { maxKeys: 6 }),
      savedListed: fc.array(fc.boolean(), { minLength: l.files.length, maxLength: l.files.length }),
      force: fc.boolean(),
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
        else if (kind === 'recorded' && s.records[f.rel]) stats.set(f.rel, { isFile: true, size: s.records[f.rel]!.size, mtime: s.records[f.rel]!.mtime });
        else stats.set(f.rel, { isFile: true, size: f.size + 1, mtime: f.mtime });
      });
      const savedBeside: Record<string, SavedBeside> = { ...s.savedBeside };
      l.files.forEach((f, i) => {
        if (s.savedListed[i]) savedBeside[f.rel] = { size: f.size, mtime: f.mtime, savedAs: 'y (box copy 1970-01-01).md' };
      });
      return {
        listing: l,
        local: { records: s.records as Record<string, SyncedFile>, stats, parts: s.parts, savedBeside },
        now: s.now,
        options: { settleSeconds: s.settleSeconds, keepLast: s.keepLast, delete: s.delete, force: s.force },
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
        const savedEarlier = new Set(p.savedEarlier.map((f) => f.rel));
        for (const f of listing.files) {
          const n = [pulled.has(f.rel), same.has(f.rel), waiting.has(f.rel), savedEarlier.has(f.rel)].filter(Boolean).length;
          assert.equal(n, 1, `${f.rel} is in ${n} of pull/unchanged/waiting/saved earlier`);
        }
        assert.deepEqual(new Set(changedFiles(listing, local).map((f) => f.rel)), new Set([...pulled, ...waiting, ...savedEarlier]));
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

  describe('local copies the user changed', () => {
    const statArb = fc.option(fc.record({ isFile: fc.boolean(), size: fc.integer({ min: 0, max: 5 }), mtime: fc.integer({ min: 1000, max: 1003 }) }), { nil: undefined });
    const recordArb = fc.option(fc.record({ size: fc.integer({ min: 0, max: 5 }), mtime: fc.integer({ min: 1000, max: 1003 }), sha256: fc.constantFrom(null, 'b'.repeat(64)) }), { nil: undefined });

    it('a local copy counts as replaceable only if it is exactly what sync recorded (or --force); a hash is asked for only where size and mtime cannot tell', () => {
      fc.assert(
        fc.property(recordArb, statArb, fc.boolean(), (rec, st, force) => {
          const c = localCopyOf(rec, st, force);
          if (!st) return assert.equal(c, 'none');
          if (force) return assert.equal(c, 'synced');
          if (c === 'synced') assert.ok(rec && st.isFile && st.size === rec.size && st.mtime === rec.mtime, 'a changed copy counted as the one sync wrote');
          if (c === 'check-hash') assert.ok(rec && rec.sha256 !== null && st.isFile && st.size === rec.size && st.mtime !== rec.mtime);
          // Never written by sync, another size, or no hash to compare with: the user's.
          if (!rec || !st.isFile || st.size !== rec.size || (st.mtime !== rec.mtime && rec.sha256 === null)) assert.equal(c, 'user');
        }),
        { numRuns: 1000 },
      );
    });

    it('a box version already saved beside a kept file is not pulled again, any other version is; --force pulls them all', () => {
      fc.assert(
        fc.property(scenario(listingArb), ({ listing, local, now, options }) => {
          const p = plan(listing, local, now, { ...options, keepLast: undefined });
          if (options.force) assert.deepEqual(p.savedEarlier, []);
          for (const f of p.savedEarlier) {
            assert.equal(localCopyOf(local.records[f.rel], local.stats.get(f.rel)), 'user', `${f.rel}: not the user's copy`);
            assert.ok(alreadySavedBeside(f, local.savedBeside?.[f.rel]), `${f.rel}: this box version was never saved`);
          }
          for (const f of p.toPull) {
            if (options.force || localCopyOf(local.records[f.rel], local.stats.get(f.rel)) !== 'user') continue;
            assert.ok(!alreadySavedBeside(f, local.savedBeside?.[f.rel]), `${f.rel}: pulled again though saved`);
          }
        }),
        { numRuns: 500 },
      );
    });

    it('the box copy keeps the extension, names the box version\'s date, and fits a file name', () => {
      const day = Date.UTC(2020, 2, 1) / 1000;
      assert.equal(boxCopyName('notes.md', day), 'notes (box copy 2020-03-01).md');
      assert.equal(boxCopyName('run/notes.md', day, 2), 'run/notes (box copy 2020-03-01, 2).md');
      assert.equal(boxCopyName('ckpt/model.tar.gz', day), 'ckpt/model (box copy 2020-03-01).tar.gz');
      assert.equal(boxCopyName('.bashrc', day), '.bashrc (box copy 2020-03-01)');
      assert.equal(boxCopyName('README', day), 'README (box copy 2020-03-01)');
      assert.equal(boxCopyName('x.md', 1e300), 'x (box copy unknown date).md');
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 1000 }), (name, n) => {
          const base = name.replace(/[/\0]/g, '_');
          const copy = boxCopyName(base, day, n);
          assert.ok(Buffer.byteLength(copy) <= 255, copy);
          assert.ok(!copy.includes('/'));
          assert.notEqual(copy, base);
        }),
      );
    });
  });
});
