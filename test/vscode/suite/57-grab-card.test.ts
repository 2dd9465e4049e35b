// Grab a Card… in the real VS Code, against the local platform server started in the extension
// host: the AutoDL Pro pool is sold out, the grab keeps watching (a second grab for the same
// target is refused meanwhile: the lock gpu-rent takes too), then the card frees up and the
// instance is created once. The watch's minute floor is lowered for the test through
// GPU_RENT_WAIT_MIN_INTERVAL_MS (the rules are unit-tested at full scale).
import * as assert from 'assert';
import * as vscode from 'vscode';
import { PlatformServer } from '../../support/platform-server';
import { noteSecret, waitFor } from '../support';

const STOCK = '/api/v1/dev/machine/region/gpu_stock';
const CREATE = '/api/v1/dev/instance/pro/create';

describe('Grab a Card (AutoDL Pro against a local platform server)', function () {
  this.timeout(120_000);
  let s: PlatformServer;
  const token = `pro-grab-token-${Date.now()}`;
  const cfg = () => vscode.workspace.getConfiguration('gpuRent');
  let account = '';

  before(async () => {
    await vscode.extensions.getExtension('gpu-rent.gpu-rent')!.activate();
    s = await PlatformServer.start();
    s.creds.autodlPro = token;
    s.transitionMs = 300;
    noteSecret(token);
    process.env.GPU_RENT_WAIT_MIN_INTERVAL_MS = '50';
    await cfg().update('platforms.autodlApi', s.url, vscode.ConfigurationTarget.Global);
    account = (await vscode.commands.executeCommand('gpuRent.addPlatformAccount', { platform: 'autodl-pro', token })) as string;
    assert.match(account, /^autodl-pro/);
    await cfg().update('platforms.powerActions', [account], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    delete process.env.GPU_RENT_WAIT_MIN_INTERVAL_MS;
    await vscode.commands.executeCommand('gpuRent.removePlatformAccount', { account, confirm: true }).then(undefined, () => undefined);
    await cfg().update('platforms.autodlApi', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('platforms.powerActions', undefined, vscode.ConfigurationTarget.Global);
    await s.close();
  });

  it('watches while sold out, refuses a second grab of the same target, creates once when the card frees up', async () => {
    // Synthetic counts in the fixture's gpu_stock shape.
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 0, total_gpu_num: 8 } }] };
    const args = { action: 'create', card: '4090D', regions: ['westDC2'], image: 'base-image-12be412037', name: 'e2e-grab-4090d', waitSeconds: 60, confirm: true };
    const grabbing = vscode.commands.executeCommand('gpuRent.grabCard', args);
    await waitFor('two sold-out reads', async () => (s.sent('autodl-pro', STOCK).length >= 2 ? true : undefined));
    const second = await vscode.commands.executeCommand('gpuRent.grabCard', args).then(
      () => '',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    assert.match(second, /already being grabbed or started/);
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 0, 'nothing created while sold out');
    s.stock.autodl = { westDC2: [{ 'RTX 4090D': { idle_gpu_num: 1, total_gpu_num: 8 } }] };
    const ref = (await grabbing) as string;
    assert.match(ref, /^pro-/);
    const sent = s.sent('autodl-pro', CREATE);
    assert.strictEqual(sent.length, 1);
    const body = JSON.parse(sent[0]!.body) as Record<string, unknown>;
    assert.deepStrictEqual([body.gpu_spec_uuid, body.data_center_list, body.instance_name], ['4090D', ['westDC2'], 'e2e-grab-4090d']);
  });
});
