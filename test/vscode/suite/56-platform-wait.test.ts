// Start When a Card Is Free in the real VS Code, against the local platform server started in the
// extension host: the platform refuses the start for want of a card until the refusals are used
// up, then the instance runs; meanwhile Power On for the same instance is refused (one lock per
// instance shared by every power-on path). The wait's 15 s floor is lowered for the test through
// GPU_RENT_WAIT_MIN_INTERVAL_MS (the schedule itself is unit-tested at 15 s).
import * as assert from 'assert';
import * as vscode from 'vscode';
import { PlatformServer } from '../../support/platform-server';
import { noteSecret, waitFor } from '../support';

interface StateInstance {
  id: string;
  platformRef?: { account: string; ref: string };
  intervals: { state: string }[];
}

const state = async () => (await vscode.commands.executeCommand('gpuRent.getState')) as { instances: StateInstance[] };
const current = (i: StateInstance) => i.intervals[i.intervals.length - 1]!;

describe('Start When a Card Is Free (AutoDL Pro against a local platform server)', function () {
  this.timeout(120_000);
  let s: PlatformServer;
  const token = `pro-wait-token-${Date.now()}`;
  const cfg = () => vscode.workspace.getConfiguration('gpuRent');
  let account = '';

  before(async () => {
    await vscode.extensions.getExtension('gpu-rent.gpu-rent')!.activate();
    s = await PlatformServer.start();
    s.creds.autodlPro = token;
    s.transitionMs = 300;
    s.add({ platform: 'autodl-pro', id: 'pro-wait-1', name: 'e2e-wait-for-card', state: 'shutdown', sshPort: 42900 });
    noteSecret(token);
    process.env.GPU_RENT_WAIT_MIN_INTERVAL_MS = '50';
    await cfg().update('platforms.autodlApi', s.url, vscode.ConfigurationTarget.Global);
    account = (await vscode.commands.executeCommand('gpuRent.addPlatformAccount', { platform: 'autodl-pro', token })) as string;
    assert.match(account, /^autodl-pro/);
    await cfg().update('platforms.powerActions', [account], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    delete process.env.GPU_RENT_WAIT_MIN_INTERVAL_MS;
    const linked = (await state()).instances.filter((i) => i.platformRef?.account === account);
    await vscode.commands.executeCommand('gpuRent.removePlatformAccount', { account, confirm: true }).then(undefined, () => undefined);
    for (const i of linked) await vscode.commands.executeCommand('gpuRent.removeInstance', { id: i.id, confirm: true }).then(undefined, () => undefined);
    await cfg().update('platforms.autodlApi', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('platforms.powerActions', undefined, vscode.ConfigurationTarget.Global);
    await s.close();
  });

  it('waits out 当前算力规格暂无库存, refuses a second power-on meanwhile, and runs once a card is free', async () => {
    const inst = await waitFor('the shut-down instance', async () => (await state()).instances.find((i) => i.platformRef?.ref === 'pro-wait-1'));
    assert.strictEqual(current(inst).state, 'stopped');
    s.fault({ platform: 'autodl-pro', on: '/api/v1/dev/instance/pro/power_on', error: 'noStock', times: 1000 });
    const waiting = vscode.commands.executeCommand('gpuRent.powerOnWhenFree', { id: inst.id, confirm: true, waitSeconds: 60 });
    await waitFor('two refused tries', async () => (s.sent('autodl-pro', '/api/v1/dev/instance/pro/power_on').length >= 2 ? true : undefined));
    const second = await vscode.commands.executeCommand('gpuRent.powerOn', { id: inst.id, mode: 'gpu', confirm: true }).then(
      () => '',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    assert.match(second, /PowerOnInFlight/);
    // The card frees up: the remaining refusals are dropped.
    s.faults.length = 0;
    assert.strictEqual(await waiting, 'running');
    const stored = (await state()).instances.find((i) => i.id === inst.id)!;
    assert.strictEqual(current(stored).state, 'running');
  });
});
