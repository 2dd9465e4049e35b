// The AutoDL console clone's pure part on the sources' rows (test/fixtures/platforms/
// autodl-web-clone.json, SOURCES.md): which hosts a clone can go to and in what order, the bodies
// sent, the states read. Rows here are copies of the real docstring row with the fields no source
// gives a value for (gpu_idle_num, instance slots) set: synthetic values on real shapes.
import * as assert from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fixture from '../fixtures/platforms/autodl-web-clone.json';
import webRow from '../fixtures/platforms/autodl-web-list-row.json';
import { cloneBody, cloneName, cloneSourceOf, cloneState, isCloneRefusal, machineListBody, machinePage, MACHINE_PAGE_SIZE, MAX_CANDIDATES, pickCandidates, sourceBusy, type CloneSource } from '../../src/core/platforms/autodlClone';

const real = fixture.machineListRow;
/** A host: the real row with synthetic values for what the sources leave out. */
const host = (over: Record<string, unknown>) => ({ ...real, gpu_order_num: 8, gpu_idle_num: 2, ...over });

function source(over: Partial<CloneSource> = {}): CloneSource {
  const s = cloneSourceOf({ ...webRow, ...fixture.instanceListRow, snapshot_gpu_alias_name: 'RTX 4090', req_gpu_amount: 1, region_sign: 'west-B' }, { status: 'shutdown', data_disk_expand_size: fixture.createParams.expand_data_disk });
  assert.ok(!isCloneRefusal(s), JSON.stringify(s));
  return { ...s, ...over };
}

describe('AutoDL console clone (pure)', () => {
  it('reads the instance from its console row and detail: card, GPUs, region, its host, data disk, image fields', () => {
    const s = source();
    assert.strictEqual(s.ref, 'iid-1');
    assert.strictEqual(s.name, 'alpha');
    assert.strictEqual(s.card, 'RTX 4090');
    assert.strictEqual(s.gpus, 1);
    assert.strictEqual(s.regionSign, 'west-B');
    assert.strictEqual(s.machineId, 'eaf141be95');
    assert.strictEqual(s.dataDiskBytes, 1073741824);
    assert.deepStrictEqual(s.image, { image: fixture.instanceListRow.image, private_image_uuid: '', reproduction_uuid: fixture.instanceListRow.reproduction_uuid, reproduction_id: 471 });
    assert.deepStrictEqual(cloneSourceOf({ uuid: 'x-1' }, undefined), { code: 'noCard', detail: { ref: 'x-1' } });
  });

  it('the real docstring row alone (gpu_order_num 0, no gpu_idle_num) is no candidate: its cards cannot be ordered', () => {
    const p = pickCandidates(source(), [real]);
    assert.deepStrictEqual(p.candidates, []);
    assert.deepStrictEqual(p.skipped, { fewFreeCards: 1 });
  });

  it('a host with a free card: price ¥2.72/h from payg_price 2720 (¥/1000), per card × GPUs', () => {
    const [c] = pickCandidates(source(), [host({})]).candidates;
    assert.deepStrictEqual(c, { machineId: '2dd949a4cf', alias: '063机', regionSign: 'west-B', regionName: '西北B区', idle: 2, priceFenPerHour: 272, maxDataDiskBytes: 2147483648000, highestCuda: '12.2', sameRegion: true });
    assert.strictEqual(pickCandidates(source({ gpus: 2 }), [host({})]).candidates[0]!.priceFenPerHour, 544);
  });

  it('leaves out its own host, another card, too few free cards, no disk room, a full host, a non-payg host, a malformed row', () => {
    const rows = [
      host({ machine_id: 'eaf141be95' }),
      host({ machine_id: 'm-3090', gpu_name: 'RTX 3090' }),
      host({ machine_id: 'm-busy', gpu_idle_num: 0 }),
      host({ machine_id: 'm-small', max_data_disk_expand_size: 1000 }),
      host({ machine_id: 'm-full', max_instance_num: 10, binding_instance_num: 10 }),
      host({ machine_id: 'm-month', payg: false }),
      host({ machine_id: 'bad id with spaces' }),
      host({ machine_id: 'm-ok' }),
    ];
    const p = pickCandidates(source(), rows);
    assert.deepStrictEqual(p.candidates.map((c) => c.machineId), ['m-ok']);
    assert.deepStrictEqual(p.skipped, { sameHost: 1, otherCard: 1, fewFreeCards: 1, noDiskRoom: 1, hostFull: 1, notPayg: 1, badRow: 1 });
    assert.strictEqual(p.seen, rows.length);
  });

  it('same region first, then the cheapest (a price from machine_sku_info where no payg_price), unpriced last', () => {
    const { payg_price: _p, ...noPrice } = real;
    const rows = [
      host({ machine_id: 'far-cheap', region_sign: 'west-C', payg_price: 1000 }),
      { ...noPrice, gpu_idle_num: 1, gpu_order_num: 1, machine_id: 'near-unpriced' },
      host({ machine_id: 'near-dear', payg_price: 3000 }),
      { ...noPrice, gpu_idle_num: 1, gpu_order_num: 1, machine_id: 'near-sku', machine_sku_info: [{ level_config: [{ discounted_price: 2600 }, { discounted_price: 2500 }] }] },
    ];
    const p = pickCandidates(source(), rows);
    assert.deepStrictEqual(p.candidates.map((c) => [c.machineId, c.priceFenPerHour ?? null]), [['near-sku', 250], ['near-dear', 300], ['near-unpriced', null], ['far-cheap', 100]]);
  });

  it('bounded: at most MAX_CANDIDATES offered, a page never read past its size, text fields cut', () => {
    const rows = Array.from({ length: 400 }, (_, i) => host({ machine_id: `m-${i}`, machine_alias: 'x'.repeat(150) }));
    const p = pickCandidates(source(), rows);
    assert.strictEqual(p.candidates.length, MAX_CANDIDATES);
    assert.ok(p.candidates[0]!.alias.length <= 61, 'an alias is cut for display');
    assert.ok(p.seen <= 300);
    assert.strictEqual(machinePage({ list: rows, max_page: 3 }).rows.length, MACHINE_PAGE_SIZE);
    assert.strictEqual(pickCandidates(source(), [host({ machine_alias: 'a\u202eb'.repeat(10) })]).candidates[0]!.alias.includes('\u202e'), false);
    // A row whose alias is over the schema's bound is refused, not trusted.
    assert.deepStrictEqual(pickCandidates(source(), [host({ machine_alias: 'y'.repeat(201) })]).skipped, { badRow: 1 });
  });

  it('the host list request asks the instance card, its GPUs free and its region, in the console’s form', () => {
    const b = machineListBody(source(), 2);
    assert.deepStrictEqual([b.charge_type, b.gpu_type_name, b.gpu_idle_num, b.region_sign_list, b.page_index, b.page_size, b.default_order], ['payg', ['RTX 4090'], 1, ['west-B'], 2, MACHINE_PAGE_SIZE, true]);
  });

  it('the clone body: the source uuid, the target host, the same cards, image and data disk, the data disk copied', () => {
    const s = source();
    const b = cloneBody(s, { machineId: fixture.createParams.machine_id }, cloneName(s));
    assert.deepStrictEqual(b, {
      instance_uuid: 'iid-1',
      instance_info: { machine_id: '463e49a218', charge_type: 'payg', req_gpu_amount: 1, image: fixture.instanceListRow.image, private_image_uuid: '', reproduction_uuid: fixture.instanceListRow.reproduction_uuid, reproduction_id: 471, instance_name: 'alpha-clone', expand_data_disk: 1073741824, copy_data_disk_after_clone: true, keep_src_user_service_address_after_clone: false },
      price_info: { coupon_id_list: [], machine_id: '463e49a218', charge_type: 'payg', duration: 1, num: 1, expand_data_disk: 1073741824 },
    });
    assert.strictEqual(cloneName(source({ name: '我的 实例!' })), 'instance-clone');
    assert.strictEqual(cloneName(source({ name: 'x'.repeat(100) })).length, 60);
  });

  it('states: cloning and shutdown_cloning in progress, clone_failed failed, running/shutdown done; a source being cloned is busy', () => {
    assert.deepStrictEqual(['cloning', 'shutdown_cloning', 'creating', 'running', 'shutdown', 'clone_failed', 'create_failed'].map(cloneState), ['inProgress', 'inProgress', 'inProgress', 'done', 'done', 'failed', 'failed']);
    assert.deepStrictEqual(['shutdown_cloning', 'cloning', 'shutdown', 'running'].map(sourceBusy), [true, true, false, false]);
  });

  it('without the detail\'s data_disk_expand_size, the console row\'s expand_data_disk_size (the captured row\'s name) is the data disk', () => {
    const capture = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'platforms', 'autodl-web-list-row-capture.json'), 'utf8')) as Record<string, unknown>;
    const s = cloneSourceOf({ ...capture, expand_data_disk_size: 53687091200 }, { status: 'shutdown' });
    assert.ok(!isCloneRefusal(s));
    assert.strictEqual(s.dataDiskBytes, 53687091200);
    const old = cloneSourceOf({ ...capture, expand_data_disk_size: undefined, data_disk_expand_size: 53687091200 }, { status: 'shutdown' });
    assert.ok(!isCloneRefusal(old));
    assert.strictEqual(old.dataDiskBytes, 0, 'the detail\'s name on a list row is no source\'s');
  });
});
