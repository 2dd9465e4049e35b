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
import { CLI, runCli, runCliAsync, type CliResult } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import { startSshd, type TestSshd } from '../support/sshd';

/** A loopback port nobody listens on (taken and closed again). */
function closedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** Where a failing case runs: no account at all, an AutoDL account whose API port is closed, or one on the platform test server. */
type Where = 'none' | 'down' | 'up';

interface Case {
  args: string[];
  where?: Where;
  /** The expected error.code; exit 2 exactly when it is `usage`, else 1. */
  code: string;
}

/**
 * Every command that takes --json, with the failing conditions it can meet. A command added to
 * the registry with a --json flag and no row here fails the test below. SSH targets point at a
 * closed port (T); platform cases run with no account, an unreachable one or the test server's.
 */
const T = 'root@127.0.0.1:PORT';
const FAILING: Record<string, Case[]> = {
  platforms: [{ args: ['--catalog', '/nonexistent/catalog.json'], code: 'usage' }],
  quote: [{ args: ['--gpus', 'many'], code: 'usage' }],
  advise: [{ args: ['--budget', 'x'], code: 'usage' }],
  smi: [{ args: ['/nonexistent/smi.txt'], code: 'failed' }],
  diagnose: [{ args: ['--driver', 'x', '--torch', '2.4.0'], code: 'usage' }],
  doctor: [{ args: [], code: 'usage' }],
  probe: [{ args: [T, '--accept-new'], code: 'connect-refused' }],
  run: [{ args: [T, '--name', 'a', '--accept-new', '--', 'true'], code: 'connect-refused' }],
  jobs: [{ args: [T, '--accept-new'], code: 'connect-refused' }],
  logs: [{ args: [T, 'a', '--accept-new'], code: 'connect-refused' }],
  stop: [{ args: [T, 'a', '--accept-new'], code: 'connect-refused' }],
  forward: [
    { args: [T, '6006', '--accept-new'], code: 'connect-refused' },
    { args: [T, '80:x'], code: 'usage' },
  ],
  sync: [{ args: [T, '--remote', '/r', '--local', 'LOCAL', '--accept-new'], code: 'connect-refused' }],
  accounts: [
    { args: ['remove', 'nope'], where: 'none', code: 'not-found' },
    { args: ['add', 'autodl-pro'], where: 'down', code: 'unreachable' },
    { args: ['add', 'autodl-pro'], where: 'up', code: 'token-expired' },
  ],
  notify: [
    { args: ['remove', 'nope'], where: 'none', code: 'not-found' },
    { args: ['add', 'phone', '--kind', 'wecom'], where: 'none', code: 'usage' },
  ],
  storage: [
    { args: ['remove', 'nope'], where: 'none', code: 'not-found' },
    { args: ['ls', 'nope/runs'], where: 'none', code: 'not-found' },
  ],
  instances: [
    { args: [], where: 'none', code: 'no-account' },
    { args: [], where: 'down', code: 'unreachable' },
  ],
  'power-on': [
    { args: ['x'], where: 'none', code: 'no-account' },
    { args: ['nosuch', '--yes'], where: 'up', code: 'not-found' },
    { args: ['x'], where: 'down', code: 'unreachable' },
  ],
  'power-off': [
    { args: ['x', '--account', 'nope'], where: 'up', code: 'no-account' },
    { args: ['x'], where: 'down', code: 'unreachable' },
  ],
  release: [
    { args: ['nosuch'], where: 'none', code: 'no-account' },
    { args: ['nosuch'], where: 'up', code: 'not-found' },
  ],
  balance: [
    { args: [], where: 'none', code: 'no-account' },
    { args: [], where: 'down', code: 'unreachable' },
  ],
  stock: [
    { args: [], where: 'none', code: 'no-account' },
    { args: [], where: 'down', code: 'unreachable' },
    { args: ['--account', 'nope'], where: 'up', code: 'no-account' },
  ],
  push: [{ args: [T, '--local', 'LOCAL', '--remote', '/r', '--accept-new'], code: 'connect-refused' }],
  create: [{ args: ['--account', 'nope', '--card', '4090', '--yes'], where: 'none', code: 'no-account' }],
  grab: [{ args: ['--card', '4090', '--then', 'start', 'x', '--yes'], where: 'none', code: 'no-account' }],
  clone: [
    { args: ['x'], where: 'none', code: 'no-account' },
    { args: ['x'], where: 'up', code: 'not-supported' },
  ],
  'shutdown-timer': [
    { args: ['x'], code: 'usage' },
    { args: ['x', '--in', '1h'], where: 'none', code: 'no-account' },
    { args: ['train', '--in', '1h', '--yes'], where: 'up', code: 'not-supported' },
    { args: ['x', '--in', '1h'], where: 'down', code: 'unreachable' },
  ],
  schedule: [
    { args: ['remove', 'nope'], where: 'none', code: 'not-found' },
    { args: ['add', 'x', '--at', 'daily 01:00', '--do', 'power-off'], where: 'none', code: 'no-account' },
    { args: ['add', 'nosuch', '--at', 'daily 01:00', '--do', 'power-off'], where: 'up', code: 'not-found' },
    { args: ['add', 'x', '--at', 'daily 01:00', '--do', 'power-off'], where: 'down', code: 'unreachable' },
  ],
  launch: [{ args: ['--file', '/nonexistent/gpu-rent.yaml'], code: 'bad-task-file' }],
  runs: [
    { args: ['compare', 'nope', 'nada'], where: 'none', code: 'run-not-found' },
    { args: ['compare', 'one'], code: 'usage' },
  ],
  'idle-check': [{ args: [T, '--accept-new'], code: 'connect-refused' }],
  watchdog: [{ args: ['status', T, '--accept-new'], code: 'connect-refused' }],
  'secure-upload': [{ args: [T, 'LOCAL', '--accept-new'], code: 'connect-refused' }],
  'scan-secrets': [{ args: ['/nonexistent/dir'], code: 'usage' }],
  env: [{ args: ['capture', T, '--accept-new'], code: 'connect-refused' }],
  peak: [{ args: ['--platform', 'nope'], code: 'usage' }],
  'spot-check': [{ args: ['--hours', 'x', '--sync-minutes', '5', '--rate', '1'], code: 'usage' }],
  spend: [{ args: ['/nonexistent/spend.json'], code: 'usage' }],
  'release-check': [{ args: [T, '--remote', '/r', '--local', 'LOCAL', '--accept-new'], code: 'connect-refused' }],
};

/** The exits the contract allows for a code: 2 for usage; launch keeps 2 for a task file it cannot read (its exit table). */
const exitFor = (name: string, code: string): number => (code === 'usage' || (name === 'launch' && code === 'bad-task-file') ? 2 : 1);

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
      // probe exits 1 for this box's verdict (no torch on it: error not-usable beside the report); what matters is that it got in.
      const r = runCli(['probe', target, '--accept-new', ...keyArgs, '--json'], { env });
      const j = JSON.parse(r.stdout) as { error?: { code?: string }; smi?: unknown };
      assert.equal(j.error?.code, 'not-usable', `${keyArgs.join(' ')}: ${r.stdout} ${r.stderr}`);
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

  describe('every --json command (from the command registry): a failure is {"error": {code, message}} on stdout and a non-zero exit', () => {
    let server: PlatformServer;
    let home: string;
    let port: number;
    let apiPort: number;
    const where: Record<Where, () => NodeJS.ProcessEnv> = {
      none: () => ({ HOME: home, GPU_RENT_HOME: join(home, 'gpu-rent'), GPU_RENT_KNOWN_HOSTS: join(home, 'known_hosts') }),
      down: () => ({ ...where.none(), GPU_RENT_AUTODL_TOKEN: 'some-token', GPU_RENT_AUTODL_API: `http://127.0.0.1:${apiPort}`, GPU_RENT_ALLOW_POWER: '1' }),
      // A real answer from the platform test server; its token is wrong for `accounts add` only when asked (below).
      up: () => ({ ...where.none(), GPU_RENT_AUTODL_TOKEN: server.creds.autodlPro, GPU_RENT_AUTODL_API: server.url, GPU_RENT_ALLOW_POWER: '1' }),
    };
    const argsOf = (c: Case) => c.args.map((a) => a.replace('PORT', String(port)).replace(/^LOCAL$/, home));

    before(async () => {
      server = await PlatformServer.start();
      server.add({ platform: 'autodl-pro', id: 'pro-1', name: 'train', state: 'running' });
      home = mkdtempSync(join(tmpdir(), 'gpr-cli-contract-home-'));
      port = await closedPort();
      apiPort = await closedPort();
    });
    after(async () => {
      await server?.close();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('the table names exactly the commands whose help offers --json', async () => {
      // The registry as the built CLI lists it (gpu-rent --help), each command's own help asked.
      const top = await runCliAsync(['--help'], where.none());
      const names = [...top.stdout.slice(top.stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1]!);
      assert.ok(names.length >= 30, top.stdout);
      const withJson: string[] = [];
      for (const name of names) if (/--json\b/.test((await runCliAsync([name, '--help'], where.none())).stdout)) withJson.push(name);
      assert.ok(withJson.length >= 30, withJson.join(' '));
      assert.deepEqual([...withJson].sort(), Object.keys(FAILING).sort());
    });

    it('each failing condition: the error object with its code, exit 1 (2 for usage), and the same words on stderr', async () => {
      const seen: string[] = [];
      for (const [name, cases] of Object.entries(FAILING)) {
        for (const c of cases) {
          const args = [name, '--json', ...argsOf(c)];
          // The platform server refuses this token: accounts add's one read-only call fails with the platform's auth code.
          const env = name === 'accounts' && c.where === 'up' ? { ...where.up(), GPU_RENT_AUTODL_TOKEN: 'wrong-token' } : where[c.where ?? 'none']();
          const r: CliResult = await runCliAsync(args, env);
          const label = `${args.join(' ')} [${c.where ?? 'none'}] -> ${r.code} ${r.stdout} ${r.stderr}`;
          let body: { error?: { code?: unknown; message?: unknown } };
          try {
            body = JSON.parse(r.stdout) as typeof body;
          } catch {
            assert.fail(`stdout is not one JSON document: ${label}`);
          }
          assert.equal(typeof body.error?.code, 'string', label);
          assert.equal(typeof body.error?.message, 'string', label);
          assert.ok((body.error!.message as string).length > 0, label);
          assert.equal(body.error!.code, c.code, label);
          assert.equal(r.code, exitFor(name, c.code), label);
          // People still read why on stderr (launch --json keeps stderr for its progress lines only).
          if (name !== 'launch') assert.ok(r.stderr.trim().length > 0, label);
          seen.push(`${name}:${c.code}`);
        }
      }
      assert.equal(seen.length, Object.values(FAILING).flat().length);
    });

    it('a bad flag is {"error": {"code": "usage"}} with exit 2 for every --json command', async () => {
      for (const name of Object.keys(FAILING)) {
        const r = await runCliAsync([name, '--json', '--no-such-flag'], where.none());
        assert.equal(r.code, 2, `${name}: ${r.stdout} ${r.stderr}`);
        assert.equal(JSON.parse(r.stdout).error.code, 'usage', `${name}: ${r.stdout}`);
      }
    });

    it('without --json the platform commands exit as with it (issue 45): no account is exit 1 with the hint on stderr, a refusal on stderr only', async () => {
      for (const name of ['instances', 'balance', 'stock']) {
        const r = await runCliAsync([name], where.none());
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, new RegExp(`^gpu-rent ${name}: No platform account is configured\\. Add one with, for example:\n`));
      }
      for (const args of [['power-on', 'x'], ['release', 'nosuch'], ['schedule', 'remove', 'nope'], ['accounts', 'remove', 'nope']]) {
        const r = await runCliAsync(args, where.none());
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stdout, '', args.join(' '));
        assert.match(r.stderr, new RegExp(`^gpu-rent ${args[0]}: `));
      }
      const down = await runCliAsync(['instances'], where.down());
      assert.equal(down.code, 1);
      assert.equal(down.stdout, '');
      assert.match(down.stderr, /^gpu-rent instances: env-autodl-pro: AutoDL Pro: the platform could not be reached/);
    });

    it('the no-account hint: AutoDL needs no address (it has a built-in one); in Chinese every line is Chinese and it ends with a newline; the JSON message stays English', async () => {
      const en = await runCliAsync(['instances'], where.none());
      assert.match(en.stderr, /^ {2}GPU_RENT_AUTODL_TOKEN=… gpu-rent accounts add autodl-pro$/m);
      assert.doesNotMatch(en.stderr, /GPU_RENT_AUTODL_API/);
      const zhEnv = { ...where.none(), LANG: 'zh_CN.UTF-8' };
      const zh = await runCliAsync(['instances'], zhEnv);
      assert.equal(zh.code, 1, zh.stderr);
      const hint = zh.stderr.replace(/^gpu-rent instances: /, '');
      const lines = hint.split('\n');
      assert.equal(lines.at(-1), '', 'ends with a newline');
      assert.equal(lines[0], '还没有配置平台账号。可以这样添加，例如：');
      assert.match(lines[2]!, /gpu-rent accounts add aliyun-ecs +（所有地区；只读部分地区用 --region cn-hangzhou,cn-beijing）$/);
      assert.equal(lines[4], '或者只设置这些环境变量：由环境变量定义的账号会直接使用。');
      assert.equal(lines.length, 6);
      // Outside the example commands (variable names, `gpu-rent …`), no English word is left.
      const prose = hint.replace(/[A-Z_]+=…/g, '').replace(/gpu-rent accounts add [a-z-]+( --region [a-z0-9,-]+)?/g, '').replace(/--region cn-hangzhou,cn-beijing/g, '');
      assert.doesNotMatch(prose, /[A-Za-z]{3,}/, prose);
      const zhJson = await runCliAsync(['instances', '--json'], zhEnv);
      assert.equal(zhJson.code, 1);
      assert.match(JSON.parse(zhJson.stdout).error.message, /^No platform account is configured/);
      assert.match(zhJson.stderr, /^gpu-rent instances: 还没有配置平台账号。/);
    });
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
