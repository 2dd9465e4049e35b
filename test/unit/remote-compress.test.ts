// Which files push and pull compress in flight: weights, archives and media never (by name,
// then by their first bytes), text yes, random bytes no; the compressed-bytes cap a pull
// allows covers what gzip can need for incompressible data and no more than a little over it.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { worthCompressing } from '../../src/remote/sync/compress';
import { wireCap } from '../../src/remote/sync/pull-gzip';

const text = Buffer.from(Array.from({ length: 2000 }, (_, i) => JSON.stringify({ id: i, instruction: '把这段话翻译成英文', output: `第${i}步的损失是 ${(i % 97) / 10}` })).join('\n'));

describe('compression in flight: what is worth it', () => {
  it('text and CSV yes; random bytes no', () => {
    assert.equal(worthCompressing('data/train.jsonl', text.subarray(0, 65536)), true);
    assert.equal(worthCompressing('tokenizer.json', text.subarray(0, 4096)), true);
    assert.equal(worthCompressing('data/blob', randomBytes(65536)), false);
  });

  it('weights, archives, images and video by name, whatever their first bytes', () => {
    for (const name of ['model.safetensors', 'pytorch_model.bin', 'ckpt/step-500.pt', 'a.PTH', 'x.ckpt', 'data.tar.gz', 'd.zst', 'img/cat.PNG', 'clip.mp4', 'shards.parquet', 'arr.npz'])
      assert.equal(worthCompressing(name, text.subarray(0, 65536)), false, name);
  });

  it('compressed formats by their magic bytes under any name', () => {
    const gz = gzipSync(text);
    assert.equal(worthCompressing('data/blob', gz.subarray(0, 65536)), false);
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), text.subarray(0, 60000)]);
    assert.equal(worthCompressing('export', zip), false);
    assert.equal(worthCompressing('empty.txt', Buffer.alloc(0)), false);
  });

  it("a pull's compressed-bytes cap covers gzip of random data, and is a small margin over the size", () => {
    for (const n of [1, 1024 * 1024, 16 * 1024 * 1024 + 3]) {
      const z = gzipSync(randomBytes(n), { level: 4 });
      assert.ok(z.length <= wireCap(n), `${n}: ${z.length} > ${wireCap(n)}`);
      assert.ok(wireCap(n) <= n * 1.002 + 64 * 1024 + 1);
    }
  });
});
