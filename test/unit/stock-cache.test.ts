// One caching rule for stock reads (app/platforms/stockCache.ts), kept by the extension in memory
// and by the CLI in files: the same scenario passes over both stores, on real files in a temp
// folder for the CLI's. Rows are the real stock fixture's (stock-bodies.json, SOURCES.md).
import * as assert from 'node:assert';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stock from '../fixtures/platforms/stock-bodies.json';
import { FileStockStore, MemoryStockStore, parseStockEntry, StockCache, type StockStore } from '../../src/app/platforms/stockCache';
import { autodlStock, tencentStock, type StockRow } from '../../src/core/platforms/stock';
import type { Connector } from '../../src/core/platforms/types';

const real: StockRow[] = [...autodlStock(stock.autodlGpuStock.data, '内蒙C区', 100), ...tencentStock(stock.tencentDescribeZoneInstanceConfigInfos, 'ap-guangzhou', 100)];
const pro = { id: 'a', kind: 'autodl-pro' };

function connector(): { c: Connector & { stock: () => Promise<StockRow[]> }; reads: () => number; fail: (f: boolean) => void; asked: unknown[] } {
  let reads = 0;
  let failing = false;
  const asked: unknown[] = [];
  const c = { stock: async (q: unknown) => (reads++, asked.push(q), failing ? Promise.reject(new Error('down')) : real) } as unknown as Connector & { stock: () => Promise<StockRow[]> };
  return { c, reads: () => reads, fail: (f) => (failing = f), asked };
}

describe('stock cache (one rule, two stores)', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gpu-rent-stock-cache-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const stores: [string, () => StockStore][] = [
    ['memory (the extension)', () => new MemoryStockStore()],
    ['files (the CLI)', () => new FileStockStore(join(dir, 'cache'))],
  ];

  for (const [name, make] of stores) {
    describe(`stock cache over ${name}`, () => {
      it('reads an account at most once a minute, shares a read in flight, keeps no failure, and keys by account, platform and regions', async () => {
        let t = 1000;
        const k = connector();
        const cache = new StockCache(make(), () => t);
        const [x, y] = await Promise.all([cache.read(pro, k.c), cache.read(pro, k.c)]);
        assert.deepStrictEqual(x, real);
        assert.deepStrictEqual(y, real);
        t += 59;
        assert.deepStrictEqual(await cache.read(pro, k.c), real);
        assert.strictEqual(k.reads(), 1);
        await cache.read({ id: 'b', kind: 'autodl-pro' }, k.c);
        await cache.read({ id: 'a', kind: 'aliyun-ecs' }, k.c);
        await cache.read(pro, k.c, { regions: ['neimeng-C'] });
        assert.strictEqual(k.reads(), 4, 'another account, another platform under the same id, other regions: each its own read');
        assert.deepStrictEqual(k.asked.at(-1), { regions: ['neimeng-C'] });
        t += 1;
        k.fail(true);
        await assert.rejects(cache.read(pro, k.c), /down/);
        k.fail(false);
        await cache.read(pro, k.c);
        assert.strictEqual(k.reads(), 6, 'a failed read is not kept');
        assert.strictEqual(await cache.readAt(pro), t);
        t += 60;
        assert.strictEqual(await cache.readAt(pro), undefined);
      });
    });
  }

  describe('stock cache: the CLI files', () => {
    it('a read kept by one process answers the next within the minute; files are 0600 in a 0700 folder, named by a hash', async () => {
      const store = () => new FileStockStore(join(dir, 'cache'));
      const k = connector();
      await new StockCache(store(), () => 1000).read({ id: '../../etc/passwd', kind: 'autodl-pro' }, k.c);
      const later = connector();
      assert.deepStrictEqual(await new StockCache(store(), () => 1059).read({ id: '../../etc/passwd', kind: 'autodl-pro' }, later.c), real);
      assert.strictEqual(later.reads(), 0, 'the second process read the file, not the platform');
      await new StockCache(store(), () => 1060).read({ id: '../../etc/passwd', kind: 'autodl-pro' }, later.c);
      assert.strictEqual(later.reads(), 1, 'a minute later the platform is read again');
      const files = await readdir(join(dir, 'cache'));
      assert.strictEqual(files.length, 1);
      assert.match(files[0]!, /^stock-[0-9a-f]{32}\.json$/);
      assert.strictEqual((await stat(join(dir, 'cache', files[0]!))).mode & 0o777, 0o600);
      assert.strictEqual((await stat(join(dir, 'cache'))).mode & 0o777, 0o700);
      assert.deepStrictEqual(JSON.parse(await readFile(join(dir, 'cache', files[0]!), 'utf8')), { at: 1060, rows: real });
    });

    it('a kept file that is not a stock read (bad row, future time, too big, not JSON) is no entry: the account is read again', async () => {
      const s = new FileStockStore(join(dir, 'cache'));
      const key = 'a\u0000autodl-pro\u0000';
      await s.put(key, { at: 1000, rows: real });
      const path = s.pathOf(key);
      const bad: [string, string][] = [
        ['a row with an unknown status', JSON.stringify({ at: 1000, rows: [{ ...real[0], status: 'plenty' }] })],
        ['a row without a card', JSON.stringify({ at: 1000, rows: [{ region: 'r', status: 'free', source: 'autodl-gpu_stock', readAt: 1 }] })],
        ['a negative free count', JSON.stringify({ at: 1000, rows: [{ ...real[0], free: -3 }] })],
        ['no time', JSON.stringify({ rows: real })],
        ['rows not a list', JSON.stringify({ at: 1000, rows: { 0: real[0] } })],
        ['more rows than a read keeps', JSON.stringify({ at: 1000, rows: Array.from({ length: 2001 }, () => real[0]) })],
        ['not JSON', '{"at": 1000, "rows": ['],
        ['over 4 MiB', JSON.stringify({ at: 1000, rows: real, pad: 'x'.repeat(4 * 1024 * 1024) })],
      ];
      for (const [what, text] of bad) {
        await writeFile(path, text);
        const k = connector();
        await new StockCache(s, () => 1010).read({ id: 'a', kind: 'autodl-pro' }, k.c);
        assert.strictEqual(k.reads(), 1, what);
      }
      // A time ahead of the clock (a clock set back) is not trusted.
      await s.put(key, { at: 2000, rows: real });
      const k = connector();
      await new StockCache(s, () => 1010).read({ id: 'a', kind: 'autodl-pro' }, k.c);
      assert.strictEqual(k.reads(), 1, 'a future time');
      // A good file with extra keys still answers, without them.
      await writeFile(path, JSON.stringify({ at: 1000, rows: real.map((r) => ({ ...r, extra: '<script>' })), more: 1 }));
      assert.deepStrictEqual(await s.get(key), { at: 1000, rows: real });
      assert.deepStrictEqual(parseStockEntry({ at: 5, rows: [] }), { at: 5, rows: [] });
    });
  });
});
