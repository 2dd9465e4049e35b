// Cloning an AutoDL console instance whose host has no free card, against the local platform
// server (hosts from `user/machine/list` built on autodl-gpuhunter's docstring row; their free
// cards and prices set here): the power-on refused with 该主机空闲GPU不足, the candidates, the clone
// sent once, the new instance found and waited for; a lost clone answer found again by name; no
// candidate; a clone_failed; and the built CLI: nothing sent without --yes.
import * as assert from 'node:assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeConnector } from '../../src/app/platforms/accounts';
import { cloneInstance, planClone, type ClonePlan } from '../../src/app/platforms/clone';
import { PlatformError } from '../../src/app/platforms/errors';
import { isCloneRefusal, type CloneRefusal } from '../../src/core/platforms/autodlClone';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';

const now = () => Math.floor(Date.now() / 1000);
const CLONE = '/api/v1/order/instance/clone/payg';
const LIST = '/api/v1/user/machine/list';
const GIB = 2 ** 30;

function plan(p: ClonePlan | CloneRefusal): ClonePlan {
  assert.ok(!isCloneRefusal(p), `refused: ${JSON.stringify(p)}`);
  return p;
}

describe('clone an AutoDL console instance onto a host with a free card (local platform server)', function () {
  this.timeout(60000);
  let s: PlatformServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 300;
    s.add({ platform: 'autodl-web', id: 'w-1', name: 'train', state: 'shutdown', noFreeGpu: true, gpuName: 'RTX 4090', machineId: 'eaf141be95', regionSign: 'west-B', gpus: 1, dataDiskBytes: 50 * GIB });
    // Synthetic free cards and prices on the docstring row's shape.
    s.machines = [
      { machine_id: 'eaf141be95', machine_alias: '091机', gpu_idle_num: 0, gpu_order_num: 0 },
      { machine_id: 'm-dear', machine_alias: '101机', gpu_idle_num: 3, gpu_order_num: 3, payg_price: 3000 },
      { machine_id: 'm-cheap', machine_alias: '102机', gpu_idle_num: 1, gpu_order_num: 1, payg_price: 2500 },
      { machine_id: 'm-small', machine_alias: '103机', gpu_idle_num: 2, gpu_order_num: 2, payg_price: 1000, max_data_disk_expand_size: 10 * GIB },
      { machine_id: 'm-other-region', region_sign: 'west-C', gpu_idle_num: 8, gpu_order_num: 8, payg_price: 900 },
    ];
    home = await mkdtemp(join(tmpdir(), 'gpu-rent-clone-'));
    env = { GPU_RENT_HOME: home, HOME: home, LANG: 'C', GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb, GPU_RENT_ALLOW_POWER: '1', GPU_RENT_SETTLE_INTERVAL_MS: '100' };
  });
  afterEach(async () => {
    await s.close();
    await rm(home, { recursive: true, force: true });
  });
  const web = () => makeConnector({ kind: 'autodl-web' }, { token: s.creds.autodlWeb }, s.endpoints, { timeoutMs: 3000, now });

  it('a power-on refused for no free GPU → candidates (its region asked, cheapest first, room for the disk) → one clone → the new instance runs with its login', async () => {
    const c = web();
    await assert.rejects(c.powerOn('w-1', 'gpu'), (e: unknown) => e instanceof PlatformError && e.failure.kind === 'noGpuOnHost');
    const p = plan(await planClone(c, 'w-1'));
    assert.deepStrictEqual(p.candidates.map((x) => [x.machineId, x.priceFenPerHour]), [['m-cheap', 250], ['m-dear', 300]]);
    // Its own host (no free card) is not even listed: the list is asked for hosts with 1 free.
    assert.deepStrictEqual(p.skipped, { noDiskRoom: 1 });
    assert.strictEqual(p.source.dataDiskBytes, 50 * GIB);
    const asked = JSON.parse(s.sent('autodl-web', LIST)[0]!.body) as Record<string, unknown>;
    assert.deepStrictEqual([asked.gpu_type_name, asked.gpu_idle_num, asked.region_sign_list], [['RTX 4090'], 1, ['west-B']]);
    assert.strictEqual(s.sent('autodl-web', CLONE).length, 0, 'planning sends no clone');

    const states: string[] = [];
    const o = await cloneInstance(c, p, p.candidates[0]!, { settleMs: 10_000, intervalMs: 100, onProgress: (x) => states.push(x) });
    assert.strictEqual(o.status, 'cloned');
    if (o.status !== 'cloned') return;
    assert.deepStrictEqual([o.recovered, o.settled, o.rawState, o.name], [false, true, 'running', 'train-clone']);
    assert.ok(states.includes('cloning'), states.join(','));
    assert.deepStrictEqual(o.login && [o.login.host, o.login.port], ['127.0.0.1', s.createLogin.sshPort]);
    assert.strictEqual(o.instance?.state, 'running');
    const sent = s.sent('autodl-web', CLONE);
    assert.strictEqual(sent.length, 1);
    const body = JSON.parse(sent[0]!.body) as { instance_uuid: string; instance_info: Record<string, unknown>; price_info: Record<string, unknown> };
    assert.strictEqual(body.instance_uuid, 'w-1');
    assert.deepStrictEqual([body.instance_info.machine_id, body.instance_info.req_gpu_amount, body.instance_info.expand_data_disk, body.instance_info.copy_data_disk_after_clone], ['m-cheap', 1, 50 * GIB, true]);
    assert.deepStrictEqual([body.price_info.machine_id, body.price_info.num, body.price_info.charge_type], ['m-cheap', 1, 'payg']);
    // The source stays, shut down again once its disk was copied.
    assert.strictEqual(s.instances.get('w-1')?.state, 'shutdown');
  });

  it('a clone whose answer is lost is found again by its name, and never sent twice (nor on a second run)', async () => {
    const c = web();
    const p = plan(await planClone(c, 'w-1'));
    s.loseReply.add(CLONE);
    const o = await cloneInstance(c, p, p.candidates[0]!, { settleMs: 10_000, intervalMs: 100 });
    assert.strictEqual(o.status, 'cloned');
    if (o.status !== 'cloned') return;
    assert.strictEqual(o.recovered, true);
    assert.strictEqual(s.instances.get(o.ref)?.name, 'train-clone');
    const again = await cloneInstance(web(), p, p.candidates[0]!, { settleMs: 0, intervalMs: 100 });
    assert.strictEqual(again.status === 'cloned' && again.ref, o.ref);
    assert.strictEqual(s.sent('autodl-web', CLONE).length, 1);
  });

  it('a clone the platform fails (clone_failed) is reported failed with the new id, not as cloned', async () => {
    s.cloneFails = true;
    const c = web();
    const p = plan(await planClone(c, 'w-1'));
    const o = await cloneInstance(c, p, p.candidates[0]!, { settleMs: 10_000, intervalMs: 100 });
    assert.strictEqual(o.status, 'failed');
    assert.strictEqual(o.status === 'failed' && o.rawState, 'clone_failed');
  });

  it('clone --yes --wait 1 on a clone that never finishes: not "cloned", exit 4, JSON outcome cloning (attack round 3)', async () => {
    s.transitionMs = 600_000;
    const r = await runCliAsync(['clone', 'w-1', '--machine', 'm-dear', '--yes', '--wait', '1', '--no-pin'], env);
    assert.strictEqual(r.code, 4, r.stderr);
    assert.doesNotMatch(r.stdout, /: cloned/);
    assert.match(r.stdout, /clone started, not finished \(cloning\)/);
    assert.match(r.stderr, /still cloning after 1 s/);
    s.instances.clear();
    s.add({ platform: 'autodl-web', id: 'w-2', name: 'train2', state: 'shutdown', noFreeGpu: true, gpuName: 'RTX 4090', machineId: 'eaf141be95', regionSign: 'west-B', gpus: 1, dataDiskBytes: 50 * GIB });
    const js = await runCliAsync(['clone', 'w-2', '--machine', 'm-dear', '--yes', '--wait', '1', '--no-pin', '--json'], env);
    assert.strictEqual(js.code, 4, js.stderr);
    const out = JSON.parse(js.stdout) as { outcome: string; settled: boolean };
    assert.deepStrictEqual([out.outcome, out.settled], ['cloning', false]);
  });

  it('no host with a free card: a specific refusal, nothing sent (app and CLI)', async () => {
    for (const m of s.machines) m.gpu_idle_num = 0;
    const r = await planClone(web(), 'w-1');
    assert.ok(isCloneRefusal(r) && r.code === 'noCandidate', JSON.stringify(r));
    const cli = await runCliAsync(['clone', 'w-1', '--yes'], env);
    assert.strictEqual(cli.code, 1, cli.stderr);
    assert.match(cli.stderr, /nothing sent: no host in 北京A区 has 1 free RTX 4090 with room for a 50 GiB data disk now/);
    const js = await runCliAsync(['clone', 'w-1', '--json'], env);
    assert.strictEqual((JSON.parse(js.stdout) as { error: { code: string } }).error.code, 'no-candidate');
    assert.strictEqual(s.sent('autodl-web', CLONE).length, 0);
  });

  it('the built CLI: power-on names gpu-rent clone; clone without --yes lists hosts with ¥/h and sends nothing; with --yes it clones', async () => {
    const on = await runCliAsync(['power-on', 'w-1', '--yes'], env);
    assert.strictEqual(on.code, 1);
    assert.match(on.stderr, /`gpu-rent clone w-1` can move it to a host with a free card/);

    const pre = await runCliAsync(['clone', 'train'], env);
    assert.strictEqual(pre.code, 2, pre.stderr);
    assert.match(pre.stderr, /1\. 102机 \(m-cheap\) 西北B区: 1 free, ¥2\.50\/h/);
    assert.match(pre.stderr, /2\. 101机 \(m-dear\) 西北B区: 3 free, ¥3\.00\/h/);
    assert.match(pre.stderr, /its data disk \(50 GiB expansion\) is copied first/);
    assert.match(pre.stderr, /train stays, shut down, billing its paid data disk/);
    assert.match(pre.stderr, /nothing sent; add --yes/);
    const preJson = JSON.parse((await runCliAsync(['clone', 'w-1', '--machine', 'm-dear', '--json'], env)).stdout) as { preview: boolean; chosen: string; candidates: unknown[] };
    assert.deepStrictEqual([preJson.preview, preJson.chosen, preJson.candidates.length], [true, 'm-dear', 2]);
    assert.strictEqual(s.sent('autodl-web', CLONE).length, 0, 'nothing sent without --yes');

    const bad = await runCliAsync(['clone', 'w-1', '--machine', 'm-nope', '--yes'], env);
    assert.strictEqual(bad.code, 1);
    assert.match(bad.stderr, /host m-nope is not among the candidates/);

    const r = await runCliAsync(['clone', 'w-1', '--machine', 'm-dear', '--yes', '--json', '--no-pin'], env);
    assert.strictEqual(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { ref: string; machineId: string; settled: boolean; state: string; login: { port: number } };
    assert.deepStrictEqual([out.machineId, out.settled, out.state, out.login.port], ['m-dear', true, 'running', s.createLogin.sshPort]);
    assert.strictEqual(s.instances.get(out.ref)?.machineId, 'm-dear');
    assert.strictEqual(s.sent('autodl-web', CLONE).length, 1);
  });
});
