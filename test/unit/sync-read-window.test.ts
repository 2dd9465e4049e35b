// The range pull's bookkeeping (remote/sync/read-window.ts), driven without SFTP: replies in
// any order and of any length must still hand out exactly the file's bytes, in file order.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ReadWindow, type Read } from '../../src/remote/sync/read-window';

/** Answers `r` from `file` with `n` bytes, as an SFTP read into a fresh buffer would. */
function reply(w: ReadWindow, file: Buffer, r: Read, n = r.len): void {
  const buf = Buffer.alloc(r.len);
  file.copy(buf, 0, r.at, r.at + n);
  w.answered();
  w.landed(r, buf, n);
}

function takeAll(w: ReadWindow): Read[] {
  const out: Read[] = [];
  for (let r = w.take(); r; r = w.take()) out.push(r);
  return out;
}

const fileOf = (size: number) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + 3) & 0xff));

describe('sync: the range pull window', () => {
  it('asks for chunks from the resume offset up to the end, never more than the window', () => {
    const w = new ReadWindow(5, 20, 3, 4);
    assert.deepEqual(takeAll(w), [
      { at: 5, len: 4 },
      { at: 9, len: 4 },
      { at: 13, len: 4 },
    ]);
    assert.equal(w.inFlight, 3);
    w.answered();
    assert.deepEqual(takeAll(w), [{ at: 17, len: 3 }], 'the last read stops at the end');
    w.answered();
    assert.deepEqual(takeAll(w), [], 'nothing past the end');
  });

  it('holds a reply that came early until the bytes before it are in', () => {
    const file = fileOf(12);
    const w = new ReadWindow(0, 12, 3, 4);
    const [a, b, c] = takeAll(w);
    reply(w, file, c!);
    reply(w, file, b!);
    assert.deepEqual(w.inOrder(), [], 'nothing before byte 0 has come');
    assert.equal(w.nextWrite, 0);
    reply(w, file, a!);
    assert.deepEqual(Buffer.concat(w.inOrder()), file);
    assert.equal(w.nextWrite, 12);
    assert.equal(w.complete, true);
  });

  it('asks for the tail of a short read before the next chunk', () => {
    const file = fileOf(40);
    const w = new ReadWindow(0, 40, 2, 8);
    const [a] = takeAll(w);
    reply(w, file, a!, 3);
    assert.deepEqual(w.take(), { at: 3, len: 5 });
    assert.deepEqual(w.inOrder().map((p) => p.length), [3], 'the short piece is already in order');
  });

  it('stops reading ahead when twice the window is waiting for the disk, and resumes as it is written', () => {
    const file = fileOf(100);
    const w = new ReadWindow(0, 100, 2, 4);
    for (let i = 0; i < 2; i++) {
      for (const r of takeAll(w)) reply(w, file, r);
      w.inOrder();
    }
    assert.equal(w.queued, 16);
    assert.equal(w.inFlight, 0);
    assert.equal(w.take(), undefined, '16 bytes queued = 2 × 2 × 4: no more reads');
    w.written(8);
    assert.deepEqual(w.take(), { at: 16, len: 4 });
  });

  it('refills only once an eighth of the window is back, or at once for a short read tail', () => {
    const file = fileOf(16 * 10);
    const w = new ReadWindow(0, 160, 16, 10);
    const reads = takeAll(w);
    assert.equal(reads.length, 16);
    assert.equal(w.wantsRefill(), false);
    reply(w, file, reads[0]!);
    assert.equal(w.wantsRefill(), false, '15 out of 16');
    reply(w, file, reads[1]!);
    assert.equal(w.wantsRefill(), true, '14 out: two back');
    const v = new ReadWindow(0, 160, 16, 10);
    const vr = takeAll(v);
    reply(v, file, vr[0]!, 4);
    assert.equal(v.wantsRefill(), true, 'a tail waits');
  });

  it('after a failure hands out nothing held, so the prefix ends where it was', () => {
    const file = fileOf(12);
    const w = new ReadWindow(0, 12, 3, 4);
    const [a, b] = takeAll(w);
    reply(w, file, b!);
    w.dropReady();
    reply(w, file, a!);
    assert.deepEqual(Buffer.concat(w.inOrder()), file.subarray(0, 4));
    assert.equal(w.nextWrite, 4);
  });

  it('sends a short read\'s tail even when the bytes held after it fill the backpressure budget', () => {
    // fast-check's counterexample: 15 bytes, 2 reads of 3 out, every read one byte short.
    const file = fileOf(15);
    const w = new ReadWindow(0, 15, 2, 3);
    const out: Read[] = [];
    const got: Buffer[] = [];
    for (let steps = 0; !w.complete; steps++) {
      assert.ok(steps < 100, `stalled at byte ${w.nextWrite} with ${w.inFlight} out`);
      if (w.wantsRefill()) out.push(...takeAll(w));
      const r = out.splice(out.length > 1 ? 1 : 0, 1)[0];
      if (!r) break;
      reply(w, file, r, r.len > 1 ? r.len - 1 : 1);
      got.push(...w.inOrder());
    }
    assert.equal(w.nextWrite, 15, `stalled at byte ${w.nextWrite}`);
    assert.deepEqual(Buffer.concat(got), file);
  });

  it('hands out exactly the file from the resume offset, whatever the reply order, short reads and disk pace', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 97 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 50 }),
        (size, fromSeed, chunk, inFlightMax, choices) => {
          const file = fileOf(size);
          const from = size === 0 ? 0 : fromSeed % (size + 1);
          const w = new ReadWindow(from, size, inFlightMax, chunk);
          const out: Read[] = [];
          const got: Buffer[] = [];
          let k = 0;
          const pick = () => choices[k++ % choices.length]!;
          for (let steps = 0; !w.complete || out.length > 0; steps++) {
            assert.ok(steps < 100_000, 'the pull makes progress');
            if (w.wantsRefill()) out.push(...takeAll(w));
            assert.ok(w.inFlight <= inFlightMax);
            assert.equal(w.inFlight, out.length);
            const c = pick();
            if (out.length > 0 && c % 3 !== 0) {
              const [r] = out.splice(c % out.length, 1);
              assert.ok(r!.at >= from && r!.len > 0 && r!.at + r!.len <= size, 'inside [from, size)');
              reply(w, file, r!, 1 + (pick() % r!.len));
              got.push(...w.inOrder());
            } else if (w.queued > 0) w.written(1 + (c % w.queued));
            else if (out.length > 0) {
              const [r] = out.splice(0, 1);
              reply(w, file, r!);
              got.push(...w.inOrder());
            }
          }
          assert.deepEqual(Buffer.concat(got), file.subarray(from));
          assert.equal(w.nextWrite, size);
        },
      ),
      { numRuns: 300 },
    );
  });
});
