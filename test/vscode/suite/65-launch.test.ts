// Run Task on a Rented GPU… and Launch Status in a real VS Code against the loopback sshd: a
// task on an SSH login (with a password) whose run is a real Python loop writing
// checkpoints and a progress bar, launched through the command with a script's choices; the
// local checkpoints folder then holds every checkpoint, byte for byte, the launch state (the
// CLI's file under GPU_RENT_HOME) says done, and Launch Status renders it. A smoke test stops
// after its steps. A task file with an error is refused with its line and field, and the
// editor opens it at that line.
import * as assert from 'assert';
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { exec, fails, log, readInfo, waitFor } from '../support';
import { TRAIN_PY } from '../../support/train-loop';

interface State {
  task: string;
  phase: string;
  smoke: boolean;
  outcome?: { kind: string; detail: string };
  lastSync?: { checkpoint?: string };
  job?: { attempt: number; resumedFrom?: string };
  end?: { action: string; ok: boolean; stillBilling: boolean };
  events: { text: string }[];
}

describe('launch: Run Task on a Rented GPU and Launch Status (loopback sshd)', function () {
  this.timeout(180_000);
  const { sshd } = readInfo();
  let root = '';

  function repo(name: string, yaml: string[], git = true): string {
    const dir = path.join(root, name);
    fs.mkdirSync(path.join(dir, 'scratch'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'train.py'), TRAIN_PY);
    fs.writeFileSync(path.join(dir, '.gitignore'), 'scratch/\nckpt-home/\n');
    fs.writeFileSync(path.join(dir, 'scratch', 'local-only.bin'), Buffer.alloc(1024, 1));
    fs.writeFileSync(path.join(dir, 'gpu-rent.yaml'), yaml.join('\n') + '\n');
    if (git)
      try {
        execFileSync('git', ['init', '-q', dir]);
      } catch {
        /* no git here: .gitignore is still read */
      }
    return path.join(dir, 'gpu-rent.yaml');
  }
  const ckpts = (file: string) => {
    const d = path.join(path.dirname(file), 'ckpt-home');
    return fs.existsSync(d) ? fs.readdirSync(d).filter((n) => n.startsWith('step-')).sort() : [];
  };

  before(async () => {
    await vscode.extensions.getExtension('gpu-rent.gpu-rent')!.activate();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-launch-'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a task on an SSH login (password): pushed as git sees it, run detached, every checkpoint synced home, the state says done', async () => {
    const name = `e2e-${Date.now().toString(36)}`;
    const file = repo(name, [
      `name: ${name}`,
      'resources: {cards: [4090], gpus: 1}',
      `instance: "ssh -p ${sshd.port} ${sshd.user}@${sshd.host}"`,
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "12", EVERY: "4", DELAY: "0.2"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 1.98',
      'end: none',
    ]);
    const s = await exec<State>('gpuRent.runTask', { file, task: name, mode: 'run', acceptNewHostKey: true, password: sshd.password, pollMs: 500 });
    log(`${name}: ${s.phase} ${s.outcome?.kind}: ${s.outcome?.detail}`);
    assert.equal(s.phase, 'done', JSON.stringify(s.events.slice(-6)));
    assert.equal(s.outcome?.kind, 'finished');
    assert.equal(s.lastSync?.checkpoint, 'step-0012');
    assert.deepEqual(ckpts(file), ['step-0004', 'step-0008', 'step-0012']);
    const remote = path.join(sshd.home, 'gpu-rent', name);
    assert.ok(fs.existsSync(path.join(remote, 'train.py')), 'the workdir was pushed');
    assert.equal(fs.existsSync(path.join(remote, 'scratch')), false, '.gitignore: scratch/ is not pushed');
    assert.deepEqual(fs.readFileSync(path.join(path.dirname(file), 'ckpt-home', 'step-0008', 'weights.bin')), fs.readFileSync(path.join(remote, 'ckpt', 'step-0008', 'weights.bin')), 'the same weights on both sides');
    assert.ok(s.events.some((e) => /check: .*RTX 4090/.test(e.text)), 'the GPU check ran');
    // The state is the CLI's file (gpu-rent launch --status reads the same one).
    const launches = path.join(process.env.GPU_RENT_HOME ?? path.join(os.homedir(), '.config', 'gpu-rent'), 'launches');
    assert.ok(fs.readdirSync(launches).some((f) => f.startsWith(`${name}-`) && f.endsWith('.json')), `no state file for ${name} in ${launches}`);
    // Launch Status renders it; a script gets the states too.
    const r = await exec<{ markdown: string; states: Record<string, State | null> }>('gpuRent.launchStatus', { file });
    assert.equal(r.states[name]?.phase, 'done');
    assert.match(r.markdown, new RegExp(`## ${name.replace(/-/g, '\\\\-')} — done`));
    assert.match(r.markdown, /step\\-0012/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Done means done: Continue has nothing to continue.
    const again = await fails('gpuRent.runTask', { file, task: name, mode: 'resume', password: sshd.password });
    assert.match(again, new RegExp(`No launch of ${name} to continue`));
  });

  it('a sweep (matrix:) from Run Task: each run launched with its values, its own checkpoints home, the sweep state says every run done', async () => {
    const name = `sw-${Date.now().toString(36)}`;
    const file = repo(name, [
      `name: ${name}`,
      'resources: {cards: [4090], gpus: 1}',
      `instance: "ssh -p ${sshd.port} ${sshd.user}@${sshd.host}"`,
      'run: python3 train.py --out ckpt',
      'matrix: {steps: [4, 8]}',
      'env: {STEPS: "{steps}", EVERY: "4", DELAY: "0.1"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'price_yuan_per_hour: 1.98',
      'end: none',
    ]);
    const s = await exec<{ sweep: string; members: { name: string; status: string; params: Record<string, unknown> }[] }>('gpuRent.runTask', { file, task: name, mode: 'run', acceptNewHostKey: true, password: sshd.password, pollMs: 500 });
    log(`${name}: ${s.members.map((m) => `${m.name} ${m.status}`).join(', ')}`);
    assert.deepEqual(s.members.map((m) => [m.name, m.status, m.params.steps]), [[`${name}-1`, 'done', 4], [`${name}-2`, 'done', 8]]);
    const home = path.join(path.dirname(file), 'ckpt-home');
    assert.deepEqual(fs.readdirSync(path.join(home, `${name}-1`)).filter((n) => n.startsWith('step-')).sort(), ['step-0004']);
    assert.deepEqual(fs.readdirSync(path.join(home, `${name}-2`)).filter((n) => n.startsWith('step-')).sort(), ['step-0004', 'step-0008']);
  });

  it('a smoke test (the only task in its file, picked without asking): stops after its steps, syncs, and says so', async () => {
    const name = `smoke-${Date.now().toString(36)}`;
    const file = repo(name, [
      `name: ${name}`,
      'resources: {cards: [4090]}',
      `instance: "ssh://${sshd.user}@${sshd.host}:${sshd.port}"`,
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "400", EVERY: "2", DELAY: "0.25"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'smoke: {steps: 4}',
      'end: none',
    ]);
    const s = await exec<State>('gpuRent.runTask', { file, mode: 'smoke', acceptNewHostKey: true, password: sshd.password, pollMs: 500 });
    log(`${name}: ${s.phase} ${s.outcome?.kind}: ${s.outcome?.detail}`);
    assert.equal(s.smoke, true);
    assert.equal(s.phase, 'done', JSON.stringify(s.events.slice(-6)));
    assert.equal(s.outcome?.kind, 'smoke');
    assert.ok(ckpts(file).includes('step-0002'), `checkpoints home: ${ckpts(file).join(', ')}`);
    assert.ok(ckpts(file).length < 200, 'the run was stopped, not run to its end');
    // Show status: the state as it is, nothing runs.
    const shown = await exec<State>('gpuRent.runTask', { file, mode: 'status' });
    assert.equal(shown.outcome?.kind, 'smoke');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a launch started by the CLI and killed mid-run is continued by the extension (the same state file): Run is refused while it is in progress, Continue finishes it without restarting the run', async () => {
    const name = `handoff-${Date.now().toString(36)}`;
    const file = repo(name, [
      `name: ${name}`,
      'resources: {cards: [4090]}',
      `instance: "ssh://${sshd.user}@${sshd.host}:${sshd.port}"`,
      'run: python3 train.py --out ckpt',
      'env: {STEPS: "40", EVERY: "10", DELAY: "0.3"}',
      'checkpoints: {remote: ckpt, local: ./ckpt-home, every: 30s}',
      'end: none',
    ]);
    const cli = path.join(vscode.extensions.getExtension('gpu-rent.gpu-rent')!.extensionPath, 'dist', 'cli.js');
    const child = spawn(process.execPath, [cli, 'launch', '--file', file, '--accept-new', '--password-for', `${sshd.user}@${sshd.host}:${sshd.port}`], { cwd: path.dirname(file), env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', GPU_RENT_PASSWORD: sshd.password, GPU_RENT_LAUNCH_POLL_MS: '500' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const launches = path.join(process.env.GPU_RENT_HOME ?? path.join(os.homedir(), '.config', 'gpu-rent'), 'launches');
    const stateNow = (): State | undefined => {
      const f = fs.existsSync(launches) ? fs.readdirSync(launches).find((n) => n.startsWith(`${name}-`) && n.endsWith('.json')) : undefined;
      return f ? (JSON.parse(fs.readFileSync(path.join(launches, f), 'utf8')) as State) : undefined;
    };
    try {
      await waitFor('the CLI launch to be watching its run', () => (child.exitCode !== null ? Promise.reject(new Error(`the CLI exited ${child.exitCode}: ${stderr.slice(-600)}`)) : stateNow()?.phase === 'watch'), 90_000, 300);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.once('exit', r).once('error', r));
    log(`${name}: CLI killed at ${stateNow()?.phase}`);
    const refused = await fails('gpuRent.runTask', { file, mode: 'run', password: sshd.password });
    assert.match(refused, new RegExp(`A launch of ${name} is in progress: choose Continue`));
    const s = await exec<State>('gpuRent.runTask', { file, mode: 'resume', password: sshd.password, pollMs: 500 });
    log(`${name}: ${s.phase} ${s.outcome?.kind}: ${s.outcome?.detail}`);
    assert.equal(s.phase, 'done', JSON.stringify(s.events.slice(-6)));
    assert.equal(s.outcome?.kind, 'finished');
    assert.equal(s.job?.attempt, 1, 'the run went on on the box: not started again');
    assert.deepEqual(ckpts(file), ['step-0010', 'step-0020', 'step-0030', 'step-0040']);
    assert.ok(s.events.some((e) => e.text.startsWith('resumed at')), 'the extension resumed the launch the CLI started');
  });

  it('a task file with an error: refused with its line and field, and the editor opens the file at that line', async () => {
    const file = repo('bad', ['name: bad', `instance: "ssh -p ${sshd.port} ${sshd.user}@${sshd.host}"`, 'run: python3 train.py', 'chekpoints: {remote: ckpt, local: ./ckpt-home}'], false);
    const msg = await fails('gpuRent.runTask', { file, mode: 'run' });
    assert.match(msg, /line 4, column 1 \(chekpoints\): unknown key "chekpoints"; did you mean checkpoints\?/);
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, file);
    assert.equal(editor?.selection.active.line, 3);
    assert.ok(!fs.existsSync(path.join(sshd.home, 'gpu-rent', 'bad')), 'nothing was pushed');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
