// The built-in catalog against the field report, and user overrides with their errors.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { builtinCatalog, dating, findPlatform, formatDating, mergeCatalog, parseCatalog, WARNING_CODES, WARNING_TEXT, type Platform } from '../../src/core/catalog';
import { builtinCatalogJson } from '../../src/core/catalog/data';

const cat = builtinCatalog();
const P = (id: string): Platform => {
  const p = findPlatform(cat, id);
  assert.ok(p, id);
  return p;
};
const price = (id: string, card: string, mode: string) => P(id).prices.find((x) => x.card === card && x.mode === mode)?.price;
const yuan = (r: { min: number; max: number } | null | undefined) => (r ? [r.min / 100, r.max / 100] : r);

describe('catalog: built-in data', () => {
  it('names every platform of the report with ascii ids, Chinese and English names', () => {
    const ids = ['autodl', 'lanrui', 'mita', 'matpool', 'aliyun', 'tencent', 'huawei', 'volcengine', 'qingjiao', 'zanqi', 'aistudio', 'colab', 'reseller'];
    assert.deepEqual(cat.platforms.map((p) => p.id).sort(), [...ids].sort());
    for (const p of cat.platforms) {
      assert.match(p.id, /^[a-z][a-z0-9-]*$/);
      assert.ok(p.name.zh && p.name.en, p.id);
    }
    assert.equal(P('lanrui').name.zh, '揽睿星舟');
    assert.equal(P('mita').name.zh, '秘塔智算');
    assert.equal(P('matpool').name.zh, '矩池云');
    assert.equal(findPlatform(cat, '秘塔智算')?.id, 'mita');
  });

  // Changed deliberately (issue 10): the report gives no date ("价格采集时间是我实测那一周"), so no
  // figure carries the invented 2024-03 any more; each shows "undated (field report test week)".
  it('gives every figure a source and no invented date: undated (field report test week)', () => {
    assert.equal(cat.asOf, null);
    for (const p of cat.platforms) {
      const figures = [p, ...p.prices, p.dataDisk, p.noGpuMode, p.bandwidthMbps, p.queue, p.access, p.image, ...(p.spot ? [p.spot] : []), ...(p.releaseAfterStoppedDays ? [p.releaseAfterStoppedDays] : []), ...(p.freeQuotaHours ? [p.freeQuotaHours] : [])];
      for (const f of figures) {
        assert.ok(f.source.length > 0, `${p.id}: source`);
        assert.equal(f.asOf, null, `${p.id}: asOf`);
      }
    }
    for (const pr of P('autodl').prices) assert.equal(formatDating(dating(pr)), 'undated (field report test week)');
    assert.match(P('autodl').prices.find((x) => x.card === 'rtx3090' && x.mode === 'hour')!.source, /§1/);
  });

  it('holds the report\'s prices, ranges as ranges', () => {
    assert.deepEqual(yuan(price('autodl', 'rtx3090', 'hour')), [1.98, 1.98]);
    assert.deepEqual(yuan(price('autodl', 'rtx3090', 'week')), [250, 300]);
    assert.deepEqual(yuan(price('autodl', 'rtx3090', 'month')), [700, 900]);
    assert.deepEqual(yuan(price('autodl', 'rtx4090', 'hour')), [3.6, 3.6]);
    assert.deepEqual(yuan(price('autodl', 'rtx4090', 'month')), [1200, 1500]);
    assert.deepEqual(yuan(price('lanrui', 'rtx3090', 'hour')), [1.6, 2.0]);
    assert.deepEqual(yuan(price('lanrui', 'a100-80g', 'hour')), [11, 11]);
    assert.deepEqual(yuan(price('mita', 'rtx3090', 'hour')), [1.2, 1.5]);
    assert.deepEqual(yuan(price('matpool', 'rtx3090', 'hour')), [1.5, 1.8]);
    assert.deepEqual(yuan(price('aliyun', 't4', 'hour')), [8, 8]);
    assert.deepEqual(yuan(price('aliyun', 't4', 'month')), [2500, 2500]);
    assert.deepEqual(yuan(price('aliyun', 'a100-80g', 'hour')), [20, 30]);
    assert.deepEqual(yuan(price('aliyun', 'a100-80g', 'month')), [15000, 20000]);
    assert.deepEqual(yuan(price('tencent', 't4', 'hour')), [7, 9]);
    assert.deepEqual(yuan(price('qingjiao', 'rtx3090', 'hour')), [2.5, 2.5]);
    assert.deepEqual(yuan(price('colab', 't4', 'hour')), [0, 0]);
    assert.deepEqual(yuan(price('aistudio', 'v100-16g', 'hour')), [0, 0]);
    // "平台的 4090 普遍比 3090 贵 1.5-2 倍": AutoDL's own pair sits in that band.
    const ratio = price('autodl', 'rtx4090', 'hour')!.min / price('autodl', 'rtx3090', 'hour')!.min;
    assert.ok(ratio >= 1.5 && ratio <= 2, String(ratio));
  });

  it('marks options the report names without a figure as null instead of inventing one', () => {
    assert.equal(price('lanrui', 'rtx3090', 'week'), null);
    assert.equal(price('mita', 'rtx3090', 'week'), null);
    assert.equal(P('lanrui').dataDisk.fenPerGbDay, null);
    assert.equal(P('lanrui').noGpuMode.support, 'yes');
    assert.equal(P('lanrui').noGpuMode.hourlyRate, null);
    assert.equal(P('huawei').prices.length, 0);
    assert.equal(P('zanqi').prices.length, 0);
    assert.equal(P('reseller').prices.length, 0);
    assert.equal(P('tencent').prices.find((x) => x.mode === 'month')?.price, null);
    assert.equal(price('autodl', 'a100-80g', 'hour'), undefined, 'no 4090-style guesses for cards the report does not price');
  });

  it('holds the hidden costs: disk, no-GPU mode, stopped billing, bandwidth, root, queues, access', () => {
    assert.deepEqual(yuan(P('autodl').dataDisk.fenPerGbDay), [0.5, 0.5]);
    assert.equal(P('autodl').systemDisk, 'free');
    assert.deepEqual(yuan(P('autodl').noGpuMode.hourlyRate), [0.1, 0.1]);
    assert.deepEqual(yuan(P('mita').dataDisk.fenPerGbDay), [1, 1]);
    assert.deepEqual(yuan(P('matpool').dataDisk.fenPerGbDay), [1, 1]);
    assert.equal(P('aliyun').dataDisk.bundled, true);
    assert.equal(P('tencent').dataDisk.bundled, true);
    assert.equal(P('mita').noGpuMode.support, 'no');
    assert.equal(P('matpool').noGpuMode.support, 'partial');
    assert.equal(P('aliyun').stoppedBills, 'everything');
    assert.equal(P('tencent').stoppedBills, 'everything');
    assert.equal(P('mita').stoppedBills, 'dataLost');
    assert.deepEqual(P('autodl').bandwidthMbps.value, { min: 10, max: 10 });
    assert.deepEqual(P('lanrui').bandwidthMbps.value, { min: 5, max: 10 });
    assert.deepEqual(P('matpool').bandwidthMbps.value, { min: 5, max: 5 });
    assert.ok(P('mita').bandwidthMbps.value!.max <= 2);
    assert.equal(P('mita').rootAccess, false);
    assert.deepEqual(P('mita').queue.waitMinutes, { min: 60, max: 180 });
    assert.equal(P('mita').queue.worstMinutes, 240);
    assert.equal(P('mita').queue.peakHours, '19:00-23:00');
    assert.deepEqual(P('autodl').queue.waitMinutes, { min: 10, max: 30 });
    assert.equal(P('volcengine').access.enterpriseVerification, true);
    assert.equal(P('huawei').access.minRentalDays, 7);
    assert.equal(P('autodl').spot?.discount, 0.2);
    assert.deepEqual(P('autodl').releaseAfterStoppedDays?.value, { min: 15, max: 15 });
    assert.deepEqual(P('colab').freeQuotaHours?.value, { min: 1, max: 1 });
    assert.equal(P('autodl').image.quality, 'excellent');
    assert.equal(P('tencent').image.quality, 'unfriendly');
  });

  it('carries the report\'s warnings as codes with English and Chinese text', () => {
    const has = (id: string, code: string) => assert.ok((P(id).warnings as string[]).includes(code), `${id} ${code}`);
    has('mita', 'eveningQueue');
    has('mita', 'noRoot');
    has('aliyun', 'bundledResources');
    has('aliyun', 'billsWhileStopped');
    has('tencent', 'billsWhileStopped');
    has('volcengine', 'enterpriseVerification');
    has('huawei', 'minRentalWeek');
    has('reseller', 'noSla');
    for (const code of WARNING_CODES) {
      assert.ok(WARNING_TEXT[code].en.length > 5 && /[\u4e00-\u9fff]/.test(WARNING_TEXT[code].zh), code);
    }
  });
});

describe('catalog: user overrides', () => {
  it('replaces a price by card alias and mode, keeping the rest, with the user\'s date', () => {
    const r = mergeCatalog(cat, { asOf: '2026-11-01', source: 'my notes', platforms: [{ id: 'autodl', prices: [{ card: 'RTX 4090', mode: 'hour', yuan: 3.2 }] }] });
    assert.ok(r.ok);
    const autodl = findPlatform(r.catalog, 'autodl')!;
    const p4090 = autodl.prices.find((x) => x.card === 'rtx4090' && x.mode === 'hour')!;
    assert.deepEqual(p4090.price, { min: 320, max: 320 });
    assert.equal(p4090.asOf, '2026-11-01');
    assert.equal(p4090.source, 'my notes');
    assert.equal(autodl.prices.length, 5);
    assert.equal(formatDating(dating(autodl.prices.find((x) => x.card === 'rtx3090' && x.mode === 'hour')!)), 'undated (field report test week)');
    assert.equal(formatDating(dating(p4090)), 'as of 2026-11-01');
    assert.deepEqual(autodl.dataDisk.fenPerGbDay, { min: 50, max: 50 });
    // The base is untouched.
    assert.deepEqual(price('autodl', 'rtx4090', 'hour'), { min: 360, max: 360 });
  });

  it('adds a platform, filling unknowns and a null date when none is given', () => {
    const r = mergeCatalog(cat, { platforms: [{ id: 'mybox', name: { zh: '我的机器', en: 'My box' }, billingModes: ['hour'], prices: [{ card: '3090', mode: 'hour', yuan: [1, 1.4] }], dataDisk: { yuanPerGbDay: 0.2 } }] });
    assert.ok(r.ok);
    const p = findPlatform(r.catalog, 'mybox')!;
    assert.deepEqual(p.prices[0]!.price, { min: 100, max: 140 });
    assert.equal(p.prices[0]!.card, 'rtx3090');
    assert.equal(p.prices[0]!.asOf, null);
    assert.equal(p.prices[0]!.source, 'user catalog');
    assert.equal(p.noGpuMode.support, 'unknown');
    assert.deepEqual(p.dataDisk.fenPerGbDay, { min: 20, max: 20 });
  });

  const errorOf = (override: unknown) => {
    const r = mergeCatalog(cat, override);
    assert.equal(r.ok, false);
    return r.ok ? [] : r.errors;
  };

  it('names the JSON path of what is wrong', () => {
    assert.deepEqual(errorOf({ platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: 'cheap' }] }] })[0], {
      path: 'platforms[0].prices[0].yuan',
      message: 'expected a number ≥ 0 (yuan) or a [min, max] pair',
    });
    assert.equal(errorOf({ platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: -1 }] }] })[0]!.path, 'platforms[0].prices[0].yuan');
    assert.equal(errorOf({ platforms: [{ id: 'autodl', prices: [{ card: '4090', mode: 'hour', yuan: [3, 2] }] }] })[0]!.path, 'platforms[0].prices[0].yuan');
    const unknownCard = errorOf({ platforms: [{}, { id: 'autodl', prices: [{ card: 'h900', mode: 'hour', yuan: 1 }] }] });
    assert.ok(unknownCard.some((e) => e.path === 'platforms[0].id'));
    const e2 = errorOf({ platforms: [{ id: 'autodl', prices: [{ card: 'h900', mode: 'day', yuan: 1 }] }] });
    assert.deepEqual(e2.map((e) => e.path), ['platforms[0].prices[0].card', 'platforms[0].prices[0].mode']);
    assert.match(e2[0]!.message, /unknown card "h900"/);
    assert.match(e2[1]!.message, /not in this platform's billingModes/);
    assert.equal(errorOf({ platforms: [{ id: 'autodl', datadisk: {} }] })[0]!.path, 'platforms[0]');
    assert.deepEqual(errorOf({ platforms: [{ id: 'new1', prices: [] }] }).map((e) => e.path), ['platforms[0].name', 'platforms[0].billingModes']);
    assert.equal(errorOf({ platforms: [{ id: 'Bad Id' }] })[0]!.path, 'platforms[0].id');
    assert.equal(errorOf(42)[0]!.path, '(top level)');
    assert.equal(errorOf({ platforms: 'x' })[0]!.path, 'platforms');
    assert.equal(errorOf({ platforms: [{ id: 'autodl', billingModes: ['hour'] }] })[0]!.path, 'platforms[0].billingModes');
  });

  it('never throws on garbage', () => {
    fc.assert(
      fc.property(fc.anything(), (x) => {
        const r = mergeCatalog(cat, x);
        return typeof r.ok === 'boolean';
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.constantFrom('autodl', 'mita', 'zz'), prices: fc.array(fc.record({ card: fc.string(), mode: fc.string(), yuan: fc.anything() })) }, { requiredKeys: ['id'] })), (platforms) => {
        const r = mergeCatalog(cat, { platforms });
        return typeof r.ok === 'boolean';
      }),
      { numRuns: 300 },
    );
  });

  it('parses the shipped JSON shape itself', () => {
    const r = parseCatalog(builtinCatalogJson);
    assert.ok(r.ok);
    assert.equal(parseCatalog({ platforms: [{ id: 'x' }] }).ok, false);
  });
});
