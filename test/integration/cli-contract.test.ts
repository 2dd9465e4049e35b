// What every command of the built CLI promises scripts and people (issue 23.5): `-i FILE` like
// ssh, `--version` from package.json, one JSON error contract for `--json` commands (an object
// with error.code and error.message on stdout, non-zero exit), and Ctrl-C ending a long wait
// cleanly. A new process each time, against the real loopback sshd.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';

describe('the CLI contract (built CLI, real sshd)', function () {
  this.timeout(120000);
  let sshd: TestSshd;
  let work: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    sshd = await startSshd({ nvidiaSmi: 'h100_80gb_driver590.48.01_smi_load.txt' });
    work = mkdtempSync(join(tmpdir(), 'gpr-cli-contract-'));
    env = { GPU_RENT_KNOWN_HOSTS: join(work, 'known_hosts'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
  });
  after(async () => {
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('-i FILE and -iFILE pick the key like ssh -i (and --identity FILE still does)', () => {
    const target = `${sshd.user}@127.0.0.1:${sshd.port}`;
    for (const keyArgs of [['-i', sshd.privateKeyPath], [`-i${sshd.privateKeyPath}`], ['--identity', sshd.privateKeyPath]]) {
      // probe exits 1 for this box's verdict (no torch on it); what matters is that it got in.
      const r = runCli(['probe', target, '--accept-new', ...keyArgs, '--json'], { env });
      const j = JSON.parse(r.stdout) as { error?: unknown; smi?: unknown };
      assert.equal(j.error, undefined, `${keyArgs.join(' ')}: ${r.stdout} ${r.stderr}`);
      assert.equal((j as { diagnosis?: { driverVersion?: string } }).diagnosis?.driverVersion, '590.48.01', r.stdout);
    }
    // Without a key nothing is offered: the sshd refuses, so the key above is what got in.
    const none = runCli(['probe', target, '--accept-new', '--json'], { env });
    assert.equal(none.code, 1);
    assert.match(JSON.parse(none.stdout).error.code, /^(no-credentials|auth-failed)$/);
    assert.match(runCli(['probe', '--help']).stdout, /-i, --identity FILE/);
  });

  it('--version prints the version in package.json', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    const r = runCli(['--version']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `${pkg.version}\n`);
  });

  it('--json errors: one object with error.code and error.message on stdout, a non-zero exit, for usage, parse and connection failures', async () => {
    const usage = runCli(['quote', '--json', '--gpus', 'many']);
    assert.equal(usage.code, 2);
    assert.deepEqual(Object.keys(JSON.parse(usage.stdout).error).sort(), ['code', 'message']);
    assert.equal(JSON.parse(usage.stdout).error.code, 'usage');
    assert.match(JSON.parse(usage.stdout).error.message, /--gpus expects a whole number/);

    const smi = runCli(['smi', '-', '--json'], { input: 'Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 580.159\n' });
    assert.equal(smi.code, 1);
    assert.equal(JSON.parse(smi.stdout).error.code, 'nvml-mismatch');

    // A port nobody listens on: the connection's own code, not text on stderr only.
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const refused = runCli(['probe', `root@127.0.0.1:${port}`, '--json', '--accept-new'], { env });
    assert.equal(refused.code, 1, refused.stderr);
    const e = JSON.parse(refused.stdout).error;
    assert.equal(e.code, 'connect-refused');
    assert.match(e.message, /nothing is listening on 127\.0\.0\.1 port/);
    // Without --json stdout stays empty: the message is on stderr.
    const plain = runCli(['probe', `root@127.0.0.1:${port}`, '--accept-new'], { env });
    assert.equal(plain.stdout, '');
    assert.match(plain.stderr, /nothing is listening/);
  });

  it('Ctrl-C ends a long wait (idle-check --for 600) at once, with exit code 130 and a line saying so', async () => {
    const child = spawn(process.execPath, [CLI, 'idle-check', `${sshd.user}@127.0.0.1:${sshd.port}`, '--accept-new', '-i', sshd.privateKeyPath, '--for', '600', '--every', '30'], {
      env: { ...process.env, LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Long enough for the connection and the first probe: the 30 s wait between probes has begun
    // (whenever the signal lands, the command must end promptly).
    await new Promise((r) => setTimeout(r, 4000));
    const t0 = Date.now();
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10000))]);
    if (code === 'hung') child.kill('SIGKILL');
    assert.notEqual(code, 'hung', 'still waiting 10 s after Ctrl-C');
    assert.equal(code, 130, stderr);
    assert.ok(Date.now() - t0 < 5000, `${Date.now() - t0} ms`);
    assert.match(stderr, /interrupted/);
  });
});
