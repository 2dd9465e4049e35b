// A hostile box over exec (ssh2's own Server, every reply under the test's control), driven
// through the built CLI as a user runs it and through RemoteConnection directly: 2 GiB of
// output, terminal escapes in every box string, a reply that never comes. Asserted: no crash,
// one clear error, the CLI's peak RSS under the 256 MB budget, no raw control byte on a stream.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteConnection } from '../../src/remote/connection';
import { parseTarget } from '../../src/remote/target';
import { CLI } from '../support/cli';
import { EVIL, RAW_CONTROL, runCliMeasured, startHostileSshd, type HostileSshd, type MeasuredRun } from '../support/hostile-sshd';

/** The CLI's memory budget under any reply from the box (README, "Hostile or broken boxes"). */
const BUDGET_BYTES = 256 * 1024 * 1024;
const MiB = 1024 * 1024;

const crashed = (r: MeasuredRun) => /FATAL ERROR|Cannot create a string longer|RangeError|heap out of memory|at .*\(.*\.js:\d+/.test(r.stderr);

describe('a hostile box over exec (ssh2 Server)', function () {
  this.timeout(180_000);
  let home: string;
  before(() => {
    if (!existsSync(CLI)) throw new Error('run "npm run build" first');
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hostile-home-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));
  const env = (s: HostileSshd) => ({ HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: s.password, SSH_AUTH_SOCK: '' });

  describe('2 GiB of output on every command', () => {
    let s: HostileSshd;
    before(async () => (s = await startHostileSshd({ mode: 'flood' })));
    after(() => s.close());

    for (const args of [['probe'], ['jobs'], ['logs', 'T', 'train'], ['stop', 'T', 'train'], ['run', 'T', '--name', 'x', '--launcher', 'torchrun', '--accept-new', '--', 'python', 'train.py']]) {
      it(`gpu-rent ${args[0]}: one clear error, no crash, peak RSS under 256 MB`, async () => {
        const argv = args.length > 1 ? args.map((a) => (a === 'T' ? s.target : a)) : [args[0]!, s.target];
        if (!argv.includes('--accept-new')) argv.push('--accept-new');
        const sentBefore = s.bytesSent;
        const r = await runCliMeasured(argv, env(s));
        assert.equal(r.code, 1, `exit ${r.code} ${r.signal ?? ''}: ${r.stderr.slice(0, 500)}`);
        assert.ok(!crashed(r), r.stderr.slice(0, 2000));
        assert.match(r.stderr, /printed more than \d+ MiB|did not finish|could not read the GPU count/);
        assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr.slice(0, 500));
        assert.ok(r.peakRssBytes > 0 && r.peakRssBytes < BUDGET_BYTES, `peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB`);
        // The box was cut off long before its 2 GiB.
        assert.ok(s.bytesSent - sentBefore < 512 * MiB, `${((s.bytesSent - sentBefore) / MiB).toFixed(0)} MiB sent`);
        console.log(`      peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB, ${r.ms} ms, box sent ${((s.bytesSent - sentBefore) / MiB).toFixed(0)} MiB`);
      });
    }

    it('exec keeps maxOutputBytes, counts the rest and stops the command (RemoteConnection)', async () => {
      const conn = new RemoteConnection(parseTarget(s.target), { knownHostsPath: join(home, 'kh'), acceptNew: true, password: s.password, useDefaultKeys: false, agent: false, firstConnectRetryMs: 0 });
      try {
        const r = await conn.exec('cat /dev/zero', { maxOutputBytes: MiB, timeoutMs: 60_000 });
        assert.equal(Buffer.byteLength(r.stdout), MiB);
        assert.ok(r.truncated.stdout >= 16 * MiB, `truncated ${r.truncated.stdout}`);
        assert.equal(r.truncated.stderr, 0);
        assert.equal(r.outputLimited, true);
        assert.equal(r.code, null);
        // The connection is still usable afterwards.
        const again = await conn.exec('x', { maxOutputBytes: 1024, timeoutMs: 60_000 });
        assert.equal(again.stdout.length, 1024);
      } finally {
        conn.close();
      }
    });
  });

  describe('on stderr', () => {
    let s: HostileSshd;
    before(async () => (s = await startHostileSshd({ mode: 'flood', floodStderr: true })));
    after(() => s.close());
    it('gpu-rent probe with 2 GiB on stderr: a clear error, bounded memory', async () => {
      const r = await runCliMeasured(['probe', s.target, '--accept-new'], env(s));
      assert.equal(r.code, 1);
      assert.ok(!crashed(r), r.stderr.slice(0, 2000));
      assert.match(r.stderr, /printed more than|did not finish/);
      assert.ok(r.peakRssBytes < BUDGET_BYTES, `peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB`);
    });
  });

  describe('terminal escapes in every box string', () => {
    let s: HostileSshd;
    before(async () => (s = await startHostileSshd({ mode: 'escapes' })));
    after(() => s.close());

    const noRaw = (r: MeasuredRun) => {
      assert.ok(!RAW_CONTROL.test(r.stdout), `raw control on stdout: ${JSON.stringify(r.stdout.slice(0, 400))}`);
      assert.ok(!RAW_CONTROL.test(r.stderr), `raw control on stderr: ${JSON.stringify(r.stderr.slice(0, 400))}`);
    };

    it('gpu-rent probe: GPU name, conda env, torch and disks shown with escapes made visible', async () => {
      const r = await runCliMeasured(['probe', s.target, '--accept-new'], env(s));
      noRaw(r);
      assert.match(r.stdout, /NVIDIA H100 80GB HBM3\\x1b\]52;c;/);
      assert.match(r.stdout, /Conda env: base\\x1b\]52/);
      assert.match(r.stdout, /\\x9b31m/);
      assert.match(r.stdout, /\\u202e/);
    });

    it('gpu-rent probe --json keeps the exact strings (JSON escapes them)', async () => {
      const r = await runCliMeasured(['probe', s.target, '--accept-new', '--json'], env(s));
      noRaw(r);
      const j = JSON.parse(r.stdout) as { gpus: Array<{ name: string }>; condaEnv: string };
      assert.ok(j.gpus[0]!.name.includes(EVIL.clipboard));
      assert.ok(j.condaEnv.includes(EVIL.c1));
    });

    it('gpu-rent jobs: the table', async () => {
      const r = await runCliMeasured(['jobs', s.target, '--accept-new'], env(s));
      assert.equal(r.code, 0, r.stderr);
      noRaw(r);
      assert.match(r.stdout, /train\\x9b31m/);
      assert.match(r.stdout, /\\x1b\]52;c;/);
    });

    it('gpu-rent logs and logs --follow: visible by default, the exact bytes with --raw', async () => {
      for (const extra of [[], ['--follow']]) {
        const r = await runCliMeasured(['logs', s.target, 'train', '--accept-new', ...extra], env(s));
        assert.equal(r.code, 0, r.stderr);
        noRaw(r);
        assert.match(r.stdout, /epoch 1\\x1b\]52;c;cm0gLXJmIH4K\\x07\\x1b\[2J/);
      }
      const raw = await runCliMeasured(['logs', s.target, 'train', '--accept-new', '--raw'], env(s));
      assert.ok(raw.stdout.includes(EVIL.clipboard), 'the --raw bytes');
    });

    it('gpu-rent smi on a saved reply: names made visible; the error text too', async () => {
      const file = join(home, 'smi.csv');
      writeFileSync(file, `index, name, memory.total [MiB]\n0, A100${EVIL.clipboard}${EVIL.c1}, 40960\n`);
      const r = await runCliMeasured(['smi', file], env(s));
      assert.equal(r.code, 0, r.stderr);
      noRaw(r);
      assert.match(r.stdout, /A100\\x1b\]52/);
      writeFileSync(file, `Failed to initialize NVML: Unknown Error${EVIL.clear}\n`);
      const bad = await runCliMeasured(['smi', file], env(s));
      assert.equal(bad.code, 1);
      noRaw(bad);
    });
  });

  describe('a reply that never comes', () => {
    let s: HostileSshd;
    before(async () => (s = await startHostileSshd({ mode: 'stall' })));
    after(() => s.close());
    it('gpu-rent probe --timeout 2: the deadline, named, and the process exits', async () => {
      const r = await runCliMeasured(['probe', s.target, '--accept-new', '--timeout', '2'], env(s), 30_000);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /did not finish within 2 s/);
      assert.ok(r.ms < 15_000, `${r.ms} ms`);
    });
  });

  it('gpu-rent smi on a 2 GiB file: refused with the size, bounded memory', async () => {
    const file = join(home, 'huge.txt');
    writeFileSync(file, '');
    // A sparse 2 GiB file: reading it whole is what used to crash.
    const { truncateSync } = await import('node:fs');
    truncateSync(file, 2 * 1024 * MiB);
    const r = await runCliMeasured(['smi', file], { HOME: home });
    assert.equal(r.code, 1);
    assert.ok(!crashed(r), r.stderr.slice(0, 1000));
    assert.match(r.stderr, /more than 16 MiB/);
    assert.ok(r.peakRssBytes < BUDGET_BYTES, `peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB`);
  });
});
