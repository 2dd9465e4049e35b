// `gpu-rent sync` as a user runs it: the built CLI in a new process against the real sshd.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI, runCli } from '../support/cli';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startSshd, type TestSshd } from '../support/sshd';
import { until } from '../support/timing';

describe('gpu-rent sync (CLI, real sshd)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let proxy: FaultProxy;
  let home: string;
  let remoteDir: string;
  let localDir: string;
  const OLD = Math.floor(Date.now() / 1000) - 3600;

  before(async function () {
    if (!existsSync(CLI)) throw new Error('run "npm run build" first');
    sshd = await startSshd();
    proxy = await startFaultProxy(sshd.port);
  });
  after(async () => {
    await proxy?.close();
    await sshd?.stop();
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'sync-cli-home-'));
    remoteDir = join(sshd.home, `cli-${randomBytes(3).toString('hex')}`);
    mkdirSync(remoteDir);
    chownSync(remoteDir, statSync(sshd.home).uid, statSync(sshd.home).gid);
    localDir = join(home, 'ckpt');
    proxy.mode = 'pass';
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(remoteDir, { recursive: true, force: true });
  });

  function put(rel: string, content: Buffer | string): void {
    const path = join(remoteDir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    utimesSync(path, OLD, OLD);
  }
  const env = () => ({ HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' });
  const args = (port = sshd.port) => ['sync', `ssh://${sshd.user}@127.0.0.1:${port}`, '--identity', sshd.privateKeyPath, '--accept-new', '--remote', remoteDir, '--local', localDir];

  it('usage mistakes exit 2 with one line naming the problem', () => {
    const noRemote = runCli(['sync', 'ssh://u@127.0.0.1:1', '--local', '/tmp/x'], { env: env() });
    assert.equal(noRemote.code, 2);
    assert.match(noRemote.stderr, /^gpu-rent sync: missing --remote DIR/);
    assert.equal(noRemote.stderr.trim().split('\n').length, 1);
    const badKeep = runCli([...args(), '--keep-last', '0'], { env: env() });
    assert.equal(badKeep.code, 2);
    assert.match(badKeep.stderr, /--keep-last expects a whole number ≥ 1.*, got "0"/);
    const badWatch = runCli([...args(), '--watch', 'soon'], { env: env() });
    assert.equal(badWatch.code, 2);
    assert.match(badWatch.stderr, /--watch expects/);
  });

  it('--json reports files, bytes, skipped with reasons and seconds; a second run reads 0 bytes', () => {
    const a = randomBytes(300000);
    put('checkpoint-1/model.pt', a);
    put('notes.txt', 'hello');
    symlinkSync('/etc/shadow', join(remoteDir, 'shadow'));
    put('..\\..\\evil', 'x');
    const r = runCli([...args(), '--json'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { files: number; bytes: number; skipped: Array<{ name: string; reason: string }>; seconds: number };
    assert.equal(out.files, 2);
    assert.equal(out.bytes, a.length + 5);
    assert.deepEqual(out.skipped, [
      { name: '..\\..\\evil', reason: 'backslash' },
      { name: 'shadow', reason: 'symlink-outside' },
    ]);
    assert.ok(typeof out.seconds === 'number' && out.seconds >= 0);
    assert.ok(readFileSync(join(localDir, 'checkpoint-1/model.pt')).equals(a));
    const again = JSON.parse(runCli([...args(), '--json'], { env: env() }).stdout) as { files: number; bytes: number };
    assert.equal(again.files, 0);
    assert.equal(again.bytes, 0);
  });

  it('text output names what was pulled and what was skipped; a missing remote folder is a clear error', () => {
    put('a.pt', 'abc');
    put('CON', 'x');
    const r = runCli(args(), { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^pulled a\.pt \(3 B\)$/m);
    assert.match(r.stdout, /^skipped CON: reserved device name/m);
    assert.match(r.stdout, /^pulled 1 file, 3 B in [\d.]+ s/m);
    rmSync(remoteDir, { recursive: true });
    const missing = runCli(args(), { env: env() });
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), `gpu-rent sync: remote folder ${remoteDir} does not exist`);
  });

  it('--watch pulls new files as they appear, across a dropped link; Ctrl-C mid-file leaves only a .part and exits 0; the next run resumes it', async () => {
    put('first.pt', 'one');
    const acceptedBefore = proxy.accepted;
    const proc = spawn(process.execPath, [CLI, ...args(proxy.port), '--json', '--watch', '0.3', '--settle', '0'], { env: { ...process.env, LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8', ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
    const output = () => `stdout: ${stdout}; stderr: ${stderr}`;
    try {
      await until('first.pt', () => existsSync(join(localDir, 'first.pt')), 15000, 50, output);
      proxy.resetAll(); // the link drops between passes: the next pass reconnects
      put('second.pt', 'two');
      await until('second.pt after a reconnect', () => existsSync(join(localDir, 'second.pt')), 15000, 50, output);
      assert.ok(proxy.accepted - acceptedBefore >= 2, 'a new connection was made');
      const big = randomBytes(48 * 1024 * 1024);
      put('big.ckpt', big);
      const part = join(localDir, 'big.ckpt.part');
      await until('a .part with data', () => existsSync(part) && statSync(part).size > 0, 15000, 50, output);
      proxy.mode = 'blackhole'; // the link hangs mid-file, as Wi-Fi does
      proc.kill('SIGINT');
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running'), 10000))]);
      assert.equal(code, 0, `exit ${code}; stderr: ${stderr}`);
      assert.ok(!existsSync(join(localDir, 'big.ckpt')), 'nothing published');
      const partBytes = readFileSync(part);
      assert.ok(partBytes.length > 0 && partBytes.length < big.length);
      assert.ok(partBytes.equals(big.subarray(0, partBytes.length)), '.part is a true prefix');

      proxy.mode = 'reset';
      proxy.mode = 'pass';
      const r = runCli([...args(), '--json'], { env: env() });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { files: number; bytes: number };
      assert.equal(out.files, 1);
      assert.equal(out.bytes, big.length - partBytes.length);
      assert.ok(readFileSync(join(localDir, 'big.ckpt')).equals(big));
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });

  it('--delete with --keep-last keeps only the newest N synced entries locally', () => {
    for (const [i, step] of [100, 200, 300].entries()) {
      put(`checkpoint-${step}/model.pt`, `m${step}`);
      utimesSync(join(remoteDir, `checkpoint-${step}/model.pt`), OLD + i * 10, OLD + i * 10);
    }
    assert.equal(runCli(args(), { env: env() }).code, 0);
    const r = runCli([...args(), '--keep-last', '1', '--delete', '--json'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { deleted: string[] };
    assert.deepEqual(out.deleted, ['checkpoint-100/model.pt', 'checkpoint-200/model.pt']);
    assert.ok(!existsSync(join(localDir, 'checkpoint-100')), 'emptied folders go too');
    assert.ok(existsSync(join(localDir, 'checkpoint-300/model.pt')));
  });
});
