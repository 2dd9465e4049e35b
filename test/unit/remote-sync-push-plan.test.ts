// The pure push planner, property-tested against push's rules written out here: every local
// file is sent, unchanged or skipped with exactly one reason; a box copy that is newer is never
// overwritten unless forced; a name the caller left out never gets an action; a hostile name
// (.., absolute, control characters, our .part and state names) is never sent; the folders
// cover every sent file's parent and nothing outside the root; transports follow the size and
// stream rules; the plan does not depend on the order of the box's listing.
import { strict as assert } from 'node:assert';
import { resolve, sep } from 'node:path';
import fc from 'fast-check';
import {
  BIG_FILE,
  firstStreamCandidates,
  GZIP_MIN_FILE,
  planPush,
  PUSH_STREAM_MIN_FILES,
  STREAM_BATCH_BYTES,
  STREAM_BATCH_FILES,
  STREAM_BATCH_NAME_BYTES,
  type BoxFile,
  type PlanFile,
  type PushFacts,
  type PushPlan,
  type PushSkipReason,
} from '../../src/remote/sync/push-plan';
import { shQuote } from '../../src/remote/shell';

const component = fc.constantFrom('a', 'b', 'ckpt', 'ep1', 'ep10', 'model.pt', 'x y', '日志', 'a.part.txt', 'part');
const safeRel = fc.array(component, { minLength: 1, maxLength: 4 }).map((p) => p.join('/'));
// Each with the reason names.ts documents for it.
const HOSTILE: ReadonlyArray<[string, PushSkipReason]> = [
  ['../escape', 'dot-segment'],
  ['a/../../b', 'dot-segment'],
  ['./a', 'dot-segment'],
  ['/etc/passwd', 'absolute-path'],
  ['C:/x', 'absolute-path'],
  ['', 'empty-name'],
  ['a//b', 'empty-name'],
  ['a/', 'empty-name'],
  ['a\\..\\b', 'backslash'],
  ['a\0b', 'nul'],
  ['line\nbreak', 'control-char'],
  ['tab\there', 'control-char'],
  ['esc\u001b[31m', 'control-char'],
  ['c1\u009bx', 'control-char'],
  ['ckpt/model.pt.part', 'reserved-name'],
  ['.gpu-rent-sync.json', 'reserved-name'],
  ['trailing.', 'trailing-dot-or-space'],
  ['NUL', 'device-name'],
];
const hostileRel = fc.constantFrom(...HOSTILE.map(([r]) => r));
const sizeArb = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 100 }) }, { weight: 1, arbitrary: fc.constantFrom(GZIP_MIN_FILE - 1, GZIP_MIN_FILE, BIG_FILE - 1, BIG_FILE, BIG_FILE + 1, 64 * 1024 * 1024) });

const safeFiles = (n: { minLength?: number; maxLength: number }) => fc.uniqueArray(fc.record({ rel: safeRel, size: sizeArb, mtime: fc.integer({ min: 1000, max: 1010 }) }), { selector: (f) => f.rel, ...n });

type Relation = 'none' | 'same' | 'older' | 'newer' | 'same-mtime-other-size' | 'older-same-size' | 'newer-same-size';
type Scenario = { files: PlanFile[]; hostile: Set<string>; skipped: Array<{ name: string; reason: PushSkipReason }>; box: BoxFile[]; facts: PushFacts; force: boolean };

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    // Few files, or enough new small ones for a tar stream.
    safe: fc.oneof(safeFiles({ maxLength: 10 }), safeFiles({ minLength: 40, maxLength: 80 })),
    hostile: fc.uniqueArray(fc.record({ rel: hostileRel, size: sizeArb, mtime: fc.integer({ min: 1000, max: 1010 }) }), { selector: (f) => f.rel, maxLength: 5 }),
    stream: fc.boolean(),
    gzip: fc.boolean(),
    force: fc.boolean(),
    mostlyNew: fc.boolean(),
    extraBox: fc.array(fc.record({ rel: safeRel, size: sizeArb, mtime: fc.integer({ min: 900, max: 1100 }) }), { maxLength: 5 }),
  })
  .chain((s) => {
    const files = [...s.safe, ...s.hostile];
    return fc.record({
      // A box that has most of the files, or one that has few (a first push: many new files).
      relations: fc.array(fc.oneof({ weight: s.mostlyNew ? 12 : 1, arbitrary: fc.constant<Relation>('none') }, { weight: 1, arbitrary: fc.constantFrom<Relation>('same', 'older', 'newer', 'same-mtime-other-size', 'older-same-size', 'newer-same-size') }), {
        minLength: files.length,
        maxLength: files.length,
      }),
      excluded: fc.subarray(files.map((f) => f.rel)),
      firstPick: fc.array(fc.integer({ min: 0, max: 3 }).map((n) => n === 0), { minLength: files.length, maxLength: files.length }),
      order: fc.shuffledSubarray(files, { minLength: files.length, maxLength: files.length }),
    }).map((r): Scenario => {
      const box: BoxFile[] = [];
      files.forEach((f, i) => {
        const rel = r.relations[i]!;
        if (rel === 'same') box.push({ ...f });
        else if (rel === 'older') box.push({ rel: f.rel, size: f.size + 7, mtime: f.mtime - 5 });
        else if (rel === 'newer') box.push({ rel: f.rel, size: f.size + 3, mtime: f.mtime + 5 });
        else if (rel === 'same-mtime-other-size') box.push({ rel: f.rel, size: f.size + 1, mtime: f.mtime });
        else if (rel === 'older-same-size') box.push({ rel: f.rel, size: f.size, mtime: f.mtime - 1 });
        else if (rel === 'newer-same-size') box.push({ rel: f.rel, size: f.size, mtime: f.mtime + 1 });
      });
      const localRels = new Set(files.map((f) => f.rel));
      for (const e of s.extraBox) if (!localRels.has(e.rel) && !box.some((b) => b.rel === e.rel)) box.push(e);
      const excluded = new Set(r.excluded);
      // The first stream only ever carries small, safe names the caller did not leave out.
      const hostileSet = new Set(s.hostile.map((f) => f.rel));
      const firstSent = new Set(files.filter((f, i) => r.firstPick[i] && f.size < BIG_FILE && !hostileSet.has(f.rel) && !excluded.has(f.rel)).map((f) => f.rel));
      return {
        files: r.order,
        hostile: hostileSet,
        skipped: [...excluded].map((name) => ({ name, reason: 'excluded' as const })),
        box,
        facts: { firstSent, stream: s.stream, gzip: s.gzip },
        force: s.force,
      };
    });
  });

const run = (s: Scenario, box = s.box): PushPlan => planPush({ files: s.files, skipped: s.skipped }, box, s.facts, { force: s.force });

const ROOT = resolve('/tmp/gpu-rent-push-root');
const inside = (rel: string) => resolve(ROOT, ...rel.split('/')).startsWith(ROOT + sep);
const parentOf = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
const ancestors = (dir: string) => (dir === '' ? [] : dir.split('/').map((_, k, parts) => parts.slice(0, k + 1).join('/')));
const sends = (p: PushPlan) => [...p.firstStream, ...p.stream, ...p.sftp, ...p.big];

/** Push's rules, written out: what should happen to one file the caller did not leave out. */
function expectedFate(s: Scenario, f: PlanFile): { kind: 'send' | 'unchanged' } | { kind: 'skip'; reason: PushSkipReason } {
  if (s.hostile.has(f.rel)) return { kind: 'skip', reason: HOSTILE.find(([r]) => r === f.rel)![1] };
  if (s.facts.firstSent.has(f.rel)) return { kind: 'send' };
  const r = s.box.find((b) => b.rel === f.rel);
  if (r && r.size === f.size && r.mtime === f.mtime) return { kind: 'unchanged' };
  if (r && r.mtime > f.mtime && !s.force) return { kind: 'skip', reason: 'remote-newer' };
  return { kind: 'send' };
}

const RUNS = { numRuns: 400 };

describe('push planner (pure, property-tested)', () => {
  it('accounts for every local file once: sent, unchanged, or skipped with exactly one reason', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const p = run(s);
        const sent = sends(p).map((x) => x.file.rel);
        const unchanged = p.unchanged.map((f) => f.rel);
        const skipped = p.skipped.map((x) => x.name);
        const all = [...sent, ...unchanged, ...skipped];
        assert.equal(new Set(all).size, all.length, 'a name in two places');
        assert.deepEqual([...all].sort(), s.files.map((f) => f.rel).sort());
        assert.equal(p.actions.length, s.files.length - s.skipped.length);
      }),
      RUNS,
    );
  });

  it('decides each file by the rules: unchanged when size and mtime match, a newer box copy kept unless forced, else sent', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const p = run(s);
        const excluded = new Set(s.skipped.map((x) => x.name));
        const byRel = new Map(p.actions.map((a) => [a.file.rel, a]));
        for (const f of s.files) {
          if (excluded.has(f.rel)) {
            assert.equal(byRel.get(f.rel), undefined, `${f.rel} was left out by the caller`);
            assert.deepEqual(p.skipped.filter((x) => x.name === f.rel), [{ name: f.rel, reason: 'excluded' }]);
            continue;
          }
          const want = expectedFate(s, f);
          const got = byRel.get(f.rel)!;
          assert.equal(got.kind, want.kind, `${JSON.stringify(f.rel)}`);
          if (want.kind === 'skip') {
            assert.equal(got.kind === 'skip' && got.reason, want.reason);
            assert.deepEqual(p.skipped.filter((x) => x.name === f.rel), [{ name: f.rel, reason: want.reason }]);
          }
        }
      }),
      RUNS,
    );
  });

  it('never sends over a newer or differently-timed-newer box copy unless forced, and never sends a hostile or excluded name', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const p = run(s);
        const excluded = new Set(s.skipped.map((x) => x.name));
        for (const x of sends(p)) {
          const r = s.box.find((b) => b.rel === x.file.rel);
          if (x.transport !== 'first-stream' && !s.force) assert.ok(!r || r.mtime <= x.file.mtime, `${x.file.rel} is newer on the box`);
          assert.ok(!s.hostile.has(x.file.rel), `hostile ${JSON.stringify(x.file.rel)} sent`);
          assert.ok(!excluded.has(x.file.rel), `excluded ${x.file.rel} sent`);
          assert.ok(inside(x.file.rel), `${x.file.rel} outside the root`);
        }
      }),
      RUNS,
    );
  });

  it('picks the transport by the rules: big over SFTP alone, first-stream as delivered, new small files streamed only in numbers and only where the box can unpack', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const p = run(s);
        const onBox = new Set(s.box.map((b) => b.rel));
        const smallNewNotFirst = sends(p).filter((x) => !s.facts.firstSent.has(x.file.rel) && x.file.size < BIG_FILE && !onBox.has(x.file.rel));
        const streaming = s.facts.stream && smallNewNotFirst.length >= PUSH_STREAM_MIN_FILES;
        for (const x of sends(p)) {
          const want = s.facts.firstSent.has(x.file.rel) ? 'first-stream' : x.file.size >= BIG_FILE ? 'sftp-big' : streaming && !onBox.has(x.file.rel) ? 'stream' : 'sftp';
          assert.equal(x.transport, want, x.file.rel);
          assert.equal(x.gzip, s.facts.gzip && x.file.size >= GZIP_MIN_FILE, `gzip for ${x.file.rel}`);
          assert.equal(x.dir, parentOf(x.file.rel));
        }
        for (const [list, t] of [[p.firstStream, 'first-stream'], [p.stream, 'stream'], [p.sftp, 'sftp'], [p.big, 'sftp-big']] as const) for (const x of list) assert.equal(x.transport, t);
        // Each list keeps the tree's order.
        const pos = new Map(s.files.map((f, i) => [f.rel, i]));
        for (const list of [p.firstStream, p.stream, p.sftp, p.big]) for (let i = 1; i < list.length; i++) assert.ok(pos.get(list[i - 1]!.file.rel)! < pos.get(list[i]!.file.rel)!);
      }),
      RUNS,
    );
  });

  it('lists the folders every sent file needs, parents first, nothing else and nothing outside the root', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const p = run(s);
        const want = new Set(sends(p).flatMap((x) => ancestors(parentOf(x.file.rel))));
        assert.deepEqual(new Set(p.folders), want);
        assert.equal(new Set(p.folders).size, p.folders.length);
        for (const d of p.folders) {
          assert.ok(inside(d), `${d} outside the root`);
          assert.ok(!d.split('/').some((c) => c === '' || c === '.' || c === '..'), d);
          const up = parentOf(d);
          if (up !== '') assert.ok(p.folders.indexOf(up) < p.folders.indexOf(d), `${up} after ${d}`);
        }
      }),
      RUNS,
    );
  });

  it('does not depend on the order of the box listing', () => {
    fc.assert(
      fc.property(
        scenarioArb.chain((s) => fc.tuple(fc.constant(s), fc.shuffledSubarray(s.box, { minLength: s.box.length, maxLength: s.box.length }))),
        ([s, shuffled]) => {
          assert.deepEqual(run(s, shuffled), run(s));
        },
      ),
      RUNS,
    );
  });

  it('offers the first stream only small, safe names the caller did not leave out', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const excluded = new Set(s.skipped.map((x) => x.name));
        const got = firstStreamCandidates({ files: s.files, skipped: s.skipped }).map((f) => f.rel);
        const want = s.files.filter((f) => f.size < BIG_FILE && !s.hostile.has(f.rel) && !excluded.has(f.rel)).map((f) => f.rel);
        assert.deepEqual(got, want);
      }),
      RUNS,
    );
  });

  it('cuts the streamed files into tar streams in order, each within the file, byte and command-line limits, each as full as they allow', () => {
    // Long names and sizes up to just under a big file, so every limit is met somewhere.
    const longComponent = fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer({ min: 1, max: 240 })).map(([ch, n]) => ch.repeat(n));
    const filesOf = (size: fc.Arbitrary<number>, n: { minLength: number; maxLength: number }) =>
      fc.uniqueArray(fc.record({ rel: fc.array(longComponent, { minLength: 1, maxLength: 3 }).map((p) => p.join('/')), size, mtime: fc.constant(1000) }), { selector: (f) => f.rel, ...n });
    // Big small files (the byte limit cuts), or many tiny ones with long names (the command line cuts).
    const files = fc.oneof(
      filesOf(fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(1024 * 1024, BIG_FILE - 1)), { minLength: PUSH_STREAM_MIN_FILES, maxLength: 120 }),
      filesOf(fc.integer({ min: 0, max: 100 }), { minLength: 150, maxLength: 400 }),
    );
    const nameBytes = (f: PlanFile) => shQuote(`${f.rel}.part`).length + 1;
    fc.assert(
      fc.property(files, (fs) => {
        const p = planPush({ files: fs, skipped: [] }, [], { firstSent: new Set(), stream: true, gzip: false });
        assert.deepEqual(p.streamBatches.flat(), p.stream);
        assert.deepEqual(p.stream.map((x) => x.file.rel), fs.filter((f) => f.size < BIG_FILE).map((f) => f.rel));
        p.streamBatches.forEach((b, k) => {
          assert.ok(b.length > 0);
          const bytes = b.reduce((n, x) => n + x.file.size, 0);
          const names = b.reduce((n, x) => n + nameBytes(x.file), 0);
          assert.ok(b.length <= STREAM_BATCH_FILES);
          if (b.length > 1) assert.ok(bytes <= STREAM_BATCH_BYTES && names <= STREAM_BATCH_NAME_BYTES, `batch ${k}: ${bytes} bytes, ${names} of names`);
          // The next batch's first file did not fit this one.
          const next = p.streamBatches[k + 1]?.[0];
          if (next) assert.ok(b.length === STREAM_BATCH_FILES || bytes + next.file.size > STREAM_BATCH_BYTES || names + nameBytes(next.file) > STREAM_BATCH_NAME_BYTES, `batch ${k} was not full`);
        });
      }),
      // Shrinking hundreds of long names takes minutes: the first counterexample is reported as found.
      { numRuns: 150, endOnFailure: true },
    );
    const many = Array.from({ length: STREAM_BATCH_FILES + 1 }, (_, i) => ({ rel: `f${i}`, size: 1, mtime: 1000 }));
    const cut = planPush({ files: many, skipped: [] }, [], { firstSent: new Set(), stream: true, gzip: false }).streamBatches;
    assert.deepEqual(cut.map((b) => b.length), [STREAM_BATCH_FILES, 1]);
  });

  it('skips each hostile name with its reason and writes nothing for it', () => {
    const files = HOSTILE.map(([rel], i) => ({ rel, size: 10 + i, mtime: 1000 }));
    const p = planPush({ files, skipped: [] }, [], { firstSent: new Set(), stream: true, gzip: true });
    assert.deepEqual(sends(p), []);
    assert.deepEqual(p.folders, []);
    assert.deepEqual(
      p.skipped,
      HOSTILE.map(([name, reason]) => ({ name, reason })),
    );
  });

  it('streams new small files from the 16th on, never files already on the box', () => {
    const mk = (n: number) => Array.from({ length: n }, (_, i) => ({ rel: `d/f${String(i).padStart(2, '0')}`, size: 100, mtime: 1000 }));
    const facts = { firstSent: new Set<string>(), stream: true, gzip: true };
    assert.deepEqual(planPush({ files: mk(PUSH_STREAM_MIN_FILES - 1), skipped: [] }, [], facts).stream, []);
    const p = planPush({ files: mk(PUSH_STREAM_MIN_FILES + 1), skipped: [] }, [{ rel: 'd/f00', size: 5, mtime: 900 }], facts);
    assert.deepEqual(p.sftp.map((x) => x.file.rel), ['d/f00']);
    assert.equal(p.stream.length, PUSH_STREAM_MIN_FILES);
    assert.deepEqual(p.folders, ['d']);
    // A box that cannot unpack (no gzip, or the first stream failed): all over SFTP.
    assert.equal(planPush({ files: mk(40), skipped: [] }, [], { ...facts, stream: false }).stream.length, 0);
  });

  it('sends a file whose box copy is newer only when forced', () => {
    const files = [{ rel: 'ckpt/last.pt', size: BIG_FILE, mtime: 1000 }];
    const box = [{ rel: 'ckpt/last.pt', size: 1, mtime: 2000 }];
    const facts = { firstSent: new Set<string>(), stream: true, gzip: true };
    assert.deepEqual(planPush({ files, skipped: [] }, box, facts).skipped, [{ name: 'ckpt/last.pt', reason: 'remote-newer' }]);
    const forced = planPush({ files, skipped: [] }, box, facts, { force: true });
    assert.deepEqual(
      forced.big.map((x) => [x.file.rel, x.transport, x.gzip]),
      [['ckpt/last.pt', 'sftp-big', true]],
    );
    assert.deepEqual(forced.folders, ['ckpt']);
  });
});
