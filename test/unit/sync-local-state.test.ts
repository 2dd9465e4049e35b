// The planner's local facts on real files: a folder that is not there locally is looked up once,
// not once per file, and the answer is the same as one lstat per listed file would give.
import * as assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gatherLocalState } from '../../src/remote/sync/local-state';
import { localPathOf } from '../../src/remote/sync/pull-common';
import type { RemoteListing } from '../../src/remote/sync/list';

describe('sync local state (real files)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'sync-local-state-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const listing = (rels: string[]): RemoteListing => ({ root: '/box/ckpt', files: rels.map((rel) => ({ rel, abs: `/box/ckpt/${rel}`, size: 1, mtime: 1 })), skipped: [], unlisted: [] });

  it('matches one lstat per file: files in missing folders, present ones, a folder that is a link, a file where a folder is listed', async () => {
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'x.bin'), 'abc');
    writeFileSync(join(root, 'top.bin'), 'hello');
    const elsewhere = mkdtempSync(join(tmpdir(), 'sync-local-state-link-'));
    try {
      writeFileSync(join(elsewhere, 'w.bin'), 'wwww');
      symlinkSync(elsewhere, join(root, 'l'));
      writeFileSync(join(root, 'f'), 'not a folder');
      const rels = ['a/x.bin', 'a/y.bin', 'b/z.bin', 'b/c/d.bin', 'top.bin', 'l/w.bin', 'f/inside.bin', 'missing.bin'];
      for (let i = 0; i < 500; i++) rels.push(`step-${i % 5}/shard-${i}.bin`);
      mkdirSync(join(root, 'step-3'));
      writeFileSync(join(root, 'step-3', 'shard-3.bin'), '33');
      const got = await gatherLocalState(root, listing(rels), {}, false);
      const want = new Map<string, number>();
      for (const rel of rels) {
        try {
          const s = lstatSync(join(root, ...rel.split('/')), { throwIfNoEntry: false });
          if (s) want.set(rel, s.size);
        } catch {
          /* ENOTDIR under the file f: not there */
        }
      }
      assert.deepEqual(new Map([...got.stats].map(([k, v]) => [k, v.size])), want);
      // What is there was seen (the link's target through the link, as a per-file lstat does).
      assert.deepEqual([...want.keys()].sort(), ['a/x.bin', 'l/w.bin', 'step-3/shard-3.bin', 'top.bin']);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('recorded files are looked up too for --delete, in missing folders as well', async () => {
    mkdirSync(join(root, 'old'));
    writeFileSync(join(root, 'old', 'kept.bin'), 'k');
    const got = await gatherLocalState(root, listing(['new/n.bin']), { 'old/kept.bin': { size: 1, mtime: 1, sha256: 'x'.repeat(64) }, 'gone/g.bin': { size: 1, mtime: 1, sha256: 'y'.repeat(64) } }, true);
    assert.deepEqual([...got.stats.keys()].sort(), ['old/kept.bin']);
  });

  it('localPathOf: the path inside the folder for an absolute or a relative root; a way out is refused', () => {
    assert.equal(localPathOf(root, 'a/b.bin'), join(root, 'a', 'b.bin'));
    assert.equal(localPathOf(`${root}/`, 'a/b.bin'), join(root, 'a', 'b.bin'));
    const rel = relative(process.cwd(), root);
    assert.equal(localPathOf(rel, 'a/b.bin'), join(rel, 'a', 'b.bin'));
    for (const bad of ['../x.bin', 'a/../../x.bin', '', '.']) {
      assert.throws(() => localPathOf(root, bad), /refusing to write outside/);
      assert.throws(() => localPathOf(rel, bad), /refusing to write outside/);
    }
    // Another root right after (the one remembered changes with it).
    const other = `${root}-other`;
    assert.equal(localPathOf(other, 'a.bin'), join(other, 'a.bin'));
    assert.throws(() => localPathOf(other, '../x.bin'), /refusing to write outside/);
    assert.throws(() => localPathOf(root, `../${root.split('/').pop()}-other/a.bin`), /refusing to write outside/);
  });
});
