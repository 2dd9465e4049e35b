// The exit code does not depend on the output format, and every failure under --json is a JSON
// document with error.code on stdout (issue 45). A sample of documented failure paths of several
// commands, each run twice by the built CLI (with and without --json): the paths the issue found
// exiting 1 with nothing on stdout (release-check's missing folder, secure-upload's refusal, run's
// power-off refusal, power-on --wait-for-gpu on an instance that is not shut down or whose lock is
// held), the one printing a document without `error` (release-check with files at risk), and
// `instances`/`balance`/`stock` with no account (exit 0 in text, 1 under --json before), and the
// verdicts that exit 1 with their report on stdout, which carry `error` beside every key of the
// report: diagnose (incompatible), doctor and probe (not usable), scan-secrets (secrets found),
// spend (over budget), spot-check (not confirmed).
// Against the real loopback sshd and the platform test server.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, powerLockKey } from '../../src/app/platforms/powerLock';
import { exportInstances } from '../../src/core/instances';
import { runCliAsync } from '../support/cli';
import { PlatformServer } from '../support/platform-server';
import { startSshd, type TestSshd } from '../support/sshd';

interface Sample {
  label: string;
  args: () => string[];
  env: () => NodeJS.ProcessEnv;
  /** error.code under --json. */
  code: string;
  exit: number;
  /** The text run's answer is a report on stdout (release-check's files at risk), not only a line on stderr: its start. */
  report?: RegExp;
  /** Keys of the report that stay beside `error` under --json (scripts read them). */
  keys?: string[];
  /** The value of a report key under --json (the verdict). */
  verdict?: [string, unknown];
}

/** `--json` among the flags: before a bare `--` (after it, it would be the job's argument). */
const withJson = (args: string[]) => (args.includes('--') ? [...args.slice(0, args.indexOf('--')), '--json', ...args.slice(args.indexOf('--'))] : [...args, '--json']);

describe('exit codes equal with and without --json; every --json failure has error.code (built CLI)', function () {
  this.timeout(120000);
  let sshd: TestSshd;
  let server: PlatformServer;
  let work: string;
  let sshEnv: NodeJS.ProcessEnv;
  const remote = () => [`${sshd.user}@127.0.0.1:${sshd.port}`, '--accept-new', '--identity', sshd.privateKeyPath];
  const none = () => ({ HOME: work, GPU_RENT_HOME: join(work, 'gpu-rent'), GPU_RENT_KNOWN_HOSTS: join(work, 'known_hosts'), LANG: 'C.UTF-8' });
  const up = () => ({ ...none(), GPU_RENT_AUTODL_TOKEN: server.creds.autodlPro, GPU_RENT_AUTODL_API: server.url, GPU_RENT_ALLOW_POWER: '1' });

  before(async () => {
    sshd = await startSshd({ nvidiaSmi: 'titanv_driver515.65.01_smi.txt' });
    server = await PlatformServer.start();
    server.add({ platform: 'autodl-pro', id: 'pro-run', name: 'running-one', state: 'running' });
    server.add({ platform: 'autodl-pro', id: 'pro-off', name: 'shut-one', state: 'shutdown' });
    work = mkdtempSync(join(tmpdir(), 'gpr-exit-json-'));
    sshEnv = { PATH: process.env.PATH, HOME: work, GPU_RENT_KNOWN_HOSTS: join(work, 'known_hosts'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '', LANG: 'C.UTF-8' };
    // A checkpoint on the box with no local copy: release-check finds it at risk.
    sshd.runAsUser('mkdir -p "$HOME/ckpt" && echo w > "$HOME/ckpt/step-1.pt"');
    mkdirSync(join(work, 'local-ckpt'));
    writeFileSync(join(work, 'secret.env'), 'TOKEN=x\n');
    // A project folder with a token in its code: scan-secrets finds it.
    mkdirSync(join(work, 'proj'));
    writeFileSync(join(work, 'proj', 'train.py'), 'token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"\n');
    // An exported instance list: one AutoDL 3090 at ¥1.98/h running since 5 h before --at, against a ¥1 budget.
    const at = Date.parse('2026-11-20T12:00:00+08:00') / 1000;
    writeFileSync(
      join(work, 'instances.json'),
      exportInstances([
        {
          id: 'training',
          name: 'training',
          platform: 'autodl',
          card: 'rtx3090',
          gpuCount: 1,
          login: { host: '127.0.0.1', port: 22, user: 'root', auth: 'password' },
          pricing: { billingMode: 'hour', hourlyRate: 198, noGpuModeRate: 10, storageGbDay: 50, dataDiskGb: 20 },
          intervals: [{ state: 'running', from: at - 5 * 3600, computeRate: 198, storageRate: 1000 }],
          createdAt: at - 86400,
        },
      ]),
    );
    // A machine with no nvidia-smi and no python on PATH: doctor --local says it is not usable.
    mkdirSync(join(work, 'empty-bin'));
  });
  after(async () => {
    await sshd?.stop();
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const SAMPLES: Sample[] = [
    { label: 'quote --gpus 9 (usage)', args: () => ['quote', '--gpus', '9'], env: none, code: 'usage', exit: 2 },
    { label: 'spot-check --gpus 9 (usage, the same bound)', args: () => ['spot-check', '--hours', '1', '--sync-minutes', '5', '--rate', '1', '--gpus', '9'], env: none, code: 'usage', exit: 2 },
    { label: 'instances with no account', args: () => ['instances'], env: none, code: 'no-account', exit: 1 },
    { label: 'balance with no account', args: () => ['balance'], env: none, code: 'no-account', exit: 1 },
    { label: 'stock with no account', args: () => ['stock'], env: none, code: 'no-account', exit: 1 },
    { label: 'release-check of a folder the box lacks', args: () => ['release-check', ...remote(), '--remote', '~/no-such-ckpt', '--local', join(work, 'local-ckpt')], env: () => sshEnv, code: 'remote-missing', exit: 1 },
    { label: 'release-check with a checkpoint at risk', args: () => ['release-check', ...remote(), '--remote', '~/ckpt', '--local', join(work, 'local-ckpt')], env: () => sshEnv, code: 'at-risk', exit: 1, report: /^RELEASING WOULD LOSE 1 file/, keys: ['atRisk', 'remoteRoot'] },
    {
      label: 'diagnose of a driver too old for the torch build (incompatible)',
      args: () => ['diagnose', '--driver', '470.57.02', '--torch', '2.1.0+cu121'],
      env: none,
      code: 'incompatible',
      exit: 1,
      report: /^Driver too old for this PyTorch build/,
      keys: ['verdict', 'driverMaxCuda', 'torchCuda', 'fix', 'reasons'],
      verdict: ['verdict', 'driver-too-old'],
    },
    {
      label: 'doctor --local on a machine with no nvidia-smi (not usable)',
      args: () => ['doctor', '--local'],
      env: () => ({ ...none(), PATH: join(work, 'empty-bin') }),
      code: 'not-usable',
      exit: 1,
      report: /^No NVIDIA GPU found on this machine/,
      keys: ['smi', 'probe', 'diagnosis'],
    },
    { label: 'probe of a box whose python has no torch (not usable)', args: () => ['probe', ...remote()], env: () => sshEnv, code: 'not-usable', exit: 1, report: /: checked in /, keys: ['target', 'verdict', 'diagnosis', 'gpus', 'disks'], verdict: ['verdict', 'no-torch'] },
    { label: 'scan-secrets of a folder with a token (secrets found)', args: () => ['scan-secrets', join(work, 'proj')], env: none, code: 'secrets-found', exit: 1, report: /train\.py:1: Hugging Face token/, keys: ['files', 'truncated', 'unreadable', 'unreadableCount', 'skippedLinks', 'findings'], verdict: ['files', 1] },
    {
      label: 'spend past its budget (over budget)',
      args: () => ['spend', join(work, 'instances.json'), '--budget', '1', '--at', '2026-11-20T12:00:00+08:00'],
      env: none,
      code: 'over-budget',
      exit: 1,
      report: /^today ¥/,
      keys: ['todayFen', 'monthFen', 'budget', 'perPlatform', 'perInstance', 'releases'],
    },
    { label: 'spot-check of an 8 h job without --yes (not confirmed)', args: () => ['spot-check', '--rate', '1.58', '--hours', '8', '--sync-minutes', '60'], env: none, code: 'not-confirmed', exit: 1, report: /^Spot job of 8\.0 h/, keys: ['spotRate', 'needsConfirmation', 'confirmed'], verdict: ['confirmed', false] },
    { label: 'secure-upload onto a disk folder', args: () => ['secure-upload', ...remote(), join(work, 'secret.env'), '--to', join(sshd.home, 'on-disk')], env: () => sshEnv, code: 'not-ram-backed', exit: 1 },
    {
      label: 'run --then sync-then-power-off on a login that may not power off',
      args: () => ['run', ...remote(), '--name', 'exitjson', '--then', 'sync-then-power-off', '--sync-remote', join(sshd.home, 'ckpt'), '--sync-local', join(work, 'pulled'), '--', 'true'],
      env: () => sshEnv,
      code: 'not-root-no-sudo',
      exit: 1,
    },
    { label: 'power-on --wait-for-gpu of a running instance', args: () => ['power-on', 'pro-run', '--wait-for-gpu', '--yes'], env: up, code: 'not-stopped', exit: 1 },
  ];

  for (const s of SAMPLES) {
    it(s.label, async () => {
      const text = await runCliAsync(s.args(), { ...s.env() });
      const json = await runCliAsync(withJson(s.args()), { ...s.env() });
      const seen = `text: ${text.code} ${text.stdout} ${text.stderr}\njson: ${json.code} ${json.stdout} ${json.stderr}`;
      assert.equal(json.code, s.exit, seen);
      assert.equal(text.code, json.code, `the exit code depends on --json: ${seen}`);
      let doc: { error?: { code?: unknown; message?: unknown } };
      try {
        doc = JSON.parse(json.stdout) as typeof doc;
      } catch {
        assert.fail(`stdout under --json is not one JSON document: ${seen}`);
      }
      assert.equal(doc.error?.code, s.code, seen);
      assert.equal(typeof doc.error?.message, 'string', seen);
      for (const k of s.keys ?? []) assert.ok(k in doc, `the report's ${k} stays beside error: ${seen}`);
      if (s.verdict) assert.deepEqual((doc as Record<string, unknown>)[s.verdict[0]], s.verdict[1], seen);
      if (s.report) assert.match(text.stdout, s.report, seen);
      else assert.ok(text.stderr.trim().length > 0, `the text run says why on stderr: ${seen}`);
    });
  }

  it('power-on --wait-for-gpu while another holds the instance lock: busy, exit 1 in both formats', async () => {
    const env = up();
    const lock = acquireFileLock(join(env.GPU_RENT_HOME, 'locks'), powerLockKey('env-autodl-pro', 'pro-off'), 'power-on --wait-for-gpu');
    assert.ok('release' in lock);
    try {
      const text = await runCliAsync(['power-on', 'pro-off', '--wait-for-gpu', '--yes'], env);
      const json = await runCliAsync(['power-on', 'pro-off', '--wait-for-gpu', '--yes', '--json'], env);
      assert.equal(text.code, 1, text.stderr);
      assert.equal(json.code, 1, json.stderr);
      assert.equal((JSON.parse(json.stdout) as { error: { code: string } }).error.code, 'busy', json.stdout);
    } finally {
      lock.release();
    }
  });
});

/**
 * Every command in the table (issue 45 item 1): its failure paths that need no network (a bad
 * flag; for a --json command, a failure such as no account configured, a missing file, a name
 * that is not there, a closed loopback port), each run with and without --json: the same exit
 * code in both formats, and under --json stdout is exactly one JSON document, an `error` object
 * with code and message, nothing else.
 */
describe('every command: the same exit code with and without --json, one {"error": {code, message}} document under --json (built CLI, no network)', function () {
  this.timeout(300000);
  let work: string;
  let port: number;
  const env = () => ({ HOME: work, GPU_RENT_HOME: join(work, 'gpu-rent'), GPU_RENT_KNOWN_HOSTS: join(work, 'known_hosts'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '', LANG: 'C.UTF-8' });
  const T = () => `root@127.0.0.1:${port}`;

  /** A failure each --json command meets here: no account, no file, no such name, a port nobody listens on. */
  const FAILS: Record<string, () => string[][]> = {
    platforms: () => [['--catalog', '/nonexistent/catalog.json']],
    quote: () => [['--like', 'no-such-run'], ['--catalog', '/nonexistent/catalog.json']],
    advise: () => [['--budget', 'x']],
    smi: () => [['/nonexistent/smi.txt']],
    diagnose: () => [['--driver', 'x', '--torch', '2.4.0']],
    doctor: () => [[]],
    probe: () => [[T(), '--accept-new']],
    run: () => [[T(), '--name', 'a', '--accept-new', '--', 'true']],
    jobs: () => [[T(), '--accept-new']],
    logs: () => [[T(), 'a', '--accept-new']],
    stop: () => [[T(), 'a', '--accept-new']],
    forward: () => [[T(), '6006', '--accept-new'], [T(), '80:x']],
    sync: () => [[T(), '--remote', '/r', '--local', work, '--accept-new']],
    accounts: () => [['remove', 'nope']],
    notify: () => [['remove', 'nope'], ['test', 'nope']],
    storage: () => [['remove', 'nope'], ['ls', 'nope/runs']],
    instances: () => [[], ['--platform', 'aliyun']],
    'power-on': () => [['x']],
    'power-off': () => [['x']],
    release: () => [['nosuch']],
    balance: () => [[]],
    stock: () => [[], ['--account', 'nope']],
    push: () => [[T(), '--local', work, '--remote', '/r', '--accept-new']],
    create: () => [['--account', 'nope', '--card', '4090', '--yes']],
    grab: () => [['--card', '4090', '--then', 'start', 'x', '--yes']],
    clone: () => [['x']],
    'shutdown-timer': () => [['x'], ['x', '--in', '1h']],
    schedule: () => [['remove', 'nope'], ['add', 'x', '--at', 'daily 01:00', '--do', 'power-off']],
    launch: () => [['--file', '/nonexistent/gpu-rent.yaml']],
    runs: () => [['compare', 'nope', 'nada'], ['compare', 'one']],
    'idle-check': () => [[T(), '--accept-new']],
    watchdog: () => [['status', T(), '--accept-new']],
    'secure-upload': () => [[T(), work, '--accept-new']],
    'scan-secrets': () => [['/nonexistent/dir']],
    env: () => [['capture', T(), '--accept-new']],
    peak: () => [['--platform', 'nope']],
    'spot-check': () => [['--hours', 'x', '--sync-minutes', '5', '--rate', '1']],
    spend: () => [['/nonexistent/spend.json']],
    'release-check': () => [[T(), '--remote', '/r', '--local', work, '--accept-new']],
  };

  let names: string[] = [];
  const takesJson = new Set<string>();

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpr-exit-json-all-'));
    port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    // The table as the built CLI lists it (gpu-rent --help), each command's own help asked whether it offers --json.
    const top = await runCliAsync(['--help'], env());
    names = [...top.stdout.slice(top.stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1]!);
    const helps = await Promise.all(names.map((n) => runCliAsync([n, '--help'], env())));
    names.forEach((n, i) => {
      if (/--json\b/.test(helps[i]!.stdout)) takesJson.add(n);
    });
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Runs `args` as text and with --json; checks the contract; returns both results. */
  async function both(args: string[], label: string) {
    const [text, json] = await Promise.all([runCliAsync(args, env()), runCliAsync(withJson(args), env())]);
    const seen = `${label}\ntext: ${text.code} [${text.stdout}] [${text.stderr}]\njson: ${json.code} [${json.stdout}] [${json.stderr}]`;
    assert.notEqual(json.code, 0, seen);
    assert.equal(text.code, json.code, `the exit code depends on --json: ${seen}`);
    let doc: unknown;
    try {
      doc = JSON.parse(json.stdout);
    } catch {
      assert.fail(`stdout under --json is not exactly one JSON document: ${seen}`);
    }
    const error = (doc as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    assert.equal(typeof error, 'object', seen);
    assert.equal(typeof error?.code, 'string', seen);
    assert.equal(typeof error?.message, 'string', seen);
    assert.ok((error!.message as string).length > 0, seen);
    assert.deepEqual(Object.keys(doc as object), ['error'], `nothing beside the error object: ${seen}`);
    return { text, json, code: error!.code as string, seen };
  }

  it('the table: 30 commands or more, and a failure row here for each one that offers --json', () => {
    assert.ok(names.length >= 30, names.join(' '));
    assert.deepEqual([...takesJson].sort(), Object.keys(FAILS).sort());
  });

  it('a bad flag: exit 2 in both formats, {"error": {"code": "usage"}} under --json, nothing on stdout without it', async () => {
    for (const name of names) {
      const r = await both([name, '--no-such-flag'], name);
      assert.equal(r.json.code, 2, r.seen);
      assert.equal(r.code, 'usage', r.seen);
      assert.equal(r.text.stdout, '', r.seen);
      assert.match(r.text.stderr, new RegExp(`^gpu-rent ${name}: `), r.seen);
    }
  });

  it('each --json command failing without the network: the same exit code in both formats, the error document alone on stdout', async () => {
    for (const [name, cases] of Object.entries(FAILS)) {
      for (const args of cases()) {
        const r = await both([name, ...args], `${name} ${args.join(' ')}`);
        // Usage is exit 2, anything else 1 (launch keeps 2 for a task file it cannot read: its exit table).
        assert.equal(r.json.code, r.code === 'usage' || (name === 'launch' && r.code === 'bad-task-file') ? 2 : 1, r.seen);
        // People read why on stderr (launch --json keeps stderr for its progress lines, and says it there too without --json).
        assert.ok(r.text.stderr.trim().length > 0, r.seen);
      }
    }
  });
});
