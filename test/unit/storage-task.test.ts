// The task file's store fields: `data: [{from: NAME/PREFIX, remote: DIR}]` (the box pulls it,
// verified) and `checkpoints.store: NAME/PREFIX` (the box uploads there with a grant). Checked
// with the same rules as `gpu-rent storage` (core/storage/names.ts): a prefix never climbs out.
import { strict as assert } from 'node:assert';
import { parseTaskFile } from '../../src/core/task/schema';

describe('task file: data.from and checkpoints.store', () => {
  it('reads both into the task', () => {
    const r = parseTaskFile('name: lora\nrun: python train.py\ndata:\n  - {from: oss/datasets/alpaca, remote: ~/data}\ncheckpoints:\n  remote: out\n  local: ./ckpt\n  store: oss/runs/lora\n');
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    const t = r.tasks[0]!;
    assert.deepEqual(t.data, [{ from: 'oss/datasets/alpaca', remote: '~/data' }]);
    assert.equal(t.checkpoints?.store, 'oss/runs/lora');
  });

  it('refuses a prefix that climbs out, a bad store name, a store for the whole bucket as the checkpoint store, and two sources at once', () => {
    const cases: [string, string, RegExp][] = [
      ['data:\n  - {from: "oss/../x", remote: ~/d}\n', 'data[0].from', /data\.from is NAME\/PREFIX/],
      ['data:\n  - {from: "bad name/x", remote: ~/d}\n', 'data[0].from', /NAME\/PREFIX/],
      ['data:\n  - {from: oss/x, fetch: "wget u", remote: ~/d}\n', 'data[0]', /one of push, fetch or from/],
      ['checkpoints: {remote: out, local: ./c, store: oss}\n', 'checkpoints.store', /checkpoints\.store is NAME\/PREFIX/],
      ['checkpoints: {remote: out, local: ./c, store: "oss//abs"}\n', 'checkpoints.store', /NAME\/PREFIX/],
    ];
    for (const [yaml, field, re] of cases) {
      const r = parseTaskFile(`name: a\nrun: x\n${yaml}`);
      assert.ok(!r.ok, yaml);
      const e = r.errors.find((x) => x.field === field);
      assert.ok(e, `${yaml}: ${JSON.stringify(r.errors)}`);
      assert.match(e.message, re);
    }
  });
});
