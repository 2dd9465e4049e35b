// The commands no other suite drives, each at least once, in a real VS Code against the real
// loopback sshd, and the application layer's promises a renter relies on: a new password on
// the same host:port is what the next connection uses, a connection setting applies to the
// next connection, a changed host key names host and port, sync remembers its folders, and a
// capture made by the CLI is rebuilt by the extension (and the other way round).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { exec, fails, log, readInfo, waitFor } from '../support';


interface StateInstance {
  id: string;
  name: string;
  login: { host: string; port: number; previousEndpoints?: { host: string; port: number }[] };
  pricing: { hourlyRate: number; dataDiskGb: number };
  sync?: { remoteDir: string; localDir: string; lastSyncAt?: number };
  jobs?: { id: string; state?: string; exitCode?: number | null }[];
}
interface State {
  instances: StateInstance[];
  watching: string[];
  connections: Record<string, string | null>;
}
const state = () => exec<State>('gpuRent.getState');
const inst = async (id: string) => (await state()).instances.find((i) => i.id === id)!;

const REPO = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(REPO, 'dist', 'cli.js');

describe('every instance command, on the loopback sshd', function () {
  this.timeout(120_000);
  const { sshd } = readInfo();
  const login = `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`;
  let id = '';
  const work = path.posix.join(sshd.home, 'cmds');
  const own = (p: string) => fs.chownSync(p, fs.statSync(sshd.home).uid, fs.statSync(sshd.home).gid);

  before(async () => {
    await vscode.extensions.getExtension('gpu-rent.gpu-rent')!.activate();
    id = await exec<string>('gpuRent.addInstance', { name: 'commands box', login, password: sshd.password, platform: 'autodl', card: 'RTX 4090', hourlyRate: 2, dataDiskGb: 10, state: 'running' });
    await exec('gpuRent.checkGpu', { id, acceptNewHostKey: true, quiet: true });
    fs.mkdirSync(work, { recursive: true });
    own(work);
  });

  it('Edit Instance changes the name, the price from now on, and the sync folders', async () => {
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-edit-'));
    await exec('gpuRent.editInstance', { id, name: 'commands box (edited)', hourlyRate: 2.5, dataDiskGb: 20, syncRemoteDir: `${work}/ckpt`, syncLocalDir: local });
    const i = await inst(id);
    assert.equal(i.name, 'commands box (edited)');
    assert.equal(i.pricing.hourlyRate, 250);
    assert.equal(i.pricing.dataDiskGb, 20);
    assert.deepEqual({ remoteDir: i.sync?.remoteDir, localDir: i.sync?.localDir }, { remoteDir: `${work}/ckpt`, localDir: local });
    assert.match(await fails('gpuRent.editInstance', { id, syncRemoteDir: 'relative/dir' }), /syncRemoteDir/);
  });

  it('Sync Checkpoints Now uses the folders the instance remembers, and reports bytes and speed', async () => {
    fs.mkdirSync(`${work}/ckpt`, { recursive: true });
    own(`${work}/ckpt`);
    fs.writeFileSync(`${work}/ckpt/step100.pt`, 'c'.repeat(70_000));
    own(`${work}/ckpt/step100.pt`);
    const r = await exec<{ files: number; bytes: number; bytesPerSecond: number; seconds: number }>('gpuRent.syncCheckpoints', { id });
    log(`sync: ${JSON.stringify(r)}`);
    assert.equal(r.files, 1);
    assert.equal(r.bytes, 70_000);
    assert.ok(r.bytesPerSecond > 0 && r.seconds >= 0);
    const i = await inst(id);
    assert.equal(fs.readFileSync(path.join(i.sync!.localDir, 'step100.pt'), 'utf8').length, 70_000);
  });

  it('Keep Syncing pulls new checkpoints in the background; Stop Syncing stops it', async () => {
    // Written before the watch starts: its first pass runs at once (later ones every sync.watchIntervalSeconds).
    fs.writeFileSync(`${work}/ckpt/step200.pt`, 'd'.repeat(1000));
    own(`${work}/ckpt/step200.pt`);
    fs.utimesSync(`${work}/ckpt/step200.pt`, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    assert.equal(await exec<boolean>('gpuRent.watchCheckpoints', { id }), true);
    assert.ok((await state()).watching.includes(id));
    const local = (await inst(id)).sync!.localDir;
    await waitFor('the watch to pull step200.pt', () => fs.existsSync(path.join(local, 'step200.pt')), 60_000);
    assert.equal(await exec<boolean>('gpuRent.stopWatching', { id }), true);
    await waitFor('the watch to stop', async () => !(await state()).watching.includes(id));
    assert.equal(await exec<boolean>('gpuRent.stopWatching', { id }), false, 'nothing left to stop');
  });

  it('Jobs and Logs lists a job, reads its log, and records that it finished', async () => {
    const job = await exec<string>('gpuRent.startTraining', { id, command: 'echo hello-from-job; exit 3', cwd: work });
    await waitFor('the job to exit', async () => {
      const r = await exec<{ jobs: { name: string; state: string }[] }>('gpuRent.showJobs', { id, jobId: job, follow: false });
      return r.jobs.find((j) => j.name === job)?.state === 'exited';
    }, 30_000);
    const r = await exec<{ jobs: { name: string; state: string; exitCode: number | null }[]; text?: string }>('gpuRent.showJobs', { id, jobId: job, follow: false });
    assert.match(r.text ?? '', /hello-from-job/);
    assert.equal(r.jobs.find((j) => j.name === job)?.exitCode, 3);
    const ref = (await inst(id)).jobs?.find((j) => j.id === job);
    assert.deepEqual({ state: ref?.state, exitCode: ref?.exitCode }, { state: 'exited', exitCode: 3 }, 'the tree still shows the job as running');
  });

  it('Open Terminal opens a shell on the box', async () => {
    const term = await exec<vscode.Terminal>('gpuRent.openTerminal', { id });
    assert.ok(term, 'no terminal');
    assert.match(term.name, /commands box/);
    term.dispose();
  });

  it('Open in Remote-SSH writes its Host block before `Host *`, atomically, with a backup', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-sshcfg-'));
    const cfg = path.join(dir, 'config');
    const before = 'Host *\n  User nobody\n  ServerAliveInterval 99\n';
    fs.writeFileSync(cfg, before, { mode: 0o600 });
    await vscode.workspace.getConfiguration('gpuRent').update('connection.sshConfigPath', cfg, vscode.ConfigurationTarget.Global);
    try {
      const alias = await exec<string>('gpuRent.openInRemoteSsh', { id, confirm: true, open: false });
      const text = fs.readFileSync(cfg, 'utf8');
      log(`ssh config:\n${text}`);
      assert.ok(text.indexOf(`Host ${alias}`) >= 0 && text.indexOf(`Host ${alias}`) < text.indexOf('Host *'), 'our block must come before Host *');
      assert.equal(fs.readFileSync(cfg + '.gpu-rent.bak', 'utf8'), before);
      assert.equal(fs.statSync(cfg).mode & 0o777, 0o600);
      assert.match(text, new RegExp(`Port ${sshd.port}`));
    } finally {
      await vscode.workspace.getConfiguration('gpuRent').update('connection.sshConfigPath', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('a new password on the same host:port is what the next connection uses (Update Login)', async () => {
    const wrong = `not-the-password-${Date.now()}`;
    await exec('gpuRent.updateLogin', { id, login, password: wrong });
    const msg = await fails('gpuRent.checkGpu', { id, quiet: true });
    log(`with the wrong password: ${msg}`);
    assert.match(msg, /refused the login/);
    assert.ok(msg.includes(`${sshd.host}:${sshd.port}`), `the message names host and port: ${msg}`);
    await exec('gpuRent.updateLogin', { id, login, password: sshd.password });
    await exec('gpuRent.checkGpu', { id, quiet: true });
  });

  it('a changed connection setting applies to the next connection', async () => {
    assert.equal((await state()).connections[id], 'connected');
    await vscode.workspace.getConfiguration('gpuRent').update('connection.keepaliveSeconds', 7, vscode.ConfigurationTarget.Global);
    try {
      await waitFor('the pooled connection to be dropped', async () => (await state()).connections[id] === null);
      await exec('gpuRent.checkGpu', { id, quiet: true });
      assert.equal((await state()).connections[id], 'connected');
    } finally {
      await vscode.workspace.getConfiguration('gpuRent').update('connection.keepaliveSeconds', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('a changed host key is refused, naming host and port; a new port of the same instance keeps its trust', async () => {
    const home = process.env.GPU_RENT_HOME;
    assert.ok(home, 'GPU_RENT_HOME is set for the extension host');
    const kh = path.join(home, 'known_hosts');
    // The same box under another name: pin a different key for it, as a man in the middle would present.
    const other = await exec<string>('gpuRent.addInstance', { name: 'moved box', login: `ssh -p ${sshd.port} ${sshd.user}@localhost`, password: sshd.password, platform: 'autodl', card: 'RTX 4090', state: 'running' });
    fs.appendFileSync(kh, `[localhost]:${sshd.port} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n`);
    const msg = await fails('gpuRent.checkGpu', { id: other, quiet: true });
    log(`changed key: ${msg}`);
    assert.match(msg, /host key/i);
    assert.ok(msg.includes(`localhost:${sshd.port}`), `the warning names host and port: ${msg}`);
    assert.equal(await exec<boolean>('gpuRent.removeInstance', other), true);
    // The first instance after a "power cycle": the same machine answers on a new port (a
    // forwarder here), and its old endpoint is remembered, so its key is recognised without asking.
    const forward = net.createServer((c) => {
      const up = net.connect(sshd.port, sshd.host);
      c.pipe(up).pipe(c);
      const end = () => (c.destroy(), up.destroy());
      c.on('error', end);
      up.on('error', end);
    });
    await new Promise<void>((r) => forward.listen(0, '127.0.0.1', r));
    const newPort = (forward.address() as net.AddressInfo).port;
    try {
      await exec('gpuRent.updateLogin', { id, login: `ssh -p ${newPort} ${sshd.user}@${sshd.host}`, password: sshd.password });
      assert.deepEqual((await inst(id)).login.previousEndpoints, [{ host: sshd.host, port: sshd.port }]);
      await exec('gpuRent.checkGpu', { id, quiet: true }); // no acceptNewHostKey: recognised by its key
      assert.ok(fs.readFileSync(kh, 'utf8').includes(`[${sshd.host}]:${newPort} `), 'the new port is pinned with the same key');
    } finally {
      await exec('gpuRent.updateLogin', { id, login, password: sshd.password });
      forward.close();
    }
  });

  it('Export and Import carry the instances without passwords', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gr-export-')), 'instances.json');
    assert.equal(await exec<string>('gpuRent.exportInstances', { path: file }), file);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.includes(id) && !text.includes(sshd.password));
    const parsed = JSON.parse(text) as { instances: { id: string; name: string }[] };
    parsed.instances = parsed.instances.filter((i) => i.id === id).map((i) => ({ ...i, name: 'commands box (imported)' }));
    fs.writeFileSync(file, JSON.stringify(parsed));
    assert.deepEqual(await exec('gpuRent.importInstances', { path: file }), { added: 0, replaced: 1 });
    assert.equal((await inst(id)).name, 'commands box (imported)');
    assert.match(await fails('gpuRent.importInstances', { path: path.join(path.dirname(file), 'missing.json') }), /ENOENT/);
  });

  it('Refresh re-probes the instances without an error', async () => {
    await exec('gpuRent.refresh');
    assert.ok((await inst(id)).id);
  });

  it('a capture made by the CLI is rebuilt by the extension, and one made by the extension by the CLI', async function () {
    if (!fs.existsSync(CLI)) assert.fail(`${CLI} is missing: the e2e script builds it first`);
    const env = { ...process.env, GPU_RENT_PASSWORD: sshd.password };
    const target = `ssh://${sshd.user}@${sshd.host}:${sshd.port}`;
    const cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-cli-env-'));
    const cap = spawnSync(process.execPath, [CLI, 'env', 'capture', target, '--out', cliDir, '--accept-new', '--json'], { env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(cap.status, 0, cap.stderr);
    fs.appendFileSync(path.join(cliDir, 'requirements.txt'), 'tqdm==4.66.1\n');
    const r = await exec<{ jobId: string; dir: string }>('gpuRent.rebuildEnvironment', { id, capturePath: cliDir, envName: 'from-cli' });
    const script = fs.readFileSync(path.join(r.dir.replace(/^~/, sshd.home), 'requirements.txt'), 'utf8');
    assert.match(script, /tqdm==4\.66\.1/, 'the edited requirements.txt is what the rebuild installs');
    const ext = await exec<{ dir: string }>('gpuRent.captureEnvironment', { id });
    const reb = spawnSync(process.execPath, [CLI, 'env', 'rebuild', target, '--from', ext.dir, '--name', 'from-ext', '--no-follow', '--json'], { env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(reb.status, 0, reb.stderr);
    log(`cli rebuild of the extension's capture: ${reb.stdout.slice(0, 300)}`);
  });

  it('Scan Folder for Secrets finds what `gpu-rent scan-secrets` finds, a token in .git/config included', async () => {
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-scan-'));
    fs.mkdirSync(path.join(tree, '.git', 'objects'), { recursive: true });
    fs.writeFileSync(path.join(tree, '.git', 'config'), '[remote "origin"]\n\turl = https://me:ghp_abcdefghijklmnopqrstuvwxyz0123456789AB@github.com/me/repo.git\n');
    fs.writeFileSync(path.join(tree, 'train.py'), 'HF = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"\n');
    fs.writeFileSync(path.join(tree, '.env'), 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n');
    const ext = await exec<{ findings: { path: string; kind: string }[]; truncated: boolean }>('gpuRent.scanSecrets', { path: tree });
    const cli = spawnSync(process.execPath, [CLI, 'scan-secrets', tree, '--json'], { encoding: 'utf8', cwd: tree, timeout: 60_000 });
    assert.equal(cli.status, 1, cli.stderr);
    const cliFindings = (JSON.parse(cli.stdout) as { findings: { path: string; kind: string }[] }).findings;
    const key = (f: { path: string; kind: string }) => `${f.path.replace(/^\.\//, '')} ${f.kind}`;
    log(`scan: extension ${JSON.stringify(ext.findings.map(key))}, cli ${JSON.stringify(cliFindings.map(key))}`);
    assert.ok(ext.findings.some((f) => f.path === '.git/config'), 'the token in the git remote URL is missed');
    assert.deepEqual(ext.findings.map(key).sort(), cliFindings.map(key).sort());
    assert.equal(ext.truncated, false);
  });

  it('Check GPU says when the box is not the card you pay for', async () => {
    // The loopback box prints a real RTX 4090 capture; this listing claims an A100.
    const other = await exec<string>('gpuRent.addInstance', { name: 'not my card', login, password: sshd.password, platform: 'autodl', card: 'A100 80GB', state: 'running' });
    try {
      const r = await exec<{ card: { kind: string; seen?: string[] } | null }>('gpuRent.checkGpu', { id: other, quiet: true });
      assert.equal(r.card?.kind, 'other-card', JSON.stringify(r.card));
      assert.deepEqual(r.card?.seen, ['NVIDIA GeForce RTX 4090']);
      const s = await exec<{ guardNotices: { kind: string; instanceId: string }[] }>('gpuRent.getState');
      assert.ok(s.guardNotices.some((n) => n.kind === 'card' && n.instanceId === other), 'no card notice was shown');
    } finally {
      await exec('gpuRent.removeInstance', other);
    }
  });

  it('the calculator opened from an instance starts from its card, GPUs and disk', async () => {
    await exec('gpuRent.openCalculator', { kind: 'instance', id });
    const i = await inst(id);
    const s = await exec<{ calculator: { open: boolean; inputs: { card: string; gpus: number; storageGb: number } } }>('gpuRent.getState');
    assert.equal(s.calculator.open, true);
    assert.match(s.calculator.inputs.card, /4090/);
    assert.equal(s.calculator.inputs.gpus, 1);
    assert.equal(s.calculator.inputs.storageGb, i.pricing.dataDiskGb);
  });

  after(async () => {
    if (id) await exec('gpuRent.removeInstance', id);
  });
});
