// The guard commands in a real VS Code against the loopback sshd.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { exec, fails, log, readInfo } from '../support';


describe('guard commands on the loopback sshd', function () {
  this.timeout(120_000);
  const { sshd } = readInfo();
  let id = '';
  const ramDir = `/dev/shm/gpu-rent-e2e-${process.pid}`;
  const ckpt = path.posix.join(sshd.home, 'guards-ckpt');

  before(async () => {
    await vscode.extensions.getExtension('gpu-rent.gpu-rent')!.activate();
    id = await exec<string>('gpuRent.addInstance', { name: 'guards box', login: `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`, password: sshd.password, platform: 'autodl', card: 'RTX 4090', hourlyRate: 1.98, dataDiskGb: 20, state: 'running' });
    await exec('gpuRent.checkGpu', { id, acceptNewHostKey: true, quiet: true });
  });

  it('uploads to RAM only, refuses a disk folder, and wipes', async () => {
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-up-'));
    fs.writeFileSync(path.join(local, 'data.csv'), 'a,b\n1,2\n');
    fs.writeFileSync(path.join(local, '.env'), 'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789\n');
    const r = await exec<{ dir: string; files: number; bytes: number }>('gpuRent.uploadToMemory', { id, paths: [local], dir: ramDir });
    log(`upload: ${JSON.stringify(r)}`);
    assert.equal(r.files, 2);
    const onBox = path.join(ramDir, path.basename(local), 'data.csv');
    assert.equal(fs.readFileSync(onBox, 'utf8'), 'a,b\n1,2\n');
    assert.equal(fs.statSync(onBox).mode & 0o777, 0o600);
    const refused = await fails('gpuRent.uploadToMemory', { id, paths: [local], dir: `${sshd.home}/not-ram` });
    log(`refused: ${refused}`);
    assert.match(refused, /not in RAM/);
    assert.ok(!fs.existsSync(`${sshd.home}/not-ram/${path.basename(local)}/.env`), 'nothing reached the disk');
    assert.match(await fails('gpuRent.uploadToMemory', { id, paths: [local], dir: 'relative' }), /dir/);
    assert.equal(await exec<string>('gpuRent.wipeMemoryUpload', { id, dir: ramDir }), 'wiped');
    assert.ok(!fs.existsSync(ramDir));
    const scan = await exec<{ files: number; findings: { kind: string }[] }>('gpuRent.scanSecrets', { path: local });
    log(`scan: ${JSON.stringify(scan)}`);
    assert.ok(scan.findings.some((f) => f.kind === 'dotenv'));
    assert.ok(scan.findings.some((f) => f.kind === 'huggingFaceToken'));
  });

  it('captures the environment into the workspace', async () => {
    const r = await exec<{ dir: string; python: string | null; packages: number }>('gpuRent.captureEnvironment', { id });
    log(`capture: ${JSON.stringify(r)}`);
    // One folder format with the CLI (gpu-rent env capture): gpu-rent-env.json, version 2.
    const snap = JSON.parse(fs.readFileSync(path.join(r.dir, 'gpu-rent-env.json'), 'utf8'));
    assert.equal(snap.version, 2);
    assert.ok(fs.existsSync(path.join(r.dir, 'requirements.txt')));
    assert.ok(r.dir.startsWith(vscode.workspace.workspaceFolders![0]!.uri.fsPath));
    const bad = path.join(r.dir, 'bad.json');
    fs.writeFileSync(bad, '{"version":1}');
    const msg = await fails('gpuRent.rebuildEnvironment', { id, snapshotPath: bad, envName: 'x1' });
    log(`rebuild refused: ${msg}`);
    assert.match(msg, /not an environment capture/);
    assert.match(await fails('gpuRent.rebuildEnvironment', { id, snapshotPath: bad, envName: '../x' }), /envName/);
  });

  it('installs the watchdog armed, reports it, removes it', async () => {
    const s = await exec<{ armed: boolean; pid: number | null }>('gpuRent.installWatchdog', { id, action: 'none', windowSeconds: 600, pollSeconds: 1, hookCommand: 'echo synced' });
    log(`watchdog: ${JSON.stringify(s)}`);
    assert.equal(s.armed, true);
    const st = await exec<{ installed: boolean; armed: boolean; events: { kind: string }[] }>('gpuRent.watchdogStatus', { id });
    assert.ok(st.installed && st.armed);
    assert.ok(st.events.some((e) => e.kind === 'armed'));
    assert.match(await fails('gpuRent.installWatchdog', { id, action: 'command' }), /actionCommand/);
    const r = await exec<{ wasInstalled: boolean; wasRunning: boolean }>('gpuRent.removeWatchdog', { id });
    assert.deepEqual(r, { wasInstalled: true, wasRunning: true });
  });

  it('release lists unsynced checkpoints, then wipes the RAM upload when it goes ahead', async () => {
    fs.mkdirSync(ckpt, { recursive: true });
    fs.writeFileSync(path.join(ckpt, 'epoch9.pt'), 'w'.repeat(1000));
    const own = (p: string) => fs.chownSync(p, fs.statSync(sshd.home).uid, fs.statSync(sshd.home).gid);
    own(ckpt);
    own(path.join(ckpt, 'epoch9.pt'));
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-local-'));
    await exec('gpuRent.syncCheckpoints', { id, remoteDir: ckpt, localDir: local });
    assert.ok(fs.existsSync(path.join(local, 'epoch9.pt')));
    fs.writeFileSync(path.join(ckpt, 'epoch10.pt'), 'x'.repeat(5000));
    own(path.join(ckpt, 'epoch10.pt'));
    const f = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-up2-'));
    fs.writeFileSync(path.join(f, 'k'), 'secret');
    await exec('gpuRent.uploadToMemory', { id, paths: [f], dir: ramDir });
    assert.ok(fs.existsSync(ramDir));
    const blocked = await fails('gpuRent.releaseInstance', { id });
    log(`blocked: ${blocked}`);
    assert.match(blocked, /1 checkpoint files .* not synced: epoch10\.pt$/);
    assert.ok(fs.existsSync(ramDir), 'nothing wiped while refused');
    const st0 = await exec<{ guardNotices: unknown[] }>('gpuRent.getState');
    log(`notices: ${JSON.stringify(st0.guardNotices)}`);
    assert.equal(await exec<boolean>('gpuRent.releaseInstance', { id, discardUnsynced: true }), true);
    assert.ok(!fs.existsSync(ramDir), 'the RAM upload is wiped on release');
  });
});
