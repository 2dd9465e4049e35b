// The range pull's writer (remote/sync/part-appender.ts) on real files: bytes land after the
// resumed prefix in order, and a background datasync starts every syncEvery bytes, never at the end.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartAppender } from '../../src/remote/sync/part-appender';

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
});
