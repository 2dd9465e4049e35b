// Grab a card's pure rules (core/platforms/grab.ts): which stock rows fit the limits, the one
// reason said when none does, the price rule (an unknown price never passes a limit), the regions
// each platform is asked, the create's default name.
import { strict as assert } from 'node:assert';
import { closestWhy, grabCreateName, judgeStock, preflightCreate, priceVerdict, regionsFor, watchesRegions, type GrabLimits } from '../../src/core/platforms/grab';
import { CREATE_NAME } from '../../src/core/platforms/create';
import type { StockRow } from '../../src/core/platforms/stock';

const row = (o: Partial<StockRow>): StockRow => ({ card: 'RTX 4090', region: 'westDC2', status: 'free', source: 'autodl-gpu_stock', readAt: 0, ...o });
const limits = (o: Partial<GrabLimits> = {}): GrabLimits => ({ card: '4090', gpus: 1, regions: [], ...o });

describe('grab: which rows fit', () => {
  it('a free row fits; the cheapest known price first, then the most free', () => {
    const rows = [row({ region: 'a', free: 1, priceFenPerHour: 300 }), row({ region: 'b', free: 5, priceFenPerHour: 200 }), row({ region: 'c', free: 9 })];
    assert.deepEqual(judgeStock(rows, limits()).offers.map((o) => o.row.region), ['b', 'a', 'c']);
  });
  it('sold out, too few free, another GPU count, a region not allowed', () => {
    assert.deepEqual(judgeStock([row({ status: 'soldOut', free: 0 })], limits()).why, { code: 'soldOut', card: 'RTX 4090' });
    assert.deepEqual(judgeStock([row({ free: 1 })], limits({ gpus: 2 })).why, { code: 'tooFewFree', card: 'RTX 4090', region: 'westDC2', free: 1, gpus: 2 });
    assert.equal(judgeStock([row({ card: 'GN7.2XLARGE32', gpus: 1, instanceType: 'GN7.2XLARGE32' })], limits({ card: 'GN7', gpus: 2 })).why?.code, 'gpusDiffer');
    assert.equal(judgeStock([row({ region: 'westDC3' })], limits({ regions: ['westDC2'] })).why?.code, 'soldOut');
    assert.equal(judgeStock([row({ region: 'ap-guangzhou', zone: 'ap-guangzhou-3' })], limits({ regions: ['ap-guangzhou-3'] })).offers.length, 1, 'a zone named matches');
  });
  it('a price above the limit is never an offer; an unknown price stays one (the create quotes it before acting)', () => {
    const r = judgeStock([row({ priceFenPerHour: 868 })], limits({ maxPriceFen: 500 }));
    assert.deepEqual([r.offers.length, r.why], [0, { code: 'priceAbove', card: 'RTX 4090', region: 'westDC2', priceFen: 868, maxFen: 500 }]);
    assert.equal(judgeStock([row({})], limits({ maxPriceFen: 500 })).offers.length, 1);
    assert.deepEqual([priceVerdict(undefined, 500), priceVerdict(500, 500), priceVerdict(501, 500), priceVerdict(undefined, undefined)], ['unknown', 'ok', 'above', 'ok']);
  });
  it('AutoDL Pro creates by spec: a pool card without one is no offer', () => {
    assert.equal(judgeStock([row({})], limits(), { needProSpec: true }).why?.code, 'noProSpec');
    assert.equal(judgeStock([row({ card: 'RTX 4090D', proSpec: '4090D' })], limits({ card: '4090D' }), { needProSpec: true }).offers.length, 1);
  });
  it('no card of that name: the cards seen; the closest miss is said (a price above before a sold-out)', () => {
    assert.deepEqual(judgeStock([row({ card: 'RTX 3090' })], limits({ card: 'H20' })).why, { code: 'noMatch', seen: ['RTX 3090'] });
    const both = judgeStock([row({ status: 'soldOut', free: 0 }), row({ region: 'b', priceFenPerHour: 900 })], limits({ maxPriceFen: 100 }));
    assert.equal(both.why?.code, 'priceAbove');
    assert.equal(closestWhy([{ code: 'soldOut', card: 'x' }, { code: 'noMatch', seen: [] }])?.code, 'soldOut');
  });
});

describe('grab: regions and names', () => {
  it('each platform is asked only the regions it has: AutoDL data centers; the clouds a zone through its region', () => {
    const named = ['westDC2', 'ap-guangzhou-3', 'cn-hangzhou', 'cn-hangzhou-i'];
    assert.deepEqual(regionsFor('autodl', named), ['westDC2']);
    assert.deepEqual(regionsFor('cloud', named), ['ap-guangzhou', 'cn-hangzhou']);
  });
  it('an account is watched only when a region named is one of its own (or none is named)', () => {
    assert.deepEqual([watchesRegions('autodl-pro', ['westDC2']), watchesRegions('autodl-pro', ['westdc2']), watchesRegions('tencent-cvm', ['westDC2']), watchesRegions('tencent-cvm', ['ap-guangzhou-3']), watchesRegions('aliyun-ecs', [])], [true, false, false, true, true]);
  });
  it('a create\'s limits each platform would refuse are found before the watch (GPUs, image, disk), the place is not', () => {
    assert.equal(preflightCreate('autodl-pro', { gpus: 1, name: 'grab-x1' })?.code, 'imageRequired');
    assert.equal(preflightCreate('autodl-pro', { gpus: 5, name: 'grab-x5', image: 'base-image-12be412037' })?.code, 'tooManyGpus');
    assert.equal(preflightCreate('tencent-cvm', { gpus: 2, name: 'grab-x2', image: 'img-abc' })?.code, 'tooManyGpus');
    assert.equal(preflightCreate('autodl-pro', { gpus: 1, name: 'grab-x1', image: 'base-image-12be412037', diskGb: 900 })?.code, 'diskTooLarge');
    assert.equal(preflightCreate('tencent-cvm', { gpus: 1, name: 'grab-x1', image: 'img-abc' }), undefined, 'the zone comes with the free row');
  });
  it('the create name is one per card and GPU count, and a valid create name', () => {
    assert.equal(grabCreateName('4090D', 1), 'grab-4090d-x1');
    assert.equal(grabCreateName('RTX 4090', 2), 'grab-rtx-4090-x2');
    for (const c of ['ecs.gn7i-c8g1.2xlarge', '__', '卡', 'x'.repeat(200)]) assert.match(grabCreateName(c, 8), CREATE_NAME);
  });
});
