// New Instance… in the real VS Code, against the local platform server started inside the
// extension host: a scripted create on an AutoDL Pro account appears in the tree (getState)
// with the platform's login, a create whose answer is lost is found by name and never sent
// twice, and a refusal (not real-name verified) creates nothing and says what to do.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { PlatformServer } from '../../support/platform-server';
import { log, noteSecret, waitFor } from '../support';

const EXTENSION_ID = 'gpu-rent.gpu-rent';
const CREATE = '/api/v1/dev/instance/pro/create';

interface StateInstance {
  id: string;
  name: string;
  login: { host: string; port: number };
  platformRef?: { account: string; ref: string };
}

const instances = async (): Promise<StateInstance[]> => ((await vscode.commands.executeCommand('gpuRent.getState')) as { instances: StateInstance[] }).instances;

describe('New Instance… (AutoDL Pro create against a local platform server)', function () {
  this.timeout(120_000);
  let s: PlatformServer;
  const token = `pro-token-create-${Date.now()}-secret`;
  const cfg = () => vscode.workspace.getConfiguration('gpuRent');
  const args = (name: string) => ({ account: 'autodl-pro', card: '4090-48G', gpus: 1, image: 'base-image-12be412037', torch: '2.1.0+cu121', name, waitSeconds: 20, confirm: true as const });

  before(async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
    s = await PlatformServer.start();
    s.creds.autodlPro = token;
    s.transitionMs = 300;
    s.createLogin = { sshPort: 43022, password: 'pw-created-e2e' };
    noteSecret(token);
    noteSecret('pw-created-e2e');
    await cfg().update('platforms.autodlApi', s.url, vscode.ConfigurationTarget.Global);
    await cfg().update('platforms.powerActions', ['autodl-pro'], vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('gpuRent.addPlatformAccount', { platform: 'autodl-pro', token });
  });

  after(async () => {
    const linked = (await instances()).filter((i) => i.platformRef?.account === 'autodl-pro');
    await vscode.commands.executeCommand('gpuRent.removePlatformAccount', { account: 'autodl-pro', confirm: true }).then(undefined, () => undefined);
    for (const i of linked) await vscode.commands.executeCommand('gpuRent.removeInstance', { id: i.id, confirm: true }).then(undefined, () => undefined);
    await cfg().update('platforms.autodlApi', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('platforms.powerActions', undefined, vscode.ConfigurationTarget.Global);
    await s.close();
  });

  it('creates it (the page’s body, cuda_v_from from the torch wheel); it appears in the tree with the platform’s login', async () => {
    const ref = (await vscode.commands.executeCommand('gpuRent.createInstance', args('e2e-created-1'))) as string;
    assert.match(ref, /^pro-/);
    const body = JSON.parse(s.sent('autodl-pro', CREATE)[0]!.body) as Record<string, unknown>;
    assert.strictEqual(body.gpu_spec_uuid, 'v-48g');
    assert.strictEqual(body.cuda_v_from, 121);
    const inst = await waitFor('the created instance in getState', async () => (await instances()).find((i) => i.platformRef?.ref === ref));
    assert.strictEqual(inst.name, 'e2e-created-1');
    assert.deepStrictEqual([inst.login.host, inst.login.port], ['127.0.0.1', 43022]);
  });

  it('a lost answer is found by name; the same name again sends nothing and gives the same instance', async () => {
    s.loseReply.add(CREATE);
    const ref = (await vscode.commands.executeCommand('gpuRent.createInstance', args('e2e-created-2'))) as string;
    assert.match(ref, /^pro-/);
    const again = (await vscode.commands.executeCommand('gpuRent.createInstance', args('e2e-created-2'))) as string;
    assert.strictEqual(again, ref);
    assert.strictEqual(s.sent('autodl-pro', CREATE).length, 2, 'one create per name');
    await waitFor('one tree entry for it', async () => ((await instances()).filter((i) => i.platformRef?.ref === ref).length === 1 ? true : undefined));
    log(`lost create answer recovered by name: ${ref}`);
  });

  it('refused (not real-name verified): nothing created, and the words say what to do', async () => {
    const before = s.instances.size;
    s.fault({ platform: 'autodl-pro', on: CREATE, error: 'realName' });
    const e = await vscode.commands.executeCommand('gpuRent.createInstance', args('e2e-created-3')).then(() => undefined, (err: unknown) => err);
    assert.ok(e instanceof Error, 'not refused');
    assert.match(e.message, /Nothing created/);
    assert.match(e.message, /TORealName/);
    assert.strictEqual(s.instances.size, before);
  });
});
