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
  });
});
