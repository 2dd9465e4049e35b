// AutoDL as its pages and public clients say (issue 38), against the local platform server: every
// state word a source reports, the appendix's full spec table, `cuda_v_from` on every Pro create,
// stock through the elastic pool's data-center codes, one balance per account.
import * as assert from 'node:assert';
import { makeConnector, type Endpoints } from '../../src/app/platforms/accounts';
import { createInstance, previewCreate, type CreateInput, type CreatePreview } from '../../src/app/platforms/create';
import { PlatformError } from '../../src/app/platforms/errors';
import { isRefusal, type CreateRefusal } from '../../src/core/platforms/create';
import type { StockReader } from '../../src/app/platforms/stock';
import type { Connector } from '../../src/core/platforms/types';
import elastic from '../fixtures/platforms/autodl-elastic-appendix.json';
import { cloneInstance, planClone } from '../../src/app/platforms/clone';
import { isCloneRefusal } from '../../src/core/platforms/autodlClone';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';

const now = () => Math.floor(Date.now() / 1000);
const CREATE = '/api/v1/dev/instance/pro/create';

function preview(p: CreatePreview | CreateRefusal): CreatePreview {
  assert.ok(!isRefusal(p), `refused: ${JSON.stringify(p)}`);
  return p;
}
const opts = { timeoutMs: 5000, now };

describe('AutoDL as its pages say, on the local platform server', function () {
  this.timeout(30000);
  let s: PlatformServer;
  let ep: Endpoints;
  beforeEach(async () => {
    s = await PlatformServer.start();
    s.transitionMs = 200;
    ep = s.endpoints;
  });
  afterEach(() => s.close());
  const pro = () => makeConnector({ kind: 'autodl-pro' }, { token: s.creds.autodlPro }, ep, opts);

  describe('state words', () => {
    it('a power_off instance is stopped: its release clock from stopped_at, and it can be released', async () => {
      s.add({ platform: 'autodl-pro', id: 'pro-poweroff01', name: 'off', state: 'power_off', stoppedAt: '2026-04-08T00:13:29+08:00' });
      const [p] = await pro().list();
      assert.strictEqual(p!.state, 'stopped', p!.rawState);
      assert.strictEqual(p!.stoppedAt, Date.parse('2026-04-08T00:13:29+08:00') / 1000);
      assert.strictEqual(p!.releaseAt, Date.parse('2026-04-23T00:13:29+08:00') / 1000, 'stopped_at + 15 days');
      assert.strictEqual((await pro().get('pro-poweroff01')).state, 'stopped', 'pro/status says power_off: stopped too');
      await pro().release('pro-poweroff01');
      assert.strictEqual(s.sent('autodl-pro', '/api/v1/dev/instance/pro/release').length, 1, 'the release is sent, not refused as "not shut down"');
    });

    it('every word the sources report has a state, none reads as unknown', async () => {
      const words: Record<string, string> = { sys_volume_creating: 'starting', power_off: 'stopped', shutdown_by_starting_error: 'stopped', shutdown_by_running_error: 'stopped', removing: 'releasing', removed: 'released' };
      for (const w of Object.keys(words)) s.add({ platform: 'autodl-pro', id: `pro-${w.replace(/_/g, '')}`.slice(0, 40), name: w, state: w });
      const list = await pro().list();
      for (const [w, want] of Object.entries(words)) assert.strictEqual(list.find((p) => p.name === w)?.state, want, w);
    });
  });

  describe('stock through the elastic pool', () => {
    const stockOf = () => pro() as Connector & StockReader;

    it('an account with no instance reads every data center of the page, the pool names its cards, Pro specs only where a source maps them', async () => {
      // What the pool names (synthetic counts): a mapped name (RTX 4090D → 4090D, vGPU-48GB → v-48g) and an unmapped one (RTX 4090).
      s.stock.autodl = { westDC3: [{ 'RTX 4090D': { idle_gpu_num: 140, total_gpu_num: 1168 } }, { 'RTX 4090': { idle_gpu_num: 0, total_gpu_num: 1873 } }], beijingDC2: [{ 'vGPU-48GB': { idle_gpu_num: 41, total_gpu_num: 842 } }] };
      s.stock.autodlOther = [];
      const rows = await stockOf().stock();
      assert.deepStrictEqual(s.sent('autodl-pro').map((r) => r.path).filter((p) => p !== '/api/v1/dev/machine/region/gpu_stock'), [], 'no instance list, only gpu_stock');
      const asked = s.sent('autodl-pro', '/api/v1/dev/machine/region/gpu_stock').map((r) => (JSON.parse(r.body) as { region_sign: string }).region_sign);
      assert.deepStrictEqual(asked.sort(), elastic.data_centers.map((d) => d.region_sign).sort());
      const by = (card: string) => rows.find((r) => r.card === card);
      assert.deepStrictEqual([by('RTX 4090D')?.region, by('RTX 4090D')?.proSpec, by('RTX 4090D')?.free], ['westDC3', '4090D', 140]);
      assert.strictEqual(by('vGPU-48GB')?.proSpec, 'v-48g');
      assert.deepStrictEqual([by('RTX 4090')?.card, by('RTX 4090')?.proSpec, by('RTX 4090')?.status], ['RTX 4090', undefined, 'soldOut'], 'the pool\'s "RTX 4090" is shown as it is named, and is no Pro spec (4090-48G is vGPU-48GB)');
    });

    it('a Pro region (neimeng-C) is refused before anything is sent: the API would answer it with an empty success, read as sold out', async () => {
      // The server answers gpu_stock as the real API does for what is no data-center code.
      const raw = await fetch(`${s.url}/api/v1/dev/machine/region/gpu_stock`, { method: 'POST', headers: { Authorization: s.creds.autodlPro, 'Content-Type': 'application/json' }, body: JSON.stringify({ region_sign: 'neimeng-C' }) });
      assert.deepStrictEqual(await raw.json(), { code: 'Success', data: [] });
      s.requests.length = 0;
      await assert.rejects(stockOf().stock({ regions: ['neimeng-C'] }), (e: unknown) => e instanceof PlatformError && e.failure.code === 'NotADataCenter' && /westDC2/.test(e.message) && /neimeng-C/.test(e.message));
      assert.strictEqual(s.sent('autodl-pro').length, 0);
      const rows = await stockOf().stock({ regions: ['westDC2'] });
      assert.deepStrictEqual(rows.map((r) => [r.card, r.region, r.free]), [['RTX 4090', 'westDC2', 3], ['RTX 3090', 'westDC2', 1]], 'a data-center code reads the fixture\'s pool');
    });
  });

  describe('cuda_v_from on every Pro create', () => {
    const input: CreateInput = { card: '4090D', gpus: 1, name: 'train-d', image: 'image-db8346e037' };

    it('the test server refuses a create without cuda_v_from, as the page marks it required', async () => {
      const doc = { req_gpu_amount: 1, expand_system_disk_by_gb: 0, gpu_spec_uuid: 'pro6000-p', image_uuid: 'image-db8346e037', instance_name: 'x' };
      const raw = await fetch(`${s.url}${CREATE}`, { method: 'POST', headers: { Authorization: s.creds.autodlPro, 'Content-Type': 'application/json' }, body: JSON.stringify(doc) });
      assert.strictEqual(((await raw.json()) as { code: string }).code, 'RequestParameterIsWrong');
      assert.strictEqual(s.instances.size, 0, 'nothing made');
    });

    it('no bound and an image whose CUDA is not known (a private image): the page\'s lowest, 113, said so; the create is accepted', async () => {
      const c = pro();
      const p = preview(await previewCreate(c, input));
      assert.deepStrictEqual([p.request.cuda_v_from, p.request.gpu_spec_uuid], [113, '4090D'], 'the appendix\'s 4090D spec');
      assert.deepStrictEqual(p.cuda, { cuda: '11.3', from: 'page' });
      const o = await createInstance(c, p, { settleMs: 0, intervalMs: 50 });
      assert.strictEqual(o.status, 'created', JSON.stringify(o));
      assert.strictEqual((JSON.parse(s.sent('autodl-pro', CREATE)[0]!.body) as { cuda_v_from: number }).cuda_v_from, 113);
    });

    it('a public base image the page lists: its CUDA (base-image-l2t43iu6uk is cuda11.8 → 118); --cuda-min and --torch win over it', async () => {
      const img = preview(await previewCreate(pro(), { ...input, image: 'base-image-l2t43iu6uk' }));
      assert.deepStrictEqual([img.request.cuda_v_from, img.cuda], [118, { cuda: '11.8', from: 'image' }]);
      const flag = preview(await previewCreate(pro(), { ...input, image: 'base-image-l2t43iu6uk', cudaMin: '12.4' }));
      assert.deepStrictEqual([flag.request.cuda_v_from, flag.cuda], [124, { cuda: '12.4', from: 'flag' }]);
      const torch = preview(await previewCreate(pro(), { ...input, torch: '2.1.0+cu121' }));
      assert.deepStrictEqual([torch.request.cuda_v_from, torch.cuda], [121, { cuda: '12.1', from: 'torch' }]);
    });

    it('--region is a data-center code: an instance region (neimeng-C) is refused before anything is sent', async () => {
      const r = await previewCreate(pro(), { ...input, region: 'neimeng-C' });
      assert.ok(isRefusal(r) && r.code === 'unknownRegion' && /westDC3/.test(String(r.detail.known)), JSON.stringify(r));
      assert.strictEqual(s.sent('autodl-pro').length, 0);
      assert.deepStrictEqual(preview(await previewCreate(pro(), { ...input, region: 'beijingDC2' })).request.data_center_list, ['beijingDC2']);
    });
  });

  describe('the console row, the wallet, one account', () => {
    it('a clone whose detail sends no data_disk_expand_size copies the disk the console row names (expand_data_disk_size)', async () => {
      const GIB = 2 ** 30;
      s.add({ platform: 'autodl-web', id: 'w-1', name: 'train', state: 'shutdown', noFreeGpu: true, gpuName: 'RTX 4090', machineId: 'eaf141be95', regionSign: 'west-B', gpus: 1, dataDiskBytes: 50 * GIB });
      // Synthetic free cards on autodl-gpuhunter's docstring host row.
      s.machines = [{ machine_id: 'm-free', machine_alias: '101机', gpu_idle_num: 2, gpu_order_num: 2, payg_price: 3000 }];
      s.detailWithoutDisk = true;
      const c = makeConnector({ kind: 'autodl-web' }, { token: s.creds.autodlWeb }, ep, opts);
      const p = await planClone(c, 'w-1');
      assert.ok(!isCloneRefusal(p), JSON.stringify(p));
      assert.strictEqual(p.source.dataDiskBytes, 50 * GIB, 'from the row, not 0');
      const o = await cloneInstance(c, p, p.candidates[0]!, { settleMs: 0, intervalMs: 50 });
      assert.strictEqual(o.status, 'cloned');
      const body = JSON.parse(s.sent('autodl-web', '/api/v1/order/instance/clone/payg')[0]!.body) as { instance_info: { expand_data_disk: number } };
      assert.strictEqual(body.instance_info.expand_data_disk, 50 * GIB, 'the new instance gets the same data disk');
    });

    it('the wallet is assets as sent: a blocked_asset beside it is not subtracted', async () => {
      s.balances.autodlPro = 29290;
      s.walletBlockedLi = 1000;
      const b = await pro().balance();
      assert.strictEqual(b.fen, 2929);
    });

    it('a Pro token and a console token whose JWTs name the same uid are one account: gpu-rent balance counts its wallet once; another uid counts', async () => {
      const jwt = (payload: object) => ['{"alg":"HS256","typ":"JWT"}', JSON.stringify(payload)].map((x) => Buffer.from(x).toString('base64url')).join('.') + '.c2lnbmF0dXJl';
      // Synthetic tokens of the form a public client decodes (uid in the payload); 230135 is a uid gpuhunter's docstring shows.
      s.creds.autodlPro = jwt({ uid: 230135, uuid: 'dev' });
      s.creds.autodlWeb = jwt({ uid: 230135, uuid: 'web' });
      const home = await mkdtemp(join(tmpdir(), 'gpu-rent-balance-'));
      try {
        const env = { GPU_RENT_HOME: home, HOME: home, LANG: 'C', GPU_RENT_AUTODL_API: s.url, GPU_RENT_AUTODL_WEB_API: s.url, GPU_RENT_AUTODL_TOKEN: s.creds.autodlPro, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb };
        const r = await runCliAsync(['balance', '--json'], env);
        assert.strictEqual(r.code, 0, r.stderr);
        const rows = JSON.parse(r.stdout) as { account: string; fen: number }[];
        assert.deepStrictEqual(rows.map((x) => [x.account, x.fen]), [['env-autodl-pro', 12345]], 'one balance, not ¥123.45 + ¥88.00');
        assert.match(r.stderr, /env-autodl-web is the same account as env-autodl-pro: counted once/);
        s.creds.autodlWeb = jwt({ uid: 999001 });
        const two = await runCliAsync(['balance', '--json'], { ...env, GPU_RENT_AUTODL_WEB_TOKEN: s.creds.autodlWeb });
        assert.deepStrictEqual((JSON.parse(two.stdout) as { account: string }[]).map((x) => x.account), ['env-autodl-pro', 'env-autodl-web'], 'another uid is another account');
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    });
  });
});
