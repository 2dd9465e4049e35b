// Free cards: the three platforms' stock answers (stock-bodies.json, real shapes named in
// SOURCES.md) and the console list row (autodl-web-list-row.json) into rows; hostile input is
// bounded; reads region by region (the once-a-minute cache: stock-cache.test.ts).
import * as assert from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import stock from '../fixtures/platforms/stock-bodies.json';
import webRow from '../fixtures/platforms/autodl-web-list-row.json';
import { aliyunStock, AUTODL_DATA_CENTERS, AUTODL_POOL_SPEC, autodlConsoleStock, autodlStock, cardMatches, filterStock, freeText, isAliyunGpuType, MAX_STOCK_ROWS, sortStock, stockJson, tencentStock, type StockRow } from '../../src/core/platforms/stock';
import { perRegion } from '../../src/app/platforms/stock';
import { PlatformError } from '../../src/app/platforms/errors';

describe('stock: platform answers into rows', () => {
  it('AutoDL gpu_stock: one row per card with free/total and no price', () => {
    const rows = autodlStock(stock.autodlGpuStock.data, '内蒙C区', 100);
    assert.deepStrictEqual(rows, [
      { card: 'RTX 4090', region: '内蒙C区', free: 3, total: 6, status: 'free', source: 'autodl-gpu_stock', readAt: 100 },
      { card: 'RTX 3090', region: '内蒙C区', free: 1, total: 4, status: 'free', source: 'autodl-gpu_stock', readAt: 100 },
    ]);
    // The object form (one object of cards) reads the same; junk entries are skipped.
    assert.strictEqual(autodlStock({ 'RTX 4090': { idle_gpu_num: 0, total_gpu_num: 8 }, bad: 'x', neg: { idle_gpu_num: -1 } }, 'r', 1).map((r) => `${r.card}:${r.status}:${freeText(r)}`).join(','), 'RTX 4090:soldOut:0/8,neg:unknown:?');
  });

  it('AutoDL console row: free GPUs on the host of the instance', () => {
    assert.deepStrictEqual(autodlConsoleStock([webRow], 7), [{ card: 'RTX 3080 Ti', region: '北京A区', zone: '351机', free: 1, total: 1, status: 'free', source: 'autodl-console-list', readAt: 7 }]);
  });

  it('阿里云 DescribeAvailableResource: GPU instance types only, Available or SoldOut, no count', () => {
    const rows = aliyunStock(stock.aliyunDescribeAvailableResource, 'cn-hangzhou', 5);
    assert.deepStrictEqual(rows.map((r) => [r.card, r.zone, r.status, r.free, r.priceFenPerHour]), [['ecs.gn7i-c8g1.2xlarge', 'cn-hangzhou-i', 'free', undefined, undefined], ['ecs.gn6i-c4g1.xlarge', 'cn-hangzhou-i', 'soldOut', undefined, undefined]]);
    assert.deepStrictEqual(['ecs.gn7i-c8g1.2xlarge', 'ecs.sgn7i-vws-m2.xlarge', 'ecs.ebmgn7e.32xlarge', 'ecs.vgn6i-m4.xlarge', 'ecs.g7.large', 'ecs.c7.large', 'gn7'].map(isAliyunGpuType), [true, true, true, true, false, false, false]);
  });

  it('腾讯云 DescribeZoneInstanceConfigInfos: GPU types only, SELL / SOLD_OUT with the discounted hourly price', () => {
    const rows = tencentStock(stock.tencentDescribeZoneInstanceConfigInfos, 'ap-guangzhou', 9);
    assert.deepStrictEqual(rows.map((r) => [r.card, r.zone, r.status, r.priceFenPerHour, r.gpus, freeText(r)]), [
      ['GN7.2XLARGE32 (GPU计算型GN7)', 'ap-guangzhou-3', 'free', 868, 1, '?'],
      ['GN10Xp.2XLARGE40 (GPU计算型GN10Xp)', 'ap-guangzhou-3', 'soldOut', 3020, 1, '0'],
    ]);
  });

  it('hostile answers are bounded: a flood of types is cut, control characters leave names, wrong types are dropped', () => {
    const flood = Array.from({ length: 10_000 }, (_, i) => ({ [`card${i}`]: { idle_gpu_num: 1, total_gpu_num: 1 } }));
    assert.strictEqual(autodlStock(flood, 'r', 1).length, MAX_STOCK_ROWS);
    const evil = autodlStock([{ 'RTX\u001b[31m 4090\u202e': { idle_gpu_num: 1e12, total_gpu_num: '5' } }], 'r', 1)[0]!;
    assert.strictEqual(evil.card, 'RTX [31m 4090');
    assert.deepStrictEqual([evil.free, evil.total, evil.status], [undefined, undefined, 'unknown']);
    assert.deepStrictEqual(tencentStock({ InstanceTypeQuotaSet: [{ InstanceType: 'X', Gpu: 1e9, Status: 'SELL' }, { InstanceType: 'Y', GpuCount: 2, Status: 'SELL', Price: { UnitPriceDiscount: 'abc' } }] }, 'r', 1).map((r) => [r.card, r.priceFenPerHour]), [['Y', undefined]]);
    assert.deepStrictEqual(aliyunStock({ AvailableZones: 'x' }, 'r', 1), []);
    assert.deepStrictEqual(autodlStock(null, 'r', 1), []);
  });

  it('--card matches loosely, --region by region or zone, free first then by card', () => {
    assert.deepStrictEqual(['RTX 4090', '4090-48G', 'rtx4090', 'RTX 3090'].map((c) => cardMatches(c, '4090')), [true, true, true, false]);
    const rows: StockRow[] = [
      { card: 'B', region: 'r1', status: 'soldOut', source: 'autodl-gpu_stock', readAt: 1 },
      { card: 'A', region: 'r2', zone: 'r2-a', status: 'free', source: 'autodl-gpu_stock', readAt: 1 },
      { card: 'C', region: 'r1', status: 'unknown', source: 'autodl-gpu_stock', readAt: 1 },
    ];
    assert.deepStrictEqual(sortStock(rows).map((r) => r.card), ['A', 'C', 'B']);
    assert.deepStrictEqual(filterStock(rows, { region: 'r2-a' }).map((r) => r.card), ['A']);
    assert.deepStrictEqual(filterStock(rows, { freeOnly: true }).map((r) => r.card), ['A']);
    assert.deepStrictEqual(Object.keys(stockJson(rows[0]!)), ['card', 'proSpec', 'region', 'zone', 'instanceType', 'status', 'free', 'total', 'gpus', 'priceFenPerHour', 'source', 'readAt']);
  });
});

describe('stock: reads', () => {
  const row = (region: string): StockRow => ({ card: 'c', region, status: 'free', source: 'autodl-gpu_stock', readAt: 1 });

  it('a failing region is left out; every region failing is an error; a refused key fails the whole read', async () => {
    assert.deepStrictEqual((await perRegion(['a', 'b'], async (r) => (r === 'a' ? Promise.reject(new Error('x')) : [row(r)]))).map((r) => r.region), ['b']);
    await assert.rejects(perRegion(['a', 'b'], async () => Promise.reject(new Error('down'))), /down/);
    const refused = new PlatformError({ platform: 'aliyun-ecs', kind: 'auth', code: 'InvalidAccessKeyId.NotFound', message: '' });
    await assert.rejects(perRegion(['a', 'b'], async (r) => (r === 'a' ? Promise.reject(refused) : [row(r)])), /InvalidAccessKeyId/);
  });

  it('AutoDL: the data centers and the pool names mapped to Pro specs are the sources\' tables, and nothing else is mapped', () => {
    const elastic = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'platforms', 'autodl-elastic-appendix.json'), 'utf8')) as { data_centers: { name: string; region_sign: string }[]; stock_names_by_spec: Record<string, string> };
    assert.deepStrictEqual(AUTODL_DATA_CENTERS, Object.fromEntries(elastic.data_centers.map((d) => [d.region_sign, d.name])));
    assert.deepStrictEqual(AUTODL_POOL_SPEC, Object.fromEntries(Object.entries(elastic.stock_names_by_spec).map(([spec, name]) => [name, spec])));
    const rows = autodlStock([{ 'RTX 4090D': { idle_gpu_num: 1, total_gpu_num: 2 } }, { 'RTX 4090': { idle_gpu_num: 1, total_gpu_num: 2 } }], 'westDC3', 1);
    assert.deepStrictEqual(rows.map((r) => [r.card, r.proSpec]), [['RTX 4090D', '4090D'], ['RTX 4090', undefined]]);
    assert.deepStrictEqual(filterStock(rows, { card: '4090D' }).map((r) => r.card), ['RTX 4090D']);
  });
});
