// The planner's local facts on real files: a folder that is not there locally is looked up once,
// not once per file, and the answer is the same as one lstat per listed file would give.
import * as assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
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
    // The quick path for plain names gives join()'s answer, and every other name still goes
    // through join() and the guard: random names from parts that include '', '.', '..' and dots.
    const parts = ['a', 'b.bin', '', '.', '..', '...', '.x', 'x.', ' ', '中'];
    for (let n = 0; n < 3000; n++) {
      const name = Array.from({ length: 1 + (n % 4) }, (_v, i) => parts[(n * 7 + i * 3 + (n >> 3)) % parts.length]!).join('/');
      for (const r of [root, `${root}/`, `${root}//`, rel]) {
        // What localPathOf did for every name before the quick path.
        const want = join(r, ...name.split('/'));
        const inside = isAbsolute(r) ? want.startsWith(resolve(r) + '/') : resolve(want).startsWith(resolve(r) + '/');
        if (inside) assert.equal(localPathOf(r, name), want, `${r} + ${name}`);
        else assert.throws(() => localPathOf(r, name), /refusing to write outside/, `${r} + ${name}`);
      }
    }
  });
});
