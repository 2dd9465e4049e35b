// The range pull's writer (remote/sync/part-appender.ts) on real files: bytes land after the
// resumed prefix in order, and a background datasync starts every syncEvery bytes, never at the end.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PartAppender, SYNC_PIECE } from '../../src/remote/sync/part-appender';

describe('sync: the .part appender', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rent-appender-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('appends each batch after the resumed prefix, in order, and counts its bytes', async () => {
    const path = join(dir, 'f.part');
    writeFileSync(path, 'HEAD-');
    const out = await open(path, 'r+');
    try {
      const a = new PartAppender(out, 5, 100, 0);
      assert.equal(await a.append([Buffer.from('ab'), Buffer.from('cde')]), 5);
      assert.equal(await a.append([Buffer.from('f')]), 1);
      assert.equal(await a.append([]), 0);
    } finally {
      await out.close();
    }
    assert.equal(readFileSync(path, 'utf8'), 'HEAD-abcdef');
  });

  it('starts one background datasync per syncEvery bytes, none once the end is written, none with 0', async () => {
    const path = join(dir, 'g.part');
    const out = await open(path, 'w');
    try {
      const a = new PartAppender(out, 0, 30, 10);
      await a.append([Buffer.alloc(6)]);
      assert.equal(a.syncing, undefined, '6 of 10 bytes');
      await a.append([Buffer.alloc(6)]);
      const s: Promise<void> | undefined = (a as PartAppender).syncing; // not narrowed by the check above
      assert.ok(s instanceof Promise, '12 bytes: a sync under way');
      await s;
      assert.equal(a.syncing, undefined, 'cleared once done');
      await a.append([Buffer.alloc(18)]);
      assert.equal(a.syncing, undefined, 'the end is written: the final fsync is the caller\'s');
      const never = new PartAppender(out, 30, 1000, 0);
      await never.append([Buffer.alloc(100)]);
      assert.equal(never.syncing, undefined);
    } finally {
      await out.close();
    }
    assert.equal(readFileSync(path).length, 130);
  });

  it('writes the same bytes in small synchronous pieces as in one gathered write, pieces larger than 32 KiB included', async () => {
    const batches = [
      [randomBytes(3 * SYNC_PIECE + 7), randomBytes(3), randomBytes(SYNC_PIECE)],
      [randomBytes(261120)],
      [randomBytes(1)],
    ];
    const want = Buffer.concat(['PREFIX', ...batches.flat()].map((b) => (typeof b === 'string' ? Buffer.from(b) : b)));
    for (const syncWrites of [true, false]) {
      const path = join(dir, `p-${syncWrites}.part`);
      writeFileSync(path, 'PREFIX');
      const out = await open(path, 'r+');
      try {
        const a = new PartAppender(out, 6, want.length, 0, { syncWrites });
        for (const b of batches) assert.equal(await a.append(b), b.reduce((n, x) => n + x.length, 0));
        assert.equal(a.writesInPieces, syncWrites, 'fast batches keep the mode they started in');
      } finally {
        await out.close();
      }
      assert.ok(readFileSync(path).equals(want), `syncWrites ${syncWrites}`);
    }
  });

  it('switches to gathered asynchronous writes after a batch that took too long, losing no byte', async () => {
    const path = join(dir, 's.part');
    const out = await open(path, 'w');
    const first = randomBytes(1024 * 1024);
    const second = randomBytes(100_000);
    try {
      // A 1 MiB batch takes more than 0 ms to write: "slow" by this bound.
      const a = new PartAppender(out, 0, 2_000_000, 0, { slowBatchMs: 0 });
      assert.equal(a.writesInPieces, true);
      await a.append([first]);
      assert.equal(a.writesInPieces, false, 'a slow batch must stop the synchronous writes');
      await a.append([second]);
      assert.equal(a.writesInPieces, false);
    } finally {
      await out.close();
    }
    assert.ok(readFileSync(path).equals(Buffer.concat([first, second])));
  });

  it('rejects with the write error in either mode (a file opened read-only)', async () => {
    const path = join(dir, 'ro.part');
    writeFileSync(path, 'x');
    for (const syncWrites of [true, false]) {
      const out = await open(path, 'r');
      try {
        const a = new PartAppender(out, 1, 100, 0, { syncWrites });
        await assert.rejects(a.append([Buffer.from('more')]), (e: NodeJS.ErrnoException) => e.code === 'EBADF');
      } finally {
        await out.close();
      }
    }
    assert.equal(readFileSync(path, 'utf8'), 'x');
  });
});
