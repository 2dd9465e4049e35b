// A sync's conflicts are named at the end (issue 41 bug 12), once for both front ends: the end
// action's and the launch's English detail, the CLI's words in en and zh, not "all verified".
import assert from 'node:assert/strict';
import { syncOutcomeOf } from '../../src/app/runs/endAction';
import { endDetailText } from '../../src/cli/commands/run-words';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readState, writeState } from '../../src/remote/sync/state';

const base = { files: 3, bytes: 10, skipped: [], interrupted: false, verified: 1, unchanged: 2 };

describe('sync conflicts named at the end (app/runs/endAction syncOutcomeOf, cli run-words)', () => {
  it('no conflict: "all verified" as before', () => {
    const o = syncOutcomeOf({ ...base, kept: [], replaced: [] });
    assert.equal(o.detail, '3 file(s) pulled, 3 already here, all verified');
    assert.equal(endDetailText(o, 'zh-cn'), '拉取了 3 个文件，本地已有 3 个，全部已校验');
  });

  it('a kept file and replaced ones: each named (names as data), in English and Chinese; at most 5 names with the rest counted', () => {
    const replaced = Array.from({ length: 7 }, (_, i) => ({ name: `checkpoint-${i}/adapter_model.bin`, previous: `.gpu-rent-previous/checkpoint-${i}/adapter_model.bin` }));
    const o = syncOutcomeOf({ ...base, kept: [{ name: 'notes\u001b[31m.md', boxCopy: 'notes (box copy 2026-12-06).md' }], replaced });
    assert.ok(o.ok);
    assert.doesNotMatch(o.detail, /all verified/);
    assert.match(o.detail, /^3 file\(s\) pulled, 3 already here, verified; kept 1 file\(s\) changed here, the box's version saved beside: "notes\\u001b\[31m\.md" \(box's: "notes \(box copy 2026-12-06\)\.md"\); replaced 7 earlier synced file\(s\) with the box's newer version, the earlier kept in \.gpu-rent-previous\/: "checkpoint-0\/adapter_model\.bin", .*"checkpoint-4\/adapter_model\.bin", and 2 more$/);
    const zh = endDetailText(o, 'zh-cn');
    assert.match(zh, /^拉取了 3 个文件，本地已有 3 个，已校验；保留了 1 个在本地改过的文件，机器上的版本另存在旁边："notes\\u001b\[31m\.md" \(机器上的: "notes \(box copy 2026-12-06\)\.md"\)；用机器上较新的版本替换了 7 个之前同步的文件，旧的保存在 \.gpu-rent-previous\/：.*，另有 2 个$/);
    assert.equal(endDetailText(o, 'en'), o.detail);
  });

  it('skipped files and a conflict: both said', () => {
    const o = syncOutcomeOf({ ...base, skipped: [{}, {}], replaced: [{ name: 'last.ckpt', previous: '.gpu-rent-previous/last.ckpt' }] });
    assert.equal(o.ok, false);
    assert.match(o.detail, /^2 file\(s\) skipped; replaced 1 earlier synced file\(s\) .*"last\.ckpt"$/);
    assert.match(endDetailText(o, 'zh-cn'), /^跳过了 2 个文件；用机器上较新的版本替换了 1 个/);
  });

  it('what sync wrote survives a change of source as `written` (ownership only, never a reason to skip), and is kept until the new source records the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sync-written-'));
    try {
      const rec = { size: 5, mtime: 100, sha256: 'a'.repeat(64) };
      writeFileSync(join(dir, '.gpu-rent-sync.json'), JSON.stringify({ version: 1, source: 'root@h:2222:/r', files: { 'a.bin': rec, 'b.bin': rec } }));
      const same = await readState(dir, 'root@h:2222:/r');
      assert.deepEqual(Object.keys(same.files), ['a.bin', 'b.bin']);
      const moved = await readState(dir, 'root@h:3333:/r');
      assert.deepEqual(moved.files, {}, 'another source: nothing is taken for the box\'s version');
      assert.deepEqual(moved.written, { 'a.bin': rec, 'b.bin': rec });
      moved.files['a.bin'] = { size: 6, mtime: 200, sha256: null };
      await writeState(dir, moved);
      const back = await readState(dir, 'root@h:3333:/r');
      assert.deepEqual(back.written, { 'b.bin': rec }, 'a.bin is recorded for the new source now');
      // A tampered record is dropped.
      writeFileSync(join(dir, '.gpu-rent-sync.json'), JSON.stringify({ version: 1, source: 'x', files: {}, written: { '../evil': rec, ok: { size: -1, mtime: 1, sha256: null } } }));
      assert.deepEqual((await readState(dir, 'y')).written ?? {}, {});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
