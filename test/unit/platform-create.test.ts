// core/platforms/create.ts: the CUDA bound from a torch version or wheel tag, AutoDL's
// cuda_v_from code, Pro spec ids from card names, the input checks, and platform refusals read
// as ours (with the platforms' own codes from the fixtures).
import * as assert from 'node:assert';
import { autodlCudaCode, autodlSpecFor, autoReleaseAt, balanceRefusal, checkSpec, clientToken, createRefusalOf, cudaBound, defaultCreateName, existingByName, isRefusal, NEWEST_CUDA, type CreateSpec } from '../../src/core/platforms/create';
import { classifyFailure } from '../../src/core/platforms/errors';
import envelopes from '../fixtures/platforms/autodl-envelopes.json';
import createBodies from '../fixtures/platforms/create-bodies.json';
import tcBodies from '../fixtures/platforms/tencent-bodies.json';

const spec = (o: Partial<CreateSpec> = {}): CreateSpec => ({ card: '4090-48G', gpus: 1, name: 'train-1', image: 'base-image-12be412037', ...o });

describe('create (core)', () => {
  it('takes the CUDA bound from --cuda-min, a wheel tag, a local version or a plain release; +cpu needs none', () => {
    assert.deepStrictEqual(cudaBound({ cudaMin: '11.3' }), { cuda: '11.3', from: 'flag' });
    assert.deepStrictEqual(cudaBound({ torch: '2.1.0+cu121' }), { cuda: '12.1', from: 'torch' });
    assert.deepStrictEqual(cudaBound({ torch: 'cu118' }), { cuda: '11.8', from: 'torch' });
    // 2.4.0's PyPI wheel is built with CUDA 12.1 (compat/torch-wheels).
    assert.deepStrictEqual(cudaBound({ torch: '2.4.0' }), { cuda: '12.1', from: 'torch' });
    assert.deepStrictEqual(cudaBound({ torch: '2.1.0+cpu' }), {});
    assert.deepStrictEqual(cudaBound({}), {});
    const bad = cudaBound({ torch: 'latest' });
    assert.ok(isRefusal(bad) && bad.code === 'badCuda');
    const bad2 = cudaBound({ cudaMin: '12' });
    assert.ok(isRefusal(bad2) && bad2.code === 'badCuda');
  });

  it('refuses a CUDA bound above every driver known (no host meets it)', () => {
    const r = cudaBound({ cudaMin: '99.0' });
    assert.ok(isRefusal(r));
    assert.strictEqual(r.code, 'cudaUnmet');
    assert.strictEqual(r.detail.newest, NEWEST_CUDA);
  });

  it("writes AutoDL's cuda_v_from as the page's example does (113 = CUDA 11.3)", () => {
    assert.strictEqual(autodlCudaCode('11.3'), 113);
    assert.strictEqual(autodlCudaCode('12.1'), 121);
    assert.strictEqual(autodlCudaCode('13.0'), 130);
  });

  it("finds the appendix's spec id from the card as users type it", () => {
    assert.strictEqual(autodlSpecFor('pro6000-p'), 'pro6000-p');
    assert.strictEqual(autodlSpecFor('PRO6000-96G'), 'pro6000-p');
    assert.strictEqual(autodlSpecFor('RTX PRO 6000'), 'pro6000-p');
    assert.strictEqual(autodlSpecFor('4090'), 'v-48g');
    assert.strictEqual(autodlSpecFor('4080S'), 'v-32g-p');
    assert.strictEqual(autodlSpecFor('5090'), '5090-p');
    assert.strictEqual(autodlSpecFor('H800'), 'h800');
    const r = autodlSpecFor('A100');
    assert.ok(isRefusal(r) && r.code === 'unknownCard');
    assert.match(String(r.detail.known), /4090-48G \(v-48g\)/);
  });

  it('checks the input before anything is sent', () => {
    assert.strictEqual(checkSpec('autodl-pro', spec()), undefined);
    assert.strictEqual(checkSpec('autodl-pro', spec({ gpus: 5 }))?.code, 'tooManyGpus');
    assert.strictEqual(checkSpec('autodl-pro', spec({ diskGb: 501 }))?.code, 'diskTooLarge');
    assert.strictEqual(checkSpec('autodl-pro', spec({ spot: { maxPriceFen: 100 } }))?.code, 'spotNotOffered');
    assert.strictEqual(checkSpec('autodl-pro', spec({ image: 'ubuntu' }))?.code, 'imageNotFound');
    assert.strictEqual(checkSpec('autodl-pro', spec({ image: undefined }))?.code, 'imageRequired');
    assert.strictEqual(checkSpec('autodl-pro', spec({ name: 'a b' }))?.code, 'badName');
    assert.strictEqual(checkSpec('autodl-web', spec())?.code, 'notSupported');
    assert.strictEqual(checkSpec('tencent-cvm', spec({ card: 'GN7.2XLARGE32', image: 'img-pi0ii46r', region: 'ap-guangzhou' }))?.code, 'unknownRegion', 'a zone, not a region');
    assert.strictEqual(checkSpec('tencent-cvm', spec({ card: 'GN7.2XLARGE32', image: 'img-pi0ii46r', region: 'ap-guangzhou-3' })), undefined);
    assert.strictEqual(checkSpec('tencent-cvm', spec({ card: 'GN7.2XLARGE32', image: 'img-pi0ii46r', region: 'ap-guangzhou-3', gpus: 2 }))?.code, 'tooManyGpus');
  });

  it('reads platform refusals of a create as ours, keeping the platform code', () => {
    const e = envelopes as Record<string, { code: string; msg: string }>;
    const real = classifyFailure('autodl-pro', e.realName!.code, e.realName!.msg);
    assert.strictEqual(createRefusalOf(real, spec())?.code, 'realName');
    assert.strictEqual(createRefusalOf(real, spec())?.detail.platformCode, 'TORealName');
    const stock = classifyFailure('autodl-pro', e.noStock!.code, e.noStock!.msg);
    assert.strictEqual(createRefusalOf(stock, spec())?.code, 'noStock');
    assert.strictEqual(createRefusalOf(stock, spec({ cudaMin: '12.8' }))?.code, 'cudaUnmet', 'no stock under a CUDA bound: the bound is named');
    const bal = classifyFailure('autodl-pro', e.insufficientBalance!.code, e.insufficientBalance!.msg);
    assert.strictEqual(createRefusalOf(bal, spec())?.code, 'balanceTooLow');
    const q = (createBodies.tencentQuota as { Error: { Code: string; Message: string } }).Error;
    assert.strictEqual(createRefusalOf(classifyFailure('tencent-cvm', q.Code, q.Message), spec())?.code, 'quotaExceeded');
    const tcStock = (tcBodies.noStock as { Error: { Code: string; Message: string } }).Error;
    assert.strictEqual(createRefusalOf(classifyFailure('tencent-cvm', tcStock.Code, tcStock.Message), spec())?.code, 'noStock');
    assert.strictEqual(createRefusalOf(classifyFailure('autodl-pro', 'InternalError', ''), spec()), undefined, 'an unworded failure stays the platform’s');
  });

  it('refuses a balance short of an hour; an unknown price needs a positive balance', () => {
    assert.strictEqual(balanceRefusal(500, 868)?.code, 'balanceTooLow');
    assert.strictEqual(balanceRefusal(868, 868), undefined);
    assert.strictEqual(balanceRefusal(0, undefined)?.code, 'balanceTooLow');
    assert.strictEqual(balanceRefusal(1, undefined), undefined);
    assert.strictEqual(balanceRefusal(undefined, 868), undefined);
  });

  it('names, tokens and times', () => {
    assert.strictEqual(defaultCreateName(Date.UTC(2026, 11, 1, 14, 5) / 1000, 'ab12'), 'gpu-rent-20261201-2205-ab12');
    assert.strictEqual(clientToken('x'.repeat(80)).length, 64);
    assert.strictEqual(autoReleaseAt(Date.UTC(2026, 11, 1, 10, 0, 30) / 1000, 2), '2026-12-01T12:01:00Z');
    const list = [
      { ref: 'a', name: 'n', state: 'released' as const, rawState: 'released' },
      { ref: 'b', name: 'n', state: 'starting' as const, rawState: 'creating' },
    ];
    assert.strictEqual(existingByName(list, 'n')?.ref, 'b', 'a released one of that name is not it');
    assert.strictEqual(existingByName(list, 'm'), undefined);
  });
});
