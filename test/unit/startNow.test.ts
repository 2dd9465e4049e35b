// Can a quote row start now: the matcher (core/startNow.ts) on the stock rows read from the
// real shapes in test/fixtures/platforms (stock-bodies.json, autodl-web-list-row.json; sources in
// SOURCES.md), against the built-in catalog's own quote rows; and the mark's words (quote-notes).
import * as assert from 'node:assert';
import stock from '../fixtures/platforms/stock-bodies.json';
import webRow from '../fixtures/platforms/autodl-web-list-row.json';
import { builtinCatalog } from '../../src/core/catalog';
import { quoteCatalog } from '../../src/core/cost';
import { aliyunStock, autodlConsoleStock, autodlStock, tencentStock, type StockRow } from '../../src/core/platforms/stock';
import { START_NOW_TEXT, startNowCode, startNowText } from '../../src/core/quote-notes';
import { startNow, stockCard, type StockReading } from '../../src/core/startNow';

const autodl = autodlStock(stock.autodlGpuStock.data, '内蒙C区', 100);
const aliyun = aliyunStock(stock.aliyunDescribeAvailableResource, 'cn-hangzhou', 100);
const tencent = tencentStock(stock.tencentDescribeZoneInstanceConfigInfos, 'ap-guangzhou', 100);
const readings: StockReading[] = [
  { account: 'pro', kind: 'autodl-pro', ok: true, rows: autodl },
  { account: 'ali', kind: 'aliyun-ecs', ok: true, rows: aliyun },
  { account: 'tc', kind: 'tencent-cvm', ok: true, rows: tencent },
];

describe('startNow: catalog rows × stock readings', () => {
  it('card names as the platforms write them map onto catalog card ids (and counts for cloud types)', () => {
    assert.deepStrictEqual(autodl.map((r) => stockCard(r)), [{ card: 'rtx4090' }, { card: 'rtx3090' }]);
    // 阿里云: gn7i is the A10, gn6i the T4 (the catalog's own T4 row names ecs.gn6i-c4g1.xlarge); one card each.
    assert.deepStrictEqual(aliyun.map((r) => stockCard(r)), [{ card: 'a10', gpus: 1 }, { card: 't4', gpus: 1 }]);
    // 腾讯云: GN7 is the T4 family, GN10Xp the V100 32 GB; the count is the reply's GpuCount.
    assert.deepStrictEqual(tencent.map((r) => stockCard(r)), [{ card: 't4', gpus: 1 }, { card: 'v100-32g', gpus: 1 }]);
    // The console row's "RTX 3080 Ti" is not the catalog's 3080; a 48 GB 4090 is not the 24 GB one.
    assert.strictEqual(stockCard(autodlConsoleStock([webRow], 1)[0]!), undefined);
    const named = (card: string): StockRow => ({ card, region: 'r', status: 'free', free: 1, source: 'autodl-gpu_stock', readAt: 1 });
    assert.deepStrictEqual(['RTX 4090', '4090', 'NVIDIA GeForce RTX 4090', 'RTX 4090-48G', 'RTX 4090D', 'A100-SXM4-80GB', 'H20'].map((n) => stockCard(named(n))?.card), ['rtx4090', 'rtx4090', 'rtx4090', undefined, undefined, 'a100-80g', undefined]);
    // Bigger cloud types: N × 4 vCPUs over the per-GPU ratio (gn6i-c24g1.24xlarge: 96 / 24 = 4 T4).
    const ali = (t: string): StockRow => ({ card: t, instanceType: t, region: 'r', status: 'free', source: 'aliyun-DescribeAvailableResource', readAt: 1 });
    assert.deepStrictEqual(['ecs.gn6i-c24g1.24xlarge', 'ecs.gn7i-c32g1.32xlarge', 'ecs.vgn6i-m4.xlarge', 'ecs.gn7i-c8g1.2xlarge.bad'].map((t) => stockCard(ali(t))), [{ card: 't4', gpus: 4 }, { card: 'a10', gpus: 4 }, undefined, undefined]);
  });

  it('each family row is the cloud\'s own table (SOURCES.md "Instance family → card"); a family no page names reads ?', () => {
    const ali = (t: string): StockRow => ({ card: t, instanceType: t, region: 'r', status: 'free', source: 'aliyun-DescribeAvailableResource', readAt: 1 });
    // Rows of 阿里云's GPU 计算型实例规格族 tables, type → (GPU × n), copied from the page.
    const table: [string, string, number][] = [
      ['ecs.gn6i-c4g1.xlarge', 't4', 1], ['ecs.gn6i-c24g1.12xlarge', 't4', 2], ['ecs.gn6i-c24g1.24xlarge', 't4', 4],
      ['ecs.gn6v-c8g1.2xlarge', 'v100-16g', 1], ['ecs.gn6v-c8g1.4xlarge', 'v100-16g', 2],
      ['ecs.gn7i-c8g1.2xlarge', 'a10', 1], ['ecs.gn7i-c48g1.12xlarge', 'a10', 1], ['ecs.gn7i-c32g1.16xlarge', 'a10', 2],
    ];
    assert.deepStrictEqual(table.map(([t]) => stockCard(ali(t))), table.map(([, card, gpus]) => ({ card, gpus })));
    // gn7e: the pages give 80GB × n and no card name, so no catalog card is claimed for it; a
    // family name that is an Object key (constructor) is no card either.
    assert.deepStrictEqual(['ecs.gn7e-c16g1.4xlarge', 'ecs.gn7e-c16g1.32xlarge', 'ecs.constructor-c4g1.xlarge'].map((t) => stockCard(ali(t))), [undefined, undefined, undefined]);
    // 腾讯云: GN7 T4, GN10Xp V100 32 GB; any other family (GT4, PNV4) is not claimed.
    const tc = (t: string): StockRow => ({ card: t, instanceType: t, region: 'r', status: 'free', gpus: 1, source: 'tencent-DescribeZoneInstanceConfigInfos', readAt: 1 });
    assert.deepStrictEqual(['GN7.2XLARGE32', 'GN10Xp.2XLARGE40', 'GT4.4XLARGE96', 'PNV4.7XLARGE116'].map((t) => stockCard(tc(t))?.card), ['t4', 'v100-32g', undefined, undefined]);
  });

  it('every row of the built-in quote gets free / none / unknown from the three real readings', () => {
    const rows = quoteCatalog(builtinCatalog(), { gpuHours: 15, includeSpot: true }).rows;
    const by = new Map(rows.map((r) => [`${r.platform}/${r.card}/${r.mode}`, startNow(r, readings)]));
    // AutoDL: both cards listed free in 内蒙C区 with their counts, no price.
    assert.deepStrictEqual(by.get('autodl/rtx3090/hour'), { state: 'free', places: [{ account: 'pro', region: '内蒙C区', free: 1 }] });
    assert.deepStrictEqual(by.get('autodl/rtx4090/hour'), { state: 'free', places: [{ account: 'pro', region: '内蒙C区', free: 3 }] });
    // 阿里云's T4 type is SoldOut in cn-hangzhou-i; its A100 80 GB is in no reading.
    assert.deepStrictEqual(by.get('aliyun/t4/hour'), { state: 'none' });
    assert.deepStrictEqual(by.get('aliyun/a100-80g/hour'), { state: 'unknown', reason: 'notListed' });
    // 腾讯云's GN7 T4 sells, with the reply's discounted price (8.68 yuan = 868 fen).
    assert.deepStrictEqual(by.get('tencent/t4/hour'), { state: 'free', places: [{ account: 'tc', region: 'ap-guangzhou', zone: 'ap-guangzhou-3', instanceType: 'GN7.2XLARGE32', priceFenPerHour: 868 }] });
    // Platforms without an account say nothing.
    const lanrui = rows.find((r) => r.platform !== 'autodl' && r.platform !== 'aliyun' && r.platform !== 'tencent')!;
    assert.deepStrictEqual(startNow(lanrui, readings), { state: 'unknown', reason: 'noAccount' });
  });

  it('more cards than are free is none; a failed read is unknown unless another account has it free', () => {
    // The reading has 1 free 3090 and 3 free 4090s in the region.
    assert.deepStrictEqual(startNow({ platform: 'autodl', card: 'rtx3090', gpus: 2 }, readings), { state: 'none' });
    assert.strictEqual(startNow({ platform: 'autodl', card: 'rtx4090', gpus: 3 }, readings).state, 'free');
    // A 2-card 腾讯云 T4 row: the reading has only the 1-card type.
    assert.deepStrictEqual(startNow({ platform: 'tencent', card: 't4', gpus: 2 }, readings), { state: 'unknown', reason: 'notListed' });
    const failed: StockReading = { account: 'web', kind: 'autodl-web', ok: false };
    assert.deepStrictEqual(startNow({ platform: 'autodl', card: 'rtx3090', gpus: 1 }, [failed]), { state: 'unknown', reason: 'readFailed' });
    assert.strictEqual(startNow({ platform: 'autodl', card: 'rtx3090', gpus: 1 }, [failed, readings[0]!]).state, 'free');
    // A sold-out reading beside a failed one cannot say none: the failed account may have one.
    const sold = autodlStock([{ 'RTX 3090': { idle_gpu_num: 0, total_gpu_num: 4 } }], '西北B区', 1);
    assert.deepStrictEqual(startNow({ platform: 'autodl', card: 'rtx3090', gpus: 1 }, [failed, { account: 'pro', kind: 'autodl-pro', ok: true, rows: sold }]), { state: 'unknown', reason: 'readFailed' });
    assert.deepStrictEqual(startNow({ platform: 'autodl', card: 'rtx3090', gpus: 1 }, [{ account: 'pro', kind: 'autodl-pro', ok: true, rows: sold }]), { state: 'none' });
    // Places: most free first, across accounts and regions.
    const two = autodlStock(stock.autodlGpuStock.data, '西北B区', 1);
    const s = startNow({ platform: 'autodl', card: 'rtx4090', gpus: 1 }, [readings[0]!, { account: 'web', kind: 'autodl-web', ok: true, rows: [...sold, ...two.map((r) => ({ ...r, free: 5 }))] }]);
    assert.deepStrictEqual(s.state === 'free' && s.places.map((p) => `${p.account}:${p.region}:${p.free}`), ['web:西北B区:5', 'pro:内蒙C区:3']);
  });

  it('the mark in English and Chinese, with the places (count or price) and how many more', () => {
    const free = startNow({ platform: 'autodl', card: 'rtx4090', gpus: 1 }, readings);
    assert.strictEqual(startNowText(free, 'en'), 'can start now (3 free in 内蒙C区)');
    assert.strictEqual(startNowText(free, 'zh-cn'), '可立即开机（内蒙C区 空闲 3 张）');
    const tc = startNow({ platform: 'tencent', card: 't4', gpus: 1 }, readings);
    assert.strictEqual(startNowText(tc, 'en'), 'can start now (available in ap-guangzhou ap-guangzhou-3, ¥8.68/h)');
    assert.strictEqual(startNowText(tc, 'zh-cn'), '可立即开机（ap-guangzhou ap-guangzhou-3 有货，¥8.68/小时）');
    assert.strictEqual(startNowText({ state: 'none' }, 'zh-cn'), '暂无空闲卡');
    assert.strictEqual(startNowText({ state: 'none' }, 'en'), 'none free now');
    assert.strictEqual(startNowText({ state: 'unknown', reason: 'noAccount' }, 'en'), undefined);
    assert.strictEqual(startNowText({ state: 'unknown', reason: 'readFailed' }, 'en'), START_NOW_TEXT.startNowReadFailed.en);
    const many = { state: 'free' as const, places: ['a', 'b', 'c', 'd'].map((r) => ({ account: 'x', region: r, free: 1 })) };
    assert.strictEqual(startNowText(many, 'en'), 'can start now (1 free in a; 1 free in b; 2 more)');
    // A platform's region text with a replacement pattern stays text.
    assert.strictEqual(startNowText({ state: 'free', places: [{ account: 'x', region: '$&$1', free: 2 }] }, 'en'), 'can start now (2 free in $&$1)');
    assert.deepStrictEqual((['free', 'none'] as const).map((st) => startNowCode(st === 'free' ? free : { state: 'none' })), ['startNowFree', 'startNowNone']);
  });
});
