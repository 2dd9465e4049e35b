// A box-side attacker (or just a big ordinary log) against a real sshd: a 2.3 GB tqdm log
// without one newline, a `run` argument or --env value holding the old heredoc terminator, a
// symlink already inside the local folder, a remote file swapped for a link after listing.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncRemote } from '../../src/app/sync';
import type { RemoteConnection } from '../../src/remote/connection';
import { listJobs, readLog, startJob } from '../../src/remote/jobs';
import { syncOnce } from '../../src/remote/sync';
import { CLI, runCli } from '../support/cli';
import { RAW_CONTROL, runCliMeasured } from '../support/hostile-sshd';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo } from './remote-helpers';

const MiB = 1024 * 1024;
const BUDGET_BYTES = 256 * MiB;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a box-side attacker on a real sshd', function () {
  this.timeout(180_000);
  let sshd: TestSshd;
  let conn: RemoteConnection;
  let home: string;
  let uid = 0;
  let gid = 0;

  before(async () => {
    if (!existsSync(CLI)) throw new Error('run "npm run build" first');
    sshd = await startSshd();
    uid = statSync(sshd.home).uid;
    gid = statSync(sshd.home).gid;
    home = mkdtempSync(join(tmpdir(), 'hostile-box-'));
    conn = connectionTo(sshd, join(home, 'known_hosts'));
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    rmSync(home, { recursive: true, force: true });
  });
  const target = () => `ssh://${sshd.user}@127.0.0.1:${sshd.port}`;
  const env = () => ({ HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' });
  const remote = (): string[] => ['--identity', sshd.privateKeyPath, '--accept-new'];

  async function waitExited(name: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const j = (await listJobs(conn, { name })).find((x) => x.name === name);
      if (j && j.state === 'exited') return;
      await sleep(100);
    }
    throw new Error(`job ${name} did not exit`);
  }

  it('gpu-rent logs on a 2.3 GB tqdm log with no newline: the tail by byte offset, bounded memory', async () => {
    const job = await startJob(conn, { name: 'tqdm', command: ['true'] });
    await waitExited('tqdm');
    // Sparse, so the test costs no disk: 2.3 GB, then 2 MiB of \r-only progress bars.
    truncateSync(job.logPath, 2300 * 1000 * 1000);
    let bars = '';
    for (let i = 0; bars.length < 2 * MiB; i++) bars += `\r ${String(i % 100).padStart(2)}%|#####     | ${i}/100000 [01:00<00:30, 16.6it/s]`;
    appendFileSync(job.logPath, bars + '\r100%|##########| 100000/100000 [01:40<00:00, 16.6it/s]');
    chownSync(job.logPath, uid, gid);
    const r = await runCliMeasured(['logs', target(), 'tqdm', ...remote()], env());
    assert.equal(r.code, 0, r.stderr.slice(0, 1000));
    assert.ok(r.stdout.endsWith('100000/100000 [01:40<00:00, 16.6it/s]'), JSON.stringify(r.stdout.slice(-100)));
    assert.ok(r.stdout.length <= MiB + 1024, `${r.stdout.length} characters shown`);
    assert.match(r.stderr, /read the last 1(\.0)? MB of a 2\.\d GB log/);
    assert.ok(!RAW_CONTROL.test(r.stdout));
    assert.ok(r.peakRssBytes < BUDGET_BYTES, `peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB`);
    console.log(`      peak RSS ${(r.peakRssBytes / MiB).toFixed(0)} MiB, ${r.ms} ms`);
    // And through the function the extension uses.
    const direct = await readLog(conn, 'tqdm', { lines: 500 });
    assert.equal(direct.logBytes, statSync(job.logPath).size);
    assert.ok(direct.text.length <= MiB);
  });

  it('a run argument or --env value with a GPU_RENT_EOF line does not end the launch script', async () => {
    const pwnedEnv = join(sshd.home, 'PWNED-env');
    const pwnedArg = join(sshd.home, 'PWNED-arg');
    const envValue = `a\nGPU_RENT_EOF\ntouch ${pwnedEnv}\nGPU_RENT_EOF\nz`;
    const argValue = `b\nGPU_RENT_EOF\ntouch ${pwnedArg}\n`;
    const r = runCli(['run', target(), ...remote(), '--name', 'eof', '--env', `X=${envValue}`, '--', 'sh', '-c', 'printf "%s|%s" "$X" "$1"', 'sh', argValue], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    await waitExited('eof');
    assert.ok(!existsSync(pwnedEnv), 'the --env value ran as shell');
    assert.ok(!existsSync(pwnedArg), 'the argument ran as shell');
    assert.equal((await readLog(conn, 'eof', { lines: 0 })).text, `${envValue}|${argValue}`);
  });

  describe('links', () => {
    let remoteDir: string;
    let localDir: string;
    let elsewhere: string;
    const OLD = Math.floor(Date.now() / 1000) - 3600;
    beforeEach(() => {
      remoteDir = join(sshd.home, `links-${randomBytes(3).toString('hex')}`);
      mkdirSync(remoteDir);
      chownSync(remoteDir, uid, gid);
      localDir = mkdtempSync(join(tmpdir(), 'links-local-'));
      elsewhere = mkdtempSync(join(tmpdir(), 'links-elsewhere-'));
    });
    afterEach(() => {
      rmSync(remoteDir, { recursive: true, force: true });
      rmSync(localDir, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    });
    function put(rel: string, content: Buffer | string): string {
      const path = join(remoteDir, rel);
      mkdirSync(join(path, '..'), { recursive: true });
      chownSync(join(path, '..'), uid, gid);
      writeFileSync(path, content);
      chownSync(path, uid, gid);
      utimesSync(path, OLD, OLD);
      return path;
    }

    it('a symlink sub -> /elsewhere already inside the local folder is not followed for writes', async () => {
      put('sub/x.pt', randomBytes(1000));
      put('sub/deep/y.pt', randomBytes(5 * MiB));
      put('ok.pt', 'fine');
      symlinkSync(elsewhere, join(localDir, 'sub'));
      const r = await syncOnce(syncRemote(conn), { remoteDir, localDir, settleSeconds: 0 });
      assert.deepEqual(readdirSync(elsewhere), [], 'something was written through the link');
      assert.deepEqual(r.pulled, ['ok.pt']);
      assert.deepEqual(r.skipped.map((s) => [s.name, s.reason]).sort(), [
        ['sub/deep/y.pt', 'local-conflict'],
        ['sub/x.pt', 'local-conflict'],
      ]);
      assert.ok(lstatSync(join(localDir, 'sub')).isSymbolicLink());
    });

    for (const size of [1000, 5 * MiB]) {
      it(`a ${size >= MiB ? '5 MiB' : '1 kB'} file swapped for a link to a same-size, same-mtime file after listing is refused`, async () => {
        const secretDir = join(sshd.home, `secret-${randomBytes(3).toString('hex')}`);
        mkdirSync(secretDir);
        chownSync(secretDir, uid, gid);
        const secret = join(secretDir, 'passwd');
        writeFileSync(secret, Buffer.alloc(size, 's'));
        chownSync(secret, uid, gid);
        utimesSync(secret, OLD, OLD);
        const victim = put('model.pt', randomBytes(size));
        const base = syncRemote(conn);
        let swapped = false;
        const sftp = await base.sftp();
        const open = sftp.open;
        // After the listing, at the moment the pull opens the file: the box swaps it.
        (sftp as unknown as { open: (...a: unknown[]) => unknown }).open = (path: unknown, ...rest: unknown[]) => {
          if (!swapped && typeof path === 'string' && path.endsWith('/model.pt')) {
            swapped = true;
            renameSync(victim, victim + '.moved');
            symlinkSync(secret, victim);
            execFileSync('touch', ['-h', '-d', `@${OLD}`, victim]);
          }
          return (open as (...a: unknown[]) => unknown).call(sftp, path, ...rest);
        };
        let r;
        try {
          r = await syncOnce(base, { remoteDir, localDir, settleSeconds: 0 });
        } finally {
          (sftp as unknown as { open: unknown }).open = open;
        }
        assert.ok(swapped, 'the pull never opened the file');
        assert.ok(!existsSync(join(localDir, 'model.pt')) || !readFileSync(join(localDir, 'model.pt')).equals(readFileSync(secret)), "the link's target was published");
        assert.deepEqual(r.skipped.map((s) => [s.name, s.reason]), [['model.pt', 'remote-swapped']]);
        rmSync(secretDir, { recursive: true, force: true });
      });
    }
  });
});
