// The exit code does not depend on the output format, and every failure under --json is a JSON
// document with error.code on stdout (issue 45). A sample of documented failure paths of several
// commands, each run twice by the built CLI (with and without --json): the paths the issue found
// exiting 1 with nothing on stdout (release-check's missing folder, secure-upload's refusal, run's
// power-off refusal, power-on --wait-for-gpu on an instance that is not shut down or whose lock is
// held), the one printing a document without `error` (release-check with files at risk), and
// `instances`/`balance`/`stock` with no account (exit 0 in text, 1 under --json before).
// Against the real loopback sshd and the platform test server.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, powerLockKey } from '../../src/app/platforms/powerLock';
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
  /** The text run's answer is a report on stdout (release-check's files at risk), not a line on stderr. */
  report?: true;
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
    { label: 'release-check with a checkpoint at risk', args: () => ['release-check', ...remote(), '--remote', '~/ckpt', '--local', join(work, 'local-ckpt')], env: () => sshEnv, code: 'at-risk', exit: 1, report: true },
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
      if (s.report) assert.match(text.stdout, /^RELEASING WOULD LOSE 1 file/, seen);
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
