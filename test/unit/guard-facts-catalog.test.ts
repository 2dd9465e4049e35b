// The guards' platform facts live in the catalog (core/catalog schema `guardFacts` and
// `aliases`, the field report's figures in data.ts): the built-in ones are what the field report
// says, a user's catalog can state its own, and the schema bounds them.
import * as assert from 'node:assert';
import { builtinCatalog, findPlatform, parseCatalog } from '../../src/core/catalog';
import { factsFor, factsFromCatalog, normalizePlatformId } from '../../src/core/guards/facts';

describe('guard facts in the catalog', () => {
  it('the built-in platforms carry the field report’s facts, found by id, name or alias', () => {
    // The field report: AutoDL releases after 15 days shut down (warned from day 12) and queues 19:00–23:00 for 10–30 min;
    // 矩池云 keeps a free snapshot 24 h; 秘塔智算 clears the data disk on shutdown; 阿里云 notices a spot reclaim 5 min ahead.
    assert.deepStrictEqual(factsFor('AutoDL').releaseRules, [{ kind: 'releaseAfterStoppedDays', days: 15, warnFromDay: 12 }]);
    assert.deepStrictEqual(factsFor('autodl').eveningQueue, { fromHour: 19, toHour: 23, waitSeconds: [600, 1800] });
    assert.deepStrictEqual(factsFor('矩池云').releaseRules, [{ kind: 'freeSnapshotHours', hours: 24 }]);
    assert.strictEqual(factsFor('秘塔智算').stopKeepsData, false);
    assert.strictEqual(factsFor('阿里云').spotNoticeSeconds, 300);
    assert.strictEqual(normalizePlatformId('揽睿星舟'), 'lanrui');
    const catalog = builtinCatalog();
    for (const id of ['autodl', 'lanrui', 'mita', 'matpool', 'aliyun', 'tencent']) {
      const p = findPlatform(catalog, id)!;
      assert.ok(p.guardFacts, `${id} states its guard facts in the catalog`);
      assert.deepStrictEqual(factsFor(id), { platform: id, ...p.guardFacts });
    }
    assert.strictEqual(findPlatform(catalog, 'huawei')!.guardFacts, undefined, 'a platform the report says nothing about gets the cautious default');
    assert.deepStrictEqual(factsFor('huawei').releaseRules, []);
  });

  it('a user’s catalog states the facts of a platform the built-in one does not know', () => {
    const guardFacts = { noGpuMode: false, stopEndsComputeBilling: true, stopKeepsData: false, releaseRules: [{ kind: 'releaseAfterStoppedDays', days: 7, warnFromDay: 5 }], eveningQueue: null, spotReclaimNotice: null, spotNoticeSeconds: null };
    const r = parseCatalog({ platforms: [{ id: 'newcloud', name: { zh: '新云', en: 'New Cloud' }, billingModes: ['hour'], prices: [], guardFacts }] });
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    const f = factsFromCatalog(findPlatform(r.catalog, 'newcloud')!);
    assert.strictEqual(f.stopKeepsData, false);
    assert.deepStrictEqual(f.releaseRules, [{ kind: 'releaseAfterStoppedDays', days: 7, warnFromDay: 5 }]);
    assert.strictEqual(factsFromCatalog({ ...findPlatform(r.catalog, 'newcloud')!, guardFacts: undefined }).stopKeepsData, true, 'without them: the cautious default');
  });

  it('the schema bounds them: an hour past 23, an unknown field or rule is refused', () => {
    const ok = { noGpuMode: false, stopEndsComputeBilling: true, stopKeepsData: true, releaseRules: [], eveningQueue: { fromHour: 19, toHour: 23, waitSeconds: [0, 60] }, spotReclaimNotice: null, spotNoticeSeconds: null };
    const cat = (guardFacts: unknown) => parseCatalog({ platforms: [{ id: 'x', name: { zh: 'x', en: 'x' }, billingModes: ['hour'], prices: [], guardFacts }] });
    assert.ok(cat(ok).ok);
    assert.ok(!cat({ ...ok, eveningQueue: { fromHour: 19, toHour: 25, waitSeconds: [0, 60] } }).ok);
    assert.ok(!cat({ ...ok, extra: true }).ok);
    assert.ok(!cat({ ...ok, releaseRules: [{ kind: 'never' }] }).ok);
  });
});
