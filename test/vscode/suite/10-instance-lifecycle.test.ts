// Integration in a real VS Code against the real loopback sshd: the user's path through the
// extension's commands (driven with arguments, as tests and other extensions do), checked on
// real files: the remote box, the local checkpoint folder and VS Code's own storage.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { EXPECTED_GPU_NAME, RUNNING_HOURLY_RATE_YUAN, RUNNING_INSTANCE, STOPPED_INSTANCE } from '../../e2e/shared';
import { filesUnder, log, noteSecret, readInfo, waitFor } from '../support';

const C = {
  addInstance: 'gpuRent.addInstance',
  checkGpu: 'gpuRent.checkGpu',
  startTraining: 'gpuRent.startTraining',
  syncCheckpoints: 'gpuRent.syncCheckpoints',
  switchState: 'gpuRent.switchState',
  removeInstance: 'gpuRent.removeInstance',
  showLog: 'gpuRent.showLog',
  getState: 'gpuRent.getState',
} as const;

interface StateInstance {
  id: string;
  name: string;
  lastProbe?: { gpus: { name: string; memoryTotalBytes?: number }[] };
  jobs?: { id: string; command: string }[];
  sync?: { remoteDir: string; localDir: string; lastSyncAt?: number; lastError?: string };
}

async function instances(): Promise<StateInstance[]> {
  const s = (await vscode.commands.executeCommand(C.getState)) as { instances?: StateInstance[] } | undefined;
  assert.ok(s && Array.isArray(s.instances), `${C.getState} returned no instances list: ${JSON.stringify(s)?.slice(0, 300)}`);
  return s.instances;
}

async function byName(name: string): Promise<StateInstance> {
  const found = (await instances()).find((i) => i.name === name);
  assert.ok(found, `no instance named ${name} in the extension's state`);
  return found;
}

describe('an instance on the loopback sshd, driven through the commands', function () {
  this.timeout(120_000);
  const info = readInfo();
  const { sshd } = info;
  const remoteRun = path.posix.join(sshd.home, 'e2e-run');
  const remoteCkpt = path.posix.join(remoteRun, 'ckpt');
  const weights = `weights-${Date.now()}`;
  let id = '';
  const passwordsToScan = [sshd.password];

  before(async () => {
    const ext = vscode.extensions.getExtension('gpu-rent.gpu-rent');
    assert.ok(ext, 'gpu-rent is not loaded');
    await ext.activate();
  });

  it('adds an instance from a pasted login command and its password', async () => {
    await vscode.commands.executeCommand(C.addInstance, {
      name: RUNNING_INSTANCE,
      login: `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`,
      password: sshd.password,
      platform: 'autodl',
      card: 'RTX 4090',
      gpuCount: 1,
      billingMode: 'hourly',
      hourlyRate: RUNNING_HOURLY_RATE_YUAN,
      dataDiskGb: 50,
      state: 'running',
    });
    const inst = await byName(RUNNING_INSTANCE);
    id = inst.id;
    assert.ok(id, 'the new instance has no id');
  });

  it('Check GPU probes the box over SSH and records the GPU name', async () => {
    // The first connection pins the host key; from a script that is said with acceptNewHostKey.
    const r = (await vscode.commands.executeCommand(C.checkGpu, { id, acceptNewHostKey: true, quiet: true })) as { gpus?: { name: string }[] } | undefined;
    assert.deepStrictEqual(r?.gpus?.map((g) => g.name), [EXPECTED_GPU_NAME], `Check GPU returned ${JSON.stringify(r)?.slice(0, 300)}`);
    const inst = await waitFor('the probe to be recorded', async () => {
      const i = await byName(RUNNING_INSTANCE);
      return i.lastProbe && i.lastProbe.gpus.length > 0 ? i : undefined;
    }, 60_000);
    const gpu = inst.lastProbe!.gpus[0]!;
    assert.strictEqual(gpu.name, EXPECTED_GPU_NAME);
    assert.strictEqual(gpu.memoryTotalBytes, 24564 * 1024 * 1024, 'the RTX 4090 fixture reports 24564 MiB');
    log(`probed: ${gpu.name}`);
  });

  it('starts a detached training job that runs on the box and writes a checkpoint', async () => {
    const cmd = `mkdir -p ckpt && for i in 1 2 3; do echo "step $i"; sleep 0.3; done && printf '%s' "$E2E_WEIGHTS" > ckpt/epoch1.pt`;
    fs.mkdirSync(remoteRun, { recursive: true }); // the host runs as root on the same machine
    fs.chownSync(remoteRun, fs.statSync(sshd.home).uid, fs.statSync(sshd.home).gid);
    await vscode.commands.executeCommand(C.startTraining, { id, command: cmd, cwd: remoteRun, env: { E2E_WEIGHTS: weights }, expectedHours: 0.1 });
    const inst = await byName(RUNNING_INSTANCE);
    assert.ok((inst.jobs ?? []).some((j) => j.command.includes('ckpt/epoch1.pt')), `the job is not listed: ${JSON.stringify(inst.jobs)}`);
    const ckpt = path.join(remoteCkpt, 'epoch1.pt');
    await waitFor(`${ckpt} on the box`, () => fs.existsSync(ckpt) && fs.readFileSync(ckpt, 'utf8') === weights, 30_000);
  });

  it('syncs the checkpoint to a local folder, byte for byte', async () => {
    await vscode.commands.executeCommand(C.syncCheckpoints, { id, remoteDir: remoteCkpt, localDir: info.localSyncDir });
    const local = await waitFor('the synced checkpoint', () => filesUnder(info.localSyncDir).find((f) => path.basename(f) === 'epoch1.pt'), 30_000);
    assert.strictEqual(fs.readFileSync(local, 'utf8'), weights);
    const inst = await byName(RUNNING_INSTANCE);
    assert.ok(inst.sync?.lastSyncAt, `the sync is not recorded: ${JSON.stringify(inst.sync)}`);
    assert.strictEqual(inst.sync?.lastError, undefined);
  });

  it('adds a stopped instance on another platform that bills only its data disk', async () => {
    await vscode.commands.executeCommand(C.addInstance, {
      name: STOPPED_INSTANCE, login: `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`, password: sshd.password,
      platform: 'lanrui', card: 'RTX 3090', gpuCount: 2, hourlyRate: 3.2, storageGbDay: 0.01, dataDiskGb: 100, state: 'stopped',
    });
    const stopped = await byName(STOPPED_INSTANCE);
    const s = (await vscode.commands.executeCommand(C.getState)) as { spend: { perInstance: { id: string; burnRate: number; state?: string }[] } };
    const mine = s.spend.perInstance.find((p) => p.id === stopped.id);
    assert.ok(mine, 'no spend line for the stopped instance');
    assert.strictEqual(mine.state, 'stopped');
    // 100 GB at ¥0.01/GB/day = ¥1/day ≈ 4.17 fen/h; the GPU rate (¥3.2/h = 320 fen/h) must not bill.
    assert.ok(mine.burnRate > 0 && mine.burnRate < 10, `a stopped instance should bill only storage: burnRate ${mine.burnRate}`);
  });

  it('refuses bad arguments with a message naming the problem, and stores nothing', async () => {
    const before = (await instances()).length;
    const base = { login: `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`, platform: 'autodl', card: 'RTX 4090' };
    const refused = async (args: unknown, mention: RegExp) => {
      const e = await vscode.commands.executeCommand(C.addInstance, args).then(() => undefined, (err: unknown) => err);
      assert.ok(e instanceof Error, `${JSON.stringify(args)} was accepted`);
      assert.match(e.message, mention);
      assert.doesNotMatch(e.message, /\n\s+at /, 'the message carries a stack trace');
    };
    await refused({ ...base, passwrod: 'typo' }, /passwrod/);
    await refused({ ...base, login: 'ssh -p 99999 root@' }, /login|port|host/i);
    await refused({ ...base, hourlyRate: -1 }, /hourlyRate/);
    assert.strictEqual((await instances()).length, before, 'a refused add stored something');
  });

  it('a wrong password fails Check GPU with a clear message, and removing the instance forgets it', async () => {
    const wrong = `wrong-${Date.now()}-pw`;
    const added = (await vscode.commands.executeCommand(C.addInstance, {
      name: 'e2e-wrong-password', login: `ssh -p ${sshd.port} root@${sshd.host}`, password: wrong, platform: 'autodl', card: 'RTX 4090', state: 'running',
    })) as string;
    assert.strictEqual(typeof added, 'string', 'addInstance returns the new id');
    const e = await vscode.commands.executeCommand(C.checkGpu, { id: added, acceptNewHostKey: true, quiet: true }).then(() => undefined, (err: unknown) => err);
    assert.ok(e instanceof Error, 'Check GPU succeeded with a wrong password');
    assert.match(e.message, /password|auth|login|denied/i);
    assert.ok(!e.message.includes(wrong), 'the error message shows the password');
    assert.strictEqual(await vscode.commands.executeCommand(C.removeInstance, added), true);
    assert.ok(!(await instances()).some((i) => i.id === added), 'the removed instance is still listed');
    passwordsToScan.push(wrong);
    noteSecret(wrong);
  });

  it('keeps the password out of settings, stored state and the log', async () => {
    const stateJson = JSON.stringify(await vscode.commands.executeCommand(C.getState));
    assert.ok(stateJson.includes(RUNNING_INSTANCE), 'state read back holds the instance');
    for (const pw of passwordsToScan) assert.ok(!stateJson.includes(pw), 'getState leaks a password');
    // Give VS Code time to flush globalState and the log to disk, then read every file it wrote.
    await new Promise((r) => setTimeout(r, 3000));
    const files = filesUnder(info.userDataDir);
    const hits = files.filter((f) => passwordsToScan.some((pw) => fs.readFileSync(f).includes(pw)));
    assert.deepStrictEqual(hits, [], `the password is in: ${hits.join(', ')}`);
    const settings = path.join(info.userDataDir, 'User', 'settings.json');
    assert.ok(fs.existsSync(settings), 'settings.json exists (the scan saw it)');
    // The scan reached the extension's own log: it is there and names the instance.
    const ownLogs = files.filter((f) => f.includes(`${path.sep}gpu-rent.gpu-rent${path.sep}`) && f.endsWith('.log'));
    assert.ok(ownLogs.some((f) => fs.readFileSync(f, 'utf8').includes(id)), `the extension's log (${ownLogs.join(', ') || 'none found'}) does not name instance ${id}`);
    log(`scanned ${files.length} files under the user-data dir, including ${ownLogs.map((f) => path.relative(info.userDataDir, f)).join(', ')}`);
  });
});
